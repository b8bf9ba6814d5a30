/**
 * The view model the TUI renders: what `ViewStore.getSnapshot()` returns. Plain data, immutable
 * once published.
 */
import type { CollaborationMode, ThreadStatus, Usage } from "../../protocol/events.js";
import type { Cell } from "./cells.js";
import type { FenceState } from "./markdown.js";
import type { Pending } from "./queue.js";

export interface ThreadInfo {
  id: string;
  model: string;
  mode: CollaborationMode;
  cwd: string;
}

export interface Status extends ThreadInfo {
  state: ThreadStatus;
  usage: Usage | null;
  turnStartedAt: number | null;
  retrying: string | null;
  demo: boolean;
  /** Progress of the model's current plan (`plan.updated`), if it made one. */
  plan: { done: number; total: number } | null;
}

export interface LiveMessage {
  id: string;
  /** Text received but not yet committed (the incomplete last line, between frames more). */
  text: string;
  committedChars: number;
  fence: FenceState;
  started: boolean;
}

export interface LiveExec {
  id: string;
  command: string;
  output: string;
}

export interface Snapshot {
  version: number;
  committed: Cell[];
  messages: LiveMessage[];
  reasoning: Array<{ id: string; text: string }>;
  execs: LiveExec[];
  tools: Array<{ id: string; tool: string }>;
  queued: Array<{ id: string; text: string }>;
  /** Pending interactions in the order they are shown (approvals first, then FIFO). */
  pending: Pending[];
  settled: { requestId: string; text: string } | null;
  status: Status;
}
