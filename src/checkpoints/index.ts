/**
 * Checkpoints and the workspace watch: `Workspaces` hands out one `Workspace` per directory
 * (shared by every thread of the process that works there, closed with its last user).
 *
 * Each workspace's checkpoint store is `$TANDEM_HOME/checkpoints/<hash of its real path>.db`
 * (in memory when the runtime has no home). See workspace.ts for what is tracked and how, and
 * store.ts for what a checkpoint holds.
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { Workspace, type WorkspaceLimits } from "./workspace.js";

export type { CheckpointRow, FileState } from "./store.js";
export { WORKSPACE_LIMITS, Workspace, type WorkspaceChange, type WorkspaceLimits } from "./workspace.js";

export interface WorkspacesOptions {
  /** Tandem's home; undefined keeps checkpoints in memory. */
  home?: string;
  /** Never scanned: Tandem's home, the store. */
  protectedPaths: readonly string[];
  limits?: Partial<WorkspaceLimits>;
  /** Content never stored in a checkpoint (a known secret value). */
  withhold?: (data: Buffer) => boolean;
}

export class Workspaces {
  private readonly open = new Map<string, { ws: Workspace; users: number }>();

  constructor(private readonly opts: WorkspacesOptions) {}

  /** The store file of a workspace rooted at `root` (a real path). */
  storeFile(root: string): string {
    if (!this.opts.home) return ":memory:";
    const key = createHash("sha256").update(root).digest("hex").slice(0, 24);
    return join(this.opts.home, "checkpoints", `${key}.db`);
  }

  /** The workspace of `cwd`, opened on first use; undefined when its store cannot be opened. */
  acquire(cwd: string): Workspace | undefined {
    const root = real(cwd);
    const known = this.open.get(root);
    if (known) {
      known.users++;
      return known.ws;
    }
    try {
      const ws = Workspace.open(root, {
        storeFile: this.storeFile(root),
        protectedPaths: this.opts.protectedPaths,
        ownRoots: this.opts.home ? [this.opts.home] : [],
        limits: this.opts.limits,
        withhold: this.opts.withhold,
        sentinelParent: this.opts.home ? join(this.opts.home, "run") : undefined,
      });
      this.open.set(root, { ws, users: 1 });
      return ws;
    } catch {
      return undefined;
    }
  }

  /** How many holders `ws` has (0 once released by all, or not this pool's). */
  users(ws: Workspace): number {
    const known = this.open.get(ws.root);
    return known?.ws === ws ? known.users : 0;
  }

  release(ws: Workspace): void {
    const known = this.open.get(ws.root);
    if (!known || known.ws !== ws) return;
    if (--known.users > 0) return;
    this.open.delete(ws.root);
    ws.close();
  }

  closeAll(): void {
    for (const { ws } of this.open.values()) ws.close();
    this.open.clear();
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
