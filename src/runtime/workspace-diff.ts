/**
 * What a turn changed in its workspace, for the turn diff and the turn's checkpoint.
 *
 * When a turn starts, the thread's `TurnWorkspace` takes the workspace of the turn's cwd (one
 * per directory, shared: checkpoints/index.ts) and syncs it in the background: what changed
 * since the last turn — the user's own edits — moves into the baseline without being counted
 * for this turn. Every tool that can write (commands, MCP tools, apply_patch) waits for that
 * sync before it runs (`ready`). After a command (or an MCP tool), a sync finds what it changed
 * from file-system events, at a cost that follows the change, not the repository; after
 * apply_patch the patched paths are examined directly. Each change is recorded in the turn's
 * checkpoint (its state before the turn first touched the path, and after) and, when both
 * sides are text, fed to the thread's `TurnDiffTracker`, which emits `turn.diff`.
 * Comparisons of one thread run one at a time, in call order, in the background; the turn
 * waits for them (`settled`) before it completes. Events do not see every write (a shared
 * mapping, a hard link in an unwatched directory): so when a turn ran a command or MCP tool,
 * the whole workspace is compared by stat once (`Workspace.verify`) before the turn completes,
 * and what it finds joins the turn diff like any other change.
 *
 * That stat pass costs what the workspace holds (~1 s for 100,000 files), so it starts early:
 * once no writing tool has run for `EARLY_VERIFY_AFTER_MS` (the model is answering), it runs
 * in the background, and stops at the next directory when a writing tool starts. A pass that
 * ran to its end with no tool started since stands for the turn's: `settled` then only syncs.
 * Only when nothing else can write unseen after it: no early pass starts while a process of
 * the thread may still run (an exec session, what a command left behind: `processesAlive`),
 * after an MCP tool ran this turn (its server lives on), or while another thread shares the
 * workspace (its writes would be taken for this turn's). Otherwise `settled` runs the pass.
 */
import type { Workspace, WorkspaceChange, Workspaces } from "../checkpoints/index.js";
import type { Event } from "../protocol/events.js";
import type { FileChange, TurnDiffTracker } from "../tools/patch/index.js";
import type { ToolHooks } from "../tools/registry.js";

/** Tools whose effects on the workspace are found by a sync afterwards (not by their own report). */
const SYNCED_TOOLS = (name: string) =>
  name === "exec_command" || name === "write_stdin" || name.startsWith("mcp__");
const WRITING_TOOLS = (name: string) => SYNCED_TOOLS(name) || name === "apply_patch";
/** Texts over this size are not diffed (binary files never are). */
const MAX_DIFF_BYTES = 1 << 20;
/** Quiet time after a writing tool before the turn's stat pass starts on its own. */
export const EARLY_VERIFY_AFTER_MS = 150;

interface TurnRef {
  threadId: string;
  turnId: string;
  /** Record changes in a checkpoint (false for threads that are never stored). */
  record: boolean;
}

/** Per-thread state: the current turn's workspace and the queue of its comparisons. */
export class TurnWorkspace {
  private ws: Workspace | undefined;
  private cwd: string | undefined;
  private turn: TurnRef | undefined;
  private started: Promise<unknown> = Promise.resolve();
  private queue: Promise<unknown> = Promise.resolve();
  /** A command or MCP tool ran since the last `settled`: the turn's end verifies by stat. */
  private wrote = false;
  /** Writing tools started this turn, and those running now (reset when a turn starts). */
  private writes = 0;
  private running = 0;
  /** `writes` when the last stat pass that ran to its end started (-1: none this turn). */
  private verifiedAt = -1;
  private early: NodeJS.Timeout | undefined;
  /** An MCP tool ran this turn: its server may write whenever, so no early pass stands. */
  private mcpRan = false;
  /** Whether a process the thread started may still run (its exec sessions: thread-registry.ts). */
  processesAlive: () => boolean = () => false;
  /** Where text changes found by `settled`'s stat pass go (set by workspaceDiffHooks). */
  report?: (changes: FileChange[], turnId: string) => void;

  constructor(private readonly pool: () => Workspaces | undefined) {}

  /** Starts a turn in `cwd`: takes its workspace and absorbs what changed since the last turn. */
  start(cwd: string, turn: TurnRef): void {
    if (this.cwd !== cwd) {
      const pool = this.pool();
      if (this.ws) pool?.release(this.ws);
      this.ws = pool?.acquire(cwd);
      this.cwd = cwd;
    }
    this.turn = turn;
    clearTimeout(this.early);
    this.writes = 0;
    this.running = 0;
    this.verifiedAt = -1;
    this.mcpRan = false;
    this.started = this.ws ? this.ws.sync().catch(() => []) : Promise.resolve();
    this.queue = this.started;
  }

  /** Resolves once the turn's workspace is current (writing tools wait for it). Never rejects. */
  ready(): Promise<unknown> {
    return this.started;
  }

  /** A writing tool is about to run: an early stat pass stops, and none starts until it is done. */
  toolStarting(name: string): void {
    if (name.startsWith("mcp__")) this.mcpRan = true;
    this.writes++;
    this.running++;
    clearTimeout(this.early);
  }

  /** A writing tool returned (not called when it threw or was cut off: see `start`). */
  toolFinished(): void {
    this.running = Math.max(0, this.running - 1);
  }

