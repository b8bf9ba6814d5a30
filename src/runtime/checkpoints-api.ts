/**
 * `runtime.checkpoints`: a thread's checkpoints as surfaces see them (README "Undo, redo, fork
 * and rewind"). Each checkpoint is the workspace just before one turn that changed files
 * (checkpoints/store.ts); it lives in the workspace's store under `$TANDEM_HOME/checkpoints/`,
 * so it survives restarts, and goes when pruned (`[checkpoints]` max_age_days / max_bytes).
 *
 * Contract: `list` and `plan` read only (they open the workspace's store, never write a file
 * of the workspace); they throw for an unknown thread. A turn that changed no file has no
 * checkpoint. `undo` and `redo` ask the user first (./restore-flow.ts has their contract).
 */
import type { Workspace } from "../checkpoints/index.js";
import { planRestore, type RestoreDirection, type RestorePlan } from "../checkpoints/restore.js";
import type { ChangeRow, CheckpointRow } from "../checkpoints/store.js";
import { type MessageItem, messageText } from "../protocol/items.js";
import type { RuntimeParts } from "./internals.js";
import { pickCheckpoint, type RestoreOptions, type RestoreOutcome, restoreFlow } from "./restore-flow.js";

export type { RestoreOptions, RestoreOutcome } from "./restore-flow.js";

export type FileChangeKind = "modified" | "created" | "deleted";

export interface CheckpointFile {
  path: string;
  change: FileChangeKind;
  /** False when undo cannot bring the earlier state back (withheld: it held a secret; big). */
  restorable: boolean;
}

export interface CheckpointInfo {
  /** Id in the workspace's store. */
  id: number;
  threadId: string;
  /** The turn this checkpoint precedes: undoing it restores the workspace to this checkpoint. */
  turnId: string;
  /** The user message that started that turn ("" when none is stored). */
  message: string;
  createdAt: number;
  /** `live`: the turn's changes are in the workspace; `undone`: taken back (redo re-applies). */
  state: CheckpointRow["state"];
  files: CheckpointFile[];
}

export const changeKind = (c: Pick<ChangeRow, "before" | "after">): FileChangeKind =>
  c.before === null ? "created" : c.after === null ? "deleted" : "modified";

const unrestorable = (s: ChangeRow["before"]) => s !== null && (s.kind === "withheld" || s.kind === "big");

export class CheckpointsApi {
  readonly #p: RuntimeParts;

  constructor(parts: RuntimeParts) {
    this.#p = parts;
  }

  /** The thread's checkpoints, oldest first. Throws for an unknown thread. */
  list(threadId: string): CheckpointInfo[] {
    const record = this.#record(threadId);
    return withWorkspace(this.#p, record.cwd, (ws) => {
      const messages = this.#turnMessages(threadId);
      return ws.store.checkpoints(threadId).map((cp) => this.#info(ws, cp, messages));
    });
  }

  /**
   * What undo (or redo) of the thread's last turn — or of `turnId` — would write, with its full
   * diff and conflicts, without asking or writing. Throws when there is nothing to act on.
   */
  plan(threadId: string, direction: RestoreDirection, turnId?: string): RestorePlan {
    const record = this.#record(threadId);
    return withWorkspace(this.#p, record.cwd, (ws) =>
      planRestore(ws, pickCheckpoint(ws.store.checkpoints(threadId), direction, turnId).id, direction),
    );
  }

  /** Undoes the file changes of the thread's last turn (or `turnId`), asking first. */
  undo(threadId: string, opts: RestoreOptions = {}): Promise<RestoreOutcome> {
    return this.#restore(threadId, "undo", opts);
  }

  /** Re-applies the file changes of the earliest undone turn (or `turnId`), asking first. */
  redo(threadId: string, opts: RestoreOptions = {}): Promise<RestoreOutcome> {
    return this.#restore(threadId, "redo", opts);
  }

  async #restore(threadId: string, direction: RestoreDirection, opts: RestoreOptions) {
    const record = this.#record(threadId);
    if (!this.#p.responders.has(threadId))
      throw new Error(
        `${direction} asks before it writes files, and nothing can answer questions for thread ${threadId} here (headless): run it from the TUI, the app-server or the HTTP API with a client attached`,
      );
    // Loaded here: this process holds the thread's lease while it writes.
    const thread = this.#p.registry.get(threadId) ?? this.#p.registry.open(threadId);
    if (thread.active)
      throw new Error(
        `thread ${threadId} has a running turn (${thread.active.id}); interrupt it before ${direction}`,
      );
    return withWorkspaceAsync(this.#p, record.cwd, async (ws) => {
      const messages = this.#turnMessages(threadId);
      return restoreFlow(this.#p, ws, threadId, direction, opts, (id) => messages.get(id) ?? "");
    });
  }

  /** The thread's stored or live record; throws naming the id when there is none. */
  #record(threadId: string) {
    const record = this.#p.registry.get(threadId)?.record ?? this.#p.store.getThread(threadId);
    if (!record) throw new Error(`no thread with id ${threadId}; run \`tandem threads\` to list threads`);
    return record;
  }

  #info(ws: Workspace, cp: CheckpointRow, messages: Map<string, string>): CheckpointInfo {
    return {
      id: cp.id,
      threadId: cp.thread_id,
      turnId: cp.turn_id,
      message: messages.get(cp.turn_id) ?? "",
      createdAt: cp.created_at,
      state: cp.state,
      files: ws.store.changes(cp.id).map((c) => ({
        path: c.path,
        change: changeKind(c),
        restorable: !unrestorable(c.before) && !unrestorable(c.after),
      })),
    };
  }

  /** The first user message of each of the thread's turns (the text that started it). */
  #turnMessages(threadId: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const s of this.#p.store.loadItems(threadId)) {
      if (!s.turn_id || out.has(s.turn_id)) continue;
      if (s.item.type === "message" && s.item.role === "user")
        out.set(s.turn_id, messageText(s.item as MessageItem));
    }
    return out;
  }
}

/** Runs `fn` with the workspace of `cwd` (opened for it when no thread holds it). */
export async function withWorkspaceAsync<T>(
  p: RuntimeParts,
  cwd: string,
  fn: (ws: Workspace) => Promise<T>,
): Promise<T> {
  const ws = p.workspaces.acquire(cwd);
  if (!ws) throw new Error(`the checkpoints of ${cwd} cannot be opened`);
  try {
    return await fn(ws);
  } finally {
    p.workspaces.release(ws);
  }
}

/** `withWorkspaceAsync` for a synchronous `fn`. */
export function withWorkspace<T>(p: RuntimeParts, cwd: string, fn: (ws: Workspace) => T): T {
  const ws = p.workspaces.acquire(cwd);
  if (!ws) throw new Error(`the checkpoints of ${cwd} cannot be opened`);
  try {
    return fn(ws);
  } finally {
    p.workspaces.release(ws);
  }
}
