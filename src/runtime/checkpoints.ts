/**
 * `runtime.checkpoints`: a thread's checkpoints as surfaces see them (README "Undo, redo, fork
 * and rewind"). Each checkpoint is the workspace just before one turn that changed files
 * (checkpoints/store.ts); it lives in the workspace's store under `$TANDEM_HOME/checkpoints/`,
 * so it survives restarts, and goes when pruned (`[checkpoints]` max_age_days / max_bytes).
 *
 * Contract: `list` reads only (it opens the workspace's store, never writes a file of the
 * workspace); it throws for an unknown thread. A turn that changed no file has no checkpoint.
 */
import type { Workspace } from "../checkpoints/index.js";
import type { ChangeRow, CheckpointRow } from "../checkpoints/store.js";
import { type MessageItem, messageText } from "../protocol/items.js";
import type { Runtime } from "./core.js";

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

export class Checkpoints {
  constructor(private readonly rt: Runtime) {}

  /** The thread's checkpoints, oldest first. Throws for an unknown thread. */
  list(threadId: string): CheckpointInfo[] {
    const record = this.record(threadId);
    return this.withWorkspace(record.cwd, (ws) => {
      const messages = this.turnMessages(threadId);
      return ws.store.checkpoints(threadId).map((cp) => this.info(ws, cp, messages));
    });
  }

  /** The thread's stored or live record; throws naming the id when there is none. */
  record(threadId: string) {
    const record = this.rt.thread(threadId)?.record ?? this.rt.store.getThread(threadId);
    if (!record) throw new Error(`no thread with id ${threadId}; run \`tandem threads\` to list threads`);
    return record;
  }

  /** Runs `fn` with the workspace of `cwd` (opened for it when no thread holds it). */
  async withWorkspaceAsync<T>(cwd: string, fn: (ws: Workspace) => Promise<T>): Promise<T> {
    const ws = this.rt.workspaces.acquire(cwd);
    if (!ws) throw new Error(`the checkpoints of ${cwd} cannot be opened`);
    try {
      return await fn(ws);
    } finally {
      this.rt.workspaces.release(ws);
    }
  }

  withWorkspace<T>(cwd: string, fn: (ws: Workspace) => T): T {
    const ws = this.rt.workspaces.acquire(cwd);
    if (!ws) throw new Error(`the checkpoints of ${cwd} cannot be opened`);
    try {
      return fn(ws);
    } finally {
      this.rt.workspaces.release(ws);
    }
  }

  info(ws: Workspace, cp: CheckpointRow, messages: Map<string, string>): CheckpointInfo {
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
  turnMessages(threadId: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const s of this.rt.store.loadItems(threadId)) {
      if (!s.turn_id || out.has(s.turn_id)) continue;
      if (s.item.type === "message" && s.item.role === "user")
        out.set(s.turn_id, messageText(s.item as MessageItem));
    }
    return out;
  }
}
