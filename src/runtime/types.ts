/**
 * Types of the runtime's public API (core.ts and its parts): how a thread is started and opened,
 * what a surface sees of a loaded thread (`ThreadHandle`) and of its running turn (`TurnHandle`).
 * Nothing here imports the runtime's modules, so every part of it can name these types.
 */
import type { PendingInput, TurnOutcome } from "../agent/turn.js";
import type { McpServerConfig } from "../config/schema.js";
import type { CollaborationMode, ThreadStatus, Usage } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";
import type { TurnOptions } from "../protocol/ops.js";
import type { QuestionPolicy } from "../protocol/questions.js";
import type { ApprovalPolicy, SandboxMode, ThreadRecord, ThreadSettings } from "../protocol/threads.js";

export type { TurnOutcome } from "../agent/turn.js";

export interface StartThreadOptions {
  cwd: string;
  model?: string;
  mode?: CollaborationMode;
  effort?: string;
  questionPolicy?: QuestionPolicy;
  /** Offer request_user_input to the model in this thread (headless runs opt in). */
  offerQuestions?: boolean;
  /**
   * How a headless run answers questions (`exec --questions`), stored with the thread so a
   * resume keeps it; set, it also offers request_user_input in Default mode.
   */
  headlessQuestions?: "defer" | "stdin";
  /** Never stored, never listed (a client's helper thread, e.g. the Codex TUI's title writer). */
  ephemeral?: boolean;
  /**
   * Stored at once, not with its first turn: for a client that hands the id out and may load
   * the thread later from another process (ACP's session/new, then session/load).
   */
  storeNow?: boolean;
  /** Tools this thread never offers nor runs (names as the model sees them). */
  disabledTools?: string[];
  outputSchema?: Record<string, unknown>;
  sessionId?: string;
  parentId?: string;
  /** Extra writable roots for the workspace-write sandbox (`--add-dir`). */
  writableRoots?: string[];
  /**
   * MCP servers for this thread only, over the configured ones (same name: these win); never
   * stored — a client that brings its own servers (ACP's session/new, session/load) names them again.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /** More settings stored with the thread (a sub-agent's `agent`, sandbox, `allowed_tools`…). */
  extraSettings?: ThreadSettings;
}

/** What opening a stored thread may change for it, and whether a working turn goes on. */
export type OpenThreadOptions = Partial<
  Pick<
    StartThreadOptions,
    "offerQuestions" | "headlessQuestions" | "questionPolicy" | "mode" | "model" | "effort" | "mcpServers"
  > & {
    /**
     * A thread whose turn was mid-request when its process stopped (status running, nothing
     * pending) goes on with that turn from its history: a cluster node taking a dead node's over.
     */
    continueWorking: boolean;
  }
>;

/** A thread's running turn, as the runtime keeps it. */
export interface ActiveTurn {
  id: string;
  ctrl: AbortController;
  mode: CollaborationMode;
  options: TurnOptions;
  pending: PendingInput[];
  done: Promise<TurnOutcome>;
}

/** What a surface sees of a running turn: its id, mode and options, and its end. */
export interface TurnHandle {
  readonly id: string;
  readonly mode: CollaborationMode;
  readonly options: Readonly<TurnOptions>;
  /** Resolves with the turn's outcome when it ends (never rejects: failures are outcomes). */
  readonly done: Promise<TurnOutcome>;
}

/** The sandbox in force for a thread's commands: turn ← thread ← config (requirements A1). */
export interface SandboxInForce {
  mode: SandboxMode;
  writableRoots: string[];
  network: boolean;
  protectedPaths: string[];
  hiddenPaths: string[];
}

/**
 * A thread loaded in this process, as surfaces see it (runtime.threads.start/open/get). Reads are
 * live; its record is read-only here: settings change through `runtime.threads.updateSettings`.
 * Turn methods are the same doors as `runtime.turns.*`, for a surface that holds the thread.
 */
export interface ThreadHandle {
  readonly id: string;
  /** The live record (model, mode, cwd, title, settings…); changed only through the runtime. */
  readonly record: Readonly<ThreadRecord>;
  readonly status: ThreadStatus;
  /** The running turn, if any. */
  readonly active: TurnHandle | undefined;
  /** Token totals of the whole thread, across processes. */
  readonly totalUsage: Usage;
  /** How the last turn run in this process ended. */
  readonly lastOutcome: TurnOutcome | undefined;
  /** Whether the thread is in the store yet (a thread is stored by its first turn). */
  readonly stored: boolean;
  /** A client's helper thread: never stored, never listed. */
  readonly ephemeral: boolean;
  /** The history as the model sees it (context items included), oldest first. */
  items(): readonly ResponseItem[];
  /** Runs the user's own shell command as a turn of its own (runtime.turns.shell). */
  shell(command: string, opts?: { timeoutMs?: number | null }): TurnHandle;
  /**
   * Starts a turn with user input; throws TurnBusyError while another turn runs.
   * `text` may invoke a custom command (`/name args`, expanded first) and name skills as `$name`;
   * `skills` names more (a client's skill input). See runtime/skill-use.ts. `display` is what
   * surfaces show instead of the text (a prompt of Tandem's own: no command expansion).
   */
  startTurn(
    text: string,
    opts?: {
      images?: string[];
      options?: TurnOptions;
      skills?: string[];
      mentions?: boolean;
      display?: string;
    },
  ): TurnHandle;
  /** Queues input for the running turn; throws TurnBusyError when none runs. */
  steer(text: string): { inputId: string; turnId: string };
  /** Aborts the running turn (false when none runs). */
  interrupt(reason?: string): boolean;
  /** On-demand compaction: an idle thread compacts as its own turn; a running turn before its next request. */
  compact(): TurnHandle;
  /** Interrupts, cancels the thread's questions, stops its tools and gives its lease back. */
  close(): Promise<void>;
  /** The current (or last) turn's net diff, secret values masked. */
  turnDiff(): string;
  sandbox(turn?: TurnHandle): SandboxInForce;
  approvalPolicy(): ApprovalPolicy;
  questionPolicy(turn?: TurnHandle): QuestionPolicy;
}
