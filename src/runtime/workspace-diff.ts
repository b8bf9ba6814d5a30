/**
 * The turn diff covers files changed by shell commands (Codex's turn diff does the same): the
 * thread takes a `WorkspaceWatch` of the turn's cwd when the turn starts; every
 * `exec_command`/`write_stdin` call waits for it before running and, after it, queues a
 * comparison that feeds what changed into the thread's `TurnDiffTracker` and emits `turn.diff`
 * when the diff moved. The comparison runs in the background (the call's output goes back to
 * the model at once); the turn waits for the queue (`settled()`) before it completes.
 * apply_patch's own writes are handed to the watch (`observePatch`) so they count once.
 * Comparisons of one thread run one at a time, in call order. A workspace over the watch's
 * limits (see tools/patch/workspace.ts) keeps the apply_patch-only turn diff.
 */
import type { FileChange } from "../tools/patch/index.js";
import { WorkspaceWatch } from "../tools/patch/workspace.js";
import type { ToolHooks } from "../tools/registry.js";
import type { Thread } from "./thread.js";

const SHELL_TOOLS = new Set(["exec_command", "write_stdin"]);

/** Per-thread state: the current turn's watch and the queue of its comparisons. */
export class TurnWorkspace {
  private watch: Promise<WorkspaceWatch | undefined> = Promise.resolve(undefined);
  private queue: Promise<unknown> = Promise.resolve();

  /** Starts a new turn's watch of `cwd`. */
  start(cwd: string): void {
    this.watch = WorkspaceWatch.take(cwd);
    this.queue = this.watch;
  }

  ready(): Promise<unknown> {
    return this.watch;
  }

  /** Runs after every earlier comparison; resolves with the changes since the last look. */
  compare(): Promise<FileChange[]> {
    const run = this.queue.then(async () => (await this.watch)?.changes() ?? []);
    this.queue = run.catch(() => undefined);
    return run.catch(() => []);
  }

  /** Resolves once every queued comparison has run. */
  settled(): Promise<void> {
    return this.queue.then(
      () => undefined,
      () => undefined,
    );
  }

  observePatch(changes: readonly FileChange[]): void {
    const run = this.queue.then(async () => (await this.watch)?.observe(changes));
    this.queue = run.catch(() => undefined);
  }
}

/** Hooks that fold shell-made changes into the turn diff of the calling thread. */
export function workspaceDiffHooks(threadOf: (id: string) => Thread | undefined): ToolHooks {
  return {
    async pre(call, ctx) {
      if (SHELL_TOOLS.has(call.name)) await threadOf(ctx.threadId)?.workspace.ready();
      return undefined;
    },
    async post(call, ctx) {
      const t = threadOf(ctx.threadId);
      if (!t || !SHELL_TOOLS.has(call.name)) return undefined;
      void t.workspace.compare().then((changes) => {
        if (changes.length === 0) return;
        const before = t.diffs.diff();
        t.diffs.track(changes);
        const diff = t.diffs.diff();
        if (diff !== before) t.emit({ type: "turn.diff", thread_id: t.id, turn_id: ctx.turnId, diff });
      });
      return undefined;
    },
  };
}
