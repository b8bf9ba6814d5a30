/**
 * One workspace as Tandem tracks it: its baseline in a checkpoint store of its own, kept current
 * by file-system events, so that finding what a command changed — for the turn diff and for
 * checkpoints — costs what the command changed, however large the repository.
 *
 * - `open()` starts a scan in the background: every non-ignored file (ignore-rules.ts) is
 *   compared with the stored baseline by stat and, when it may differ, read and stored; every
 *   non-ignored directory is watched (watcher.ts). The first scan of a workspace reads every
 *   file once; later ones (a new process) only stat.
 * - `sync()` waits for the scan, flushes the watcher and examines only the paths it marked;
 *   it returns what changed since the last sync (or scan) and moves the baseline forward. When
 *   the watcher is not trusted (inotify limit, an error) it rescans instead: same result, cost
 *   grows with the workspace.
 * - `examine(paths)` does the same for paths the caller knows it changed (apply_patch).
 * - `verify()` compares the whole workspace by stat: writes that raise no event in the file's
 *   directory (mmap, a hard link in an unwatched directory) are found there.
 *
 * Nothing here runs a program: ignore rules are evaluated in-process, files are read with
 * `host/files.ts` (regular files only, symlinks never followed, FIFOs never opened blocking),
 * symlinks are stored as links. Entries are reached through their directory opened with
 * `openDirExact`, so a directory on the way that is (or becomes, mid-scan) a symlink is never
 * followed out of the root. Tandem's own state (its home, the store) is never scanned.
 *
 * Contract: methods never throw for the workspace's contents (unreadable entries are skipped);
 * a store that cannot be opened makes `open` throw, and the caller goes without.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { openDirExact, readRegular } from "../host/files.js";
import { IgnoreRules } from "./ignore-rules.js";
import { CheckpointStore, type FileRow, type FileState, type StatTuple } from "./store.js";
import { TreeWatcher } from "./watcher.js";

export interface WorkspaceLimits {
  /** Files larger than this are tracked by stat only (`big`): not diffed, not restorable. */
  maxFileBytes: number;
  /** Directories watched at most; past it the workspace is rescanned on each sync. */
  maxDirs: number;
  /** Files tracked at most; past it the workspace is not tracked at all. */
  maxFiles: number;
  /**
   * Contents kept only by checkpoints (earlier states; the baseline not counted), compressed,
   * at most; past it the oldest checkpoints go. Checked once a quarter of it was stored anew.
   */
  maxCheckpointBytes: number;
  /** Checkpoints older than this (ms) are dropped when the workspace opens and when it prunes. */
  maxCheckpointAgeMs: number;
}

export const WORKSPACE_LIMITS: WorkspaceLimits = {
  maxFileBytes: 8 << 20,
  maxDirs: 50_000,
  maxFiles: 500_000,
  maxCheckpointBytes: 1 << 30,
  maxCheckpointAgeMs: 30 * 86_400_000,
};

export interface WorkspaceOptions {
  /** The checkpoint store's file (`:memory:` for none that survives the process). */
  storeFile: string;
  /** Paths never scanned (Tandem's home, the store), absolute. */
  protectedPaths?: readonly string[];
  /** Tandem's home: a workspace at or inside it is not tracked at all. */
  ownRoots?: readonly string[];
  limits?: Partial<WorkspaceLimits>;
  /** Parent of the watcher's private sentinel directory. */
  sentinelParent?: string;
  /** Global excludes file override (tests); null for none. */
  globalExcludes?: string | null;
  /**
   * Data that must not be stored (it holds a secret value): a file's content or a link's
   * target is tracked as `withheld`; a path whose name holds it is not tracked at all.
   */
  withhold?: (data: Buffer) => boolean;
}

/** One path's move from `before` to `after` (null: absent). */
export interface WorkspaceChange {
  path: string;
  before: FileState | null;
  after: FileState | null;
}

const YIELD_EVERY = 512;
/** Longest stretch of work between two yields to the event loop (a costly .gitignore). */
const YIELD_AFTER_MS = 20;
const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * `await pace()` after each unit of work: yields to the event loop every YIELD_EVERY units or
 * YIELD_AFTER_MS, so a large or costly comparison never holds up signals, other threads or
 * servers of the process.
 */
function pacer(): { (): Promise<void> | undefined; due(): boolean } {
  let n = 0;
  let since = performance.now();
  const due = () => n >= YIELD_EVERY || performance.now() - since >= YIELD_AFTER_MS;
  const pace = () => {
    n++;
    if (!due()) return undefined;
    n = 0;
    return tick().then(() => {
      since = performance.now();
    });
  };
  return Object.assign(pace, { due });
}

