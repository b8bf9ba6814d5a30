/**
 * What a Thread gets from the runtime (STYLE: "Thread gets a narrow host, not the whole
 * runtime"): configuration, the model client, ids, the store as one thread writes it, its lease,
 * its secrets, publishing, its slice of the broker, approvals and the workspaces pool. The runtime
 * (core.ts) builds one host for all its threads.
 */

import type { Workspaces } from "../checkpoints/index.js";
import type { ResolvedProvider } from "../config/load.js";
import type { Settings } from "../config/schema.js";
import type { ModelClient } from "../model/types.js";
import type { Event, Usage } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";
import type { QuestionOutcome, QuestionPolicy, QuestionRequest } from "../protocol/questions.js";
import type { ThreadRecord, TurnRecord } from "../protocol/threads.js";
import type { SecretStore } from "../questions/secrets.js";
import { StoreError } from "../store/errors.js";
import type { Store } from "../store/types.js";
import type { ApprovalAsk, ApprovalDecision } from "../tools/types.js";
import type { IdSource } from "../util/ids.js";
import type { SkillUseRequest, SkillUseResult } from "./skill-use.js";
import type { ActiveTurn, Thread } from "./thread.js";

/**
 * The store as one thread writes it. `appendItem` refused by fencing (another node holds the
 * thread now) gives the thread up here, quietly, before it throws (ownership.ts `fenced`).
 * `update` of a status inside a turn (`running`, `waiting_on_user`) goes through the store's
 * queue where it has one (Store `queued`: a cluster node's answer does not wait for PostgreSQL
 * to record that its thread runs again): it returns at once, a fenced one gives the thread up
 * when its refusal arrives, and any other failure is reported as a process warning. Such a
 * change is always followed by a write that waits (the item it answers, the turn's end), which
 * the queue goes ahead of, so a lost lease still stops the turn there. Everything that ends a
 * turn or a thread (`idle`, `closed`, the turn's record) and every other change waits: no
 * `turn.completed` leaves a node before the store has the turn ended (red team: a node that
 * lost the lease during the turn's last step announced a completion the store never took).
 */
export interface ThreadStorage {
  create(record: ThreadRecord): void;
  appendItem(turnId: string | null, item: ResponseItem): void;
  update(patch: Partial<Omit<ThreadRecord, "id">>): void;
  putTurn(turn: TurnRecord): void;
  updateTurn(turnId: string, patch: Partial<Omit<TurnRecord, "id" | "thread_id">>): void;
  /** Adds one response's usage to the thread (and the turn); returns the thread's new total. */
  addUsage(turnId: string, usage: Usage): Usage;
}

/** The store as thread `threadId` writes it; `fenced` is told before a fenced append throws. */
export function storageFor(store: Store, threadId: string, fenced: () => void): ThreadStorage {
  const late = (e: unknown) => {
    if (StoreError.isInstance(e) && e.code === "fenced") fenced();
    else
      process.emitWarning(`tandem: could not store a change to thread ${threadId}: ${(e as Error).message}`);
  };
  return {
    create: (record) => store.createThread(record),
    appendItem: (turnId, item) => {
      try {
        store.appendItem(threadId, turnId, item);
      } catch (e) {
        // Another process holds the thread now: stop here, quietly (ownership.ts `fenced`).
        if (StoreError.isInstance(e) && e.code === "fenced") fenced();
        throw e;
      }
    },
    update: (patch) => {
      const inTurn = patch.status === "running" || patch.status === "waiting_on_user";
      if (store.queued && inTurn) store.queued.updateThread(threadId, patch).catch(late);
      else store.updateThread(threadId, patch);
    },
    putTurn: (turn) => store.putTurn(turn),
    updateTurn: (turnId, patch) => store.updateTurn(turnId, patch),
    addUsage: (turnId, usage) => store.addUsage(threadId, turnId, usage),
  };
}

/** The thread an approval belongs to: `cancel` interrupts its turn. */
export interface ApprovingThread {
  readonly id: string;
  interrupt(reason: string): boolean;
}

/** What a thread's tool calls need of the runtime (tool-context.ts). */
export interface ToolContextHost {
  readonly settings: Settings;
  readonly secrets: Pick<SecretStore, "view" | "put" | "dropThread" | "refresh">;
  /** The thread's slice of the broker. */
  readonly questions: {
    ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
    pendingCount(threadId: string): number;
    /** Settles the scope's pending questions as cancelled (Q8). */
    cancel(scope: { threadId: string; turnId?: string }, reason: string): void;
  };
  /** Whether anyone can answer the thread's questions (Q3). */
  readonly responders: { has(threadId: string): boolean };
  /** Variables the thread's skills were given (secret values), set under their own names for its commands. */
  skillEnv?(threadId: string): Record<string, string>;
  /** Asks an approval through the broker's queue (approvals.ts); may throw (a cap, a cancel). */
  requestApproval(
    thread: ApprovingThread,
    turnId: string,
    callId: string,
    ask: ApprovalAsk,
    policy: QuestionPolicy,
    signal: AbortSignal,
  ): Promise<ApprovalDecision>;
}

/** User hooks at a turn's boundaries (hooks.ts `RuntimeHooks`). */
export interface TurnHooks {
  /** Trust, SessionStart, UserPromptSubmit; undefined when there is nothing to do (no tick). */
  beforeTurn(thread: Thread, turn: ActiveTurn): Promise<void> | undefined;
  /** Stop / SubagentStop: the reason to go on, or undefined to end the turn. */
  onStop(
    thread: Thread,
    turn: ActiveTurn,
    lastMessage: string | undefined,
    round: number,
  ): Promise<string | undefined>;
}

export interface ThreadHost extends ToolContextHost {
  readonly hooks: TurnHooks;
  readonly provider: ResolvedProvider;
  readonly model: ModelClient;
  readonly ids: IdSource;
  /** client_metadata of every request, and the base instructions. */
  readonly windowId: string;
  readonly installationId: string;
  readonly baseInstructions: string;
  /** Never writable (requirements A4) / never visible to sandboxed commands (own-paths.ts). */
  readonly protectedPaths: string[];
  readonly hiddenPaths: string[];
  /** The workspaces threads work in: the turn-diff watch and checkpoints. */
  readonly workspaces: Workspaces;
  storage(threadId: string): ThreadStorage;
  /** The thread's driving lease: `take` throws ThreadInUseError naming the live holder. */
  readonly lease: { take(threadId: string): void; release(threadId: string): void };
  /** Publishes one of the thread's events (dropped once the thread moved to another process). */
  publish(event: Event): void;
  /** Skills and custom commands (skill-use.ts); absent in hosts that have none. */
  readonly skills?: ThreadSkills;
}

/** What a thread uses of skills: the catalog at its start, a turn's named skills and commands. */
export interface ThreadSkills {
  /** The catalog message for a thread starting in `cwd`, and a warning when it was cut. */
  catalog(cwd: string): { item: ResponseItem; warning?: string } | undefined;
  /** The prompt a custom command `/name args` stands for, else undefined. */
  expand(cwd: string, text: string): string | undefined;
  prepare(r: SkillUseRequest): Promise<SkillUseResult>;
  /** Files skipped in `cwd` and why ("path: reason"), shown once per thread. */
  problems(cwd: string): string[];
}