  /** After a command: what it changed, recorded; resolves with the text changes for the diff. */
  compare(): Promise<FileChange[]> {
    this.wrote = true;
    const changes = this.enqueue(async () => (this.ws ? this.take(await this.ws.sync()) : []));
    this.verifySoon();
    return changes;
  }

  /** Starts the turn's stat pass once no writing tool has run for a while (see the header). */
  private verifySoon(): void {
    clearTimeout(this.early);
    const ws = this.ws;
    const turn = this.turn;
    if (!ws || !turn) return;
    const at = this.writes;
    const moved = () => this.writes !== at || this.turn !== turn || this.ws !== ws;
    this.early = setTimeout(() => {
      if (moved() || this.running > 0 || !this.alone(ws)) return;
      void this.enqueue(async () => {
        if (moved()) return [];
        const pass = await ws.verifyUnless(moved);
        const texts = this.take(pass.changes);
        if (pass.complete && !moved()) this.verifiedAt = at;
        if (texts.length) this.report?.(texts, turn.turnId);
        return texts;
      });
    }, EARLY_VERIFY_AFTER_MS);
    this.early.unref();
  }

  /** After apply_patch: its paths' new states go into the baseline and the checkpoint. */
  observePatch(changes: readonly FileChange[]): void {
    const ws = this.ws;
    if (!ws) return;
    const paths = changes.flatMap((c) => [c.absPath, ...(c.absMovePath ? [c.absMovePath] : [])]);
    const rels = [...new Set(paths.map((p) => ws.relPath(p)).filter((p): p is string => p !== undefined))];
    void this.enqueue(async () => {
      this.take(await ws.examine(rels));
      return [];
    });
  }

  /** Resolves once every queued comparison has run (and, after a command, the stat pass). */
  settled(): Promise<void> {
    const ws = this.ws;
    const turn = this.turn;
    clearTimeout(this.early);
    if (this.wrote && ws && turn) {
      this.wrote = false;
      const at = this.writes;
      void this.enqueue(async () => {
        // Queued after any early pass: one that finished with no tool started since suffices.
        const early = this.verifiedAt === at && this.turn === turn && this.alone(ws);
        const changes = this.take(early ? await ws.sync() : await ws.verify());
        if (changes.length) this.report?.(changes, turn.turnId);
        return changes;
      });
    }
    return this.queue.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Whether only this turn can write the workspace unseen after a pass (see the header). */
  private alone(ws: Workspace): boolean {
    return !this.mcpRan && !this.processesAlive() && this.pool()?.users(ws) === 1;
  }

  /** Lets go of the workspace (the thread closes). */
  close(): void {
    clearTimeout(this.early);
    if (this.ws) this.pool()?.release(this.ws);
    this.ws = undefined;
    this.cwd = undefined;
  }

  private enqueue(fn: () => Promise<FileChange[]>): Promise<FileChange[]> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run.catch(() => []);
  }

  /** Records `changes` in the turn's checkpoint; returns those that can be shown as text diffs. */
  private take(changes: WorkspaceChange[]): FileChange[] {
    const ws = this.ws;
    const turn = this.turn;
    if (!ws || changes.length === 0) return [];
    if (turn?.record) {
      const cp = ws.store.checkpoint(turn.threadId, turn.turnId);
      ws.store.batch(() => {
        for (const c of changes) ws.store.recordChange(cp.id, c.path, c.before, c.after);
      });
    }
    const out: FileChange[] = [];
    for (const c of changes) {
      const before = textOf(ws, c.before);
      const after = textOf(ws, c.after);
      if (before === undefined || after === undefined || before === after) continue;
      const absPath = `${ws.root}/${c.path}`;
      out.push({
        kind: before === null ? "add" : after === null ? "delete" : "update",
        path: c.path,
        absPath,
        before,
        after,
      });
    }
    return out;
  }
}

/** The text of a state; null when absent; undefined when it is not shown as text. */
function textOf(ws: Workspace, state: WorkspaceChange["before"]): string | null | undefined {
  if (state === null) return null;
  if (state.kind !== "file") return undefined;
  const data = ws.content(state);
  if (!data || data.length > MAX_DIFF_BYTES || data.includes(0)) return undefined;
  return data.toString("utf8");
}

/** What the hooks use of a thread (thread.ts). */
export interface DiffThread {
  readonly id: string;
  readonly workspace: TurnWorkspace;
  readonly diffs: TurnDiffTracker;
  emit(event: Event): void;
}

/** Hooks that fold tools' changes into the turn diff and checkpoint of the calling thread. */
export function workspaceDiffHooks(threadOf: (id: string) => DiffThread | undefined): ToolHooks {
  return {
    async pre(call, ctx) {
      if (!WRITING_TOOLS(call.name)) return undefined;
      const ws = threadOf(ctx.threadId)?.workspace;
      ws?.toolStarting(call.name);
      await ws?.ready();
      return undefined;
    },
    async post(call, ctx) {
      const t = threadOf(ctx.threadId);
      if (t && WRITING_TOOLS(call.name)) t.workspace.toolFinished();
      if (!t || !SYNCED_TOOLS(call.name)) return undefined;
      const report = (changes: FileChange[], turnId: string) => {
        if (changes.length === 0) return;
        const before = t.diffs.diff();
        t.diffs.track(changes);
        const diff = t.diffs.diff();
        if (diff !== before) t.emit({ type: "turn.diff", thread_id: t.id, turn_id: turnId, diff });
      };
      t.workspace.report = report;
      void t.workspace.compare().then((changes) => report(changes, ctx.turnId));
      return undefined;
    },
  };
}