export class Workspace {
  readonly root: string;
  readonly store: CheckpointStore;
  private readonly limits: WorkspaceLimits;
  private rules: IgnoreRules;
  private readonly watcher: TreeWatcher;
  private readonly excluded: string[];
  private readonly scanned: Promise<void>;
  /** False when the workspace is over `maxFiles`: nothing is tracked. */
  private tracking = true;
  private rulesChanged = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    root: string,
    private readonly opts: WorkspaceOptions,
  ) {
    this.root = root;
    this.limits = { ...WORKSPACE_LIMITS, ...opts.limits };
    this.store = new CheckpointStore(opts.storeFile);
    this.rules = new IgnoreRules(root, { globalExcludes: opts.globalExcludes });
    this.watcher = new TreeWatcher(root, {
      maxDirs: this.limits.maxDirs,
      sentinelParent: opts.sentinelParent,
    });
    this.excluded = (opts.protectedPaths ?? [])
      .map((p) => relative(root, real(p)))
      .filter((r) => r !== "" && !r.startsWith("..") && !r.startsWith(sep))
      .map((r) => r.split(sep).join("/"));
    // A workspace that is Tandem's own state (its home, or inside it) is not tracked at all: its
    // databases change with every event, and checkpointing them would store each write again.
    this.tracking = !(opts.ownRoots ?? []).some((p) => {
      const r = relative(real(p), root);
      return r === "" || (!r.startsWith("..") && !r.startsWith(sep));
    });
    this.scanned = this.serial(async () => {
      this.pruneNow(true);
      if (!this.tracking) return;
      await this.scan("", false);
      this.store.setMeta("root", root);
    });
  }

  static open(root: string, opts: WorkspaceOptions): Workspace {
    return new Workspace(real(root), opts);
  }

  /** Resolves once the first scan is done. Never rejects. */
  ready(): Promise<void> {
    return this.scanned.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Whether changes are tracked (false past `maxFiles`, or once closed). */
  get tracked(): boolean {
    return this.tracking && !this.closed;
  }

  /** What changed since the last sync; the baseline moves forward. Runs after earlier calls. */
  sync(): Promise<WorkspaceChange[]> {
    return this.serial(async () => {
      if (!this.tracked) return [];
      if (!this.watcher.trusted || this.rulesChanged) {
        this.rulesChanged = false;
        this.rules = new IgnoreRules(this.root, { globalExcludes: this.opts.globalExcludes });
        return this.scan("", true);
      }
      await this.watcher.flush();
      const out: WorkspaceChange[] = [];
      const pace = pacer();
      for (const rel of this.watcher.takeDirty().sort()) {
        if (this.closed) return out;
        await this.examinePath(rel, out);
        await pace();
      }
      if (!this.watcher.trusted) return [...out, ...(await this.scan("", true))];
      return out;
    });
  }

  /**
   * A stat pass over the whole workspace, whatever the watcher says: what changed since the
   * last sync, the baseline moved forward. It finds writes that raise no file-system event in
   * the file's own directory — through a shared mapping (mmap), or through a hard link in a
   * directory nobody watches (node_modules/) — at a cost that grows with the workspace (stat
   * only: files whose size and times did not move are not read).
   */
  verify(): Promise<WorkspaceChange[]> {
    return this.verifyUnless(() => false).then((r) => r.changes);
  }

  /**
   * `verify`, stopping at the next directory once `stop()` is true: what it found so far is
   * returned (and moved into the baseline); `complete` is false when it stopped (or `stop()`
   * turned true by the end).
   */
  verifyUnless(stop: () => boolean): Promise<{ changes: WorkspaceChange[]; complete: boolean }> {
    return this.serial(async () => {
      const changes = this.tracked ? await this.scan("", true, stop) : [];
      return { changes, complete: !stop() && !this.closed };
    });
  }

  /** Examines `paths` now (files the caller changed) and moves their baseline forward. */
  examine(paths: readonly string[]): Promise<WorkspaceChange[]> {
    return this.serial(async () => {
      const out: WorkspaceChange[] = [];
      if (!this.tracked) return out;
      const pace = pacer();
      for (const rel of paths) {
        if (this.closed) return out;
        await this.examinePath(rel, out);
        await pace();
      }
      return out;
    });
  }

  /** The content of a stored state (null for absent, `big` or a missing blob). */
  content(state: FileState | null): Buffer | null {
    if (!state?.hash) return null;
    return this.store.getBlob(state.hash) ?? null;
  }

  /** Largest content stored; larger files are `big`. */
  get maxFileBytes(): number {
    return this.limits.maxFileBytes;
  }

  /** Whether `data` holds a secret value Tandem knows (such content is never stored). */
  holdsSecret(data: Buffer): boolean {
    return this.opts.withhold?.(data) === true;
  }

  /** Whether `rel` is Tandem's own state or named by a secret (never tracked, never written). */
  isOwnPath(rel: string): boolean {
    return this.skip(rel);
  }

  /**
   * Runs `write` (a restore: checkpoints/restore.ts) between comparisons, then moves the
   * baseline of the paths it returns to what is on disk without reporting them: what the
   * restore wrote is nobody's turn's change. Rejects with what `write` throws.
   */
  writeAndAbsorb(write: () => string[]): Promise<void> {
    return this.serial(async () => {
      const paths = write();
      if (!this.tracked) return;
      for (const rel of paths) await this.examinePath(rel, []);
    });
  }

  /** A workspace-relative path for an absolute one inside the root, else undefined. */
  relPath(abs: string): string | undefined {
    const r = relative(this.root, abs);
    if (r === "" || r.startsWith("..") || r.startsWith(sep)) return undefined;
    return r.split(sep).join("/");
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher.close();
    // Let a running scan or sync finish with the store open, then close it.
    void this.queue.finally(() => this.store.close());
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn).finally(() => this.bound());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Keeps the store within `maxCheckpointBytes` (store.ts `prune`); cost amortised over writes. */
  private bound(): void {
    if (this.closed || this.store.addedBytes < this.limits.maxCheckpointBytes / 4) return;
    this.pruneNow();
  }

  /**
   * Drops checkpoints past `maxCheckpointAgeMs`, then the oldest past `maxCheckpointBytes`;
   * `atOpen`: the blob sweep only when due (store.ts `prune`), since it reads the whole baseline.
   */
  private pruneNow(atOpen = false): void {
    try {
      this.store.prune({
        olderThan: Date.now() - this.limits.maxCheckpointAgeMs,
        maxBytes: this.limits.maxCheckpointBytes,
        ifDue: atOpen,
      });
    } catch {
      // a busy store: the next write tries again
    }
  }

  /** Never tracked: Tandem's own state, and a path whose name holds a secret value. */
  private skip(rel: string): boolean {
    if (this.excluded.some((e) => rel === e || rel.startsWith(`${e}/`))) return true;
    return this.opts.withhold?.(Buffer.from(rel)) === true;
  }

  /**
   * Walks `dir` and below: watches each directory, compares each entry with the baseline
   * (changes go to the result when `report`), and drops baseline rows that are gone — in the
   * directories walked and in directories below `dir` that were not reached (removed, ignored).
   */
  private async scan(dir: string, report: boolean, stop = () => false): Promise<WorkspaceChange[]> {
    const out: WorkspaceChange[] = [];
    const sink = report ? out : undefined;
    const stack = [dir];
    const visited = new Set<string>();
    let files = this.tracking ? this.store.countFiles() : 0;
    const pace = pacer();
    let stopped = false;
    while (stack.length && !this.closed) {
      // Only between directories: one cut off mid-way would count its unread entries as gone.
      if (stop()) {
        stopped = true;
        break;
      }
      const rel = stack.pop() as string;
      visited.add(rel);
      this.watcher.watchDir(rel);
      // Not really at root/rel (a link on the way): what it holds is not the workspace's.
      const dirHandle = openDirExact(rel ? join(this.root, rel) : this.root);
      let names: string[] = [];
      try {
        if (dirHandle) names = readdirSync(dirHandle.path);
      } catch {
        // unreadable: like a directory that went away
      }
      const via = dirHandle?.path;
      const known = new Map(this.store.statsIn(rel).map((r) => [r[0], r]));
      try {
        // In slices, each its own transaction, with a yield between (see `pacer`).
        for (let at = 0; via && at < names.length && !this.closed; ) {
          this.store.batch(() => {
            for (const start = at; at < names.length && at - start < YIELD_EVERY; ) {
              const name = names[at++];
              const path = rel ? `${rel}/${name}` : name;
              if (this.skip(path)) continue;
              const st = lstat(join(via, name));
              if (!st) continue;
              if (st.isDirectory()) {
                if (!this.rules.entryIgnored(rel, name, true)) stack.push(path);
              } else if ((st.isFile() || st.isSymbolicLink()) && !this.rules.entryIgnored(rel, name, false)) {
                const seen = known.get(path);
                known.delete(path);
                if (!seen && ++files > this.limits.maxFiles) this.tracking = false;
                // The common case, unchanged by stat, reads nothing more of the store.
                if (!seen || !sameStatTuple(seen, st))
                  this.compare(path, st, seen && this.store.file(path), sink, join(via, name));
              }
              if (pace.due()) break;
            }
          });
          if (!this.tracking) break;
          await pace();
        }
      } finally {
        dirHandle?.close();
      }
      if (!this.tracking) {
        this.watcher.close();
        return [];
      }
      if (this.closed) return out;
      this.store.batch(() => {
        for (const gone of known.keys()) this.remove(gone, sink);
      });
    }
    // Directories not reached are gone only when the walk went everywhere it could.
    if (stopped || this.closed) return out;
    this.store.batch(() => {
      for (const d of this.store.dirsUnder(dir)) {
        if (visited.has(d)) continue;
        for (const r of this.store.filesIn(d)) this.remove(r.path, sink);
      }
    });
    return out;
  }

  /** One dirty path from the watcher (a file, a directory, or something that went away). */
  private async examinePath(rel: string, out: WorkspaceChange[]): Promise<void> {
    if (this.skip(rel) || rel.split("/").includes(".git")) return;
    if (rel === ".gitignore" || rel.endsWith("/.gitignore")) this.rulesChanged = true;
    // Through its directory as it really is: a directory swapped for a link is not followed.
    const parent = rel === "" ? undefined : openDirExact(join(this.root, dirname(rel)));
    const via = parent ? join(parent.path, rel.slice(rel.lastIndexOf("/") + 1)) : rel === "" ? this.root : "";
    try {
      await this.examineAt(rel, via ? lstat(via) : undefined, via, out);
    } finally {
      parent?.close();
    }
  }

  private async examineAt(
    rel: string,
    st: Stats | undefined,
    via: string,
    out: WorkspaceChange[],
  ): Promise<void> {
    const row = this.store.file(rel);
    if (st?.isDirectory()) {
      if (row) this.remove(rel, out); // a file replaced by a directory
      if (this.rules.ignored(rel, true)) return;
      out.push(...(await this.scan(rel, true)));
      return;
    }
    if (!st || !(st.isFile() || st.isSymbolicLink()) || this.rules.ignored(rel, false)) {
      this.watcher.unwatchTree(rel);
      this.store.batch(() => {
        for (const p of this.store.pathsUnder(rel)) this.remove(p, out);
      });
      return;
    }
    // An event named it: read it even if its stat looks the same (a write within the file
    // system's timestamp granularity of the last read leaves size and times as they were).
    this.store.batch(() => this.compare(rel, st, row, out, via, true));
  }

  /** Moves the baseline of `path` to what is on disk (`st`), reporting a real change. */
  private compare(
    path: string,
    st: Stats,
    row: FileRow | undefined,
    out: WorkspaceChange[] | undefined,
    via: string,
    force = false,
  ): void {
    if (row && !force && sameStat(row, st)) return;
    const state = this.read(st, via);
    if (!state) return;
    this.store.putFile({ path, ...state, size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino });
    const before = row ? { kind: row.kind, hash: row.hash, mode: row.mode } : null;
    if (before && before.kind === state.kind && before.hash === state.hash && before.mode === state.mode)
      return;
    out?.push({ path, before, after: state });
  }

  private remove(path: string, out: WorkspaceChange[] | undefined): void {
    const row = this.store.file(path);
    if (!row) return;
    this.store.deleteFile(path);
    out?.push({ path, before: { kind: row.kind, hash: row.hash, mode: row.mode }, after: null });
  }

  /** The state of the entry `via` names (storing its content), or undefined when unreadable. */
  private read(st: Stats, via: string): FileState | undefined {
    const abs = via;
    const mode = st.mode & 0o7777;
    if (st.isSymbolicLink()) {
      try {
        const target = Buffer.from(readlinkSync(abs));
        if (this.opts.withhold?.(target)) return { kind: "withheld", hash: null, mode };
        return { kind: "link", hash: this.store.putBlob(target), mode };
      } catch {
        return undefined;
      }
    }
    if (st.size > this.limits.maxFileBytes) return { kind: "big", hash: null, mode };
    const r = readRegular(abs, { maxBytes: this.limits.maxFileBytes, noFollow: true });
    if (!r.ok) return r.reason === "too_large" ? { kind: "big", hash: null, mode } : undefined;
    if (this.opts.withhold?.(r.data)) return { kind: "withheld", hash: null, mode };
    return { kind: "file", hash: this.store.putBlob(r.data), mode };
  }
}

const sameStatTuple = ([, size, mtime, ctime, ino]: StatTuple, st: Stats) =>
  size === st.size && mtime === st.mtimeMs && ctime === st.ctimeMs && ino === st.ino;

const sameStat = (row: FileRow, st: Stats) =>
  row.size === st.size && row.mtime === st.mtimeMs && row.ctime === st.ctimeMs && row.ino === st.ino;

function lstat(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
