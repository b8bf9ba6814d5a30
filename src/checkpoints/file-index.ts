/**
 * The workspace's file list for `@` mentions and app-server `fuzzyFileSearch` (README "Mention
 * files: `@`"): built once per workspace by a bounded walk that leaves out what the `.gitignore`
 * rules leave out (ignore-rules.ts; no git runs), then kept current by file-system events
 * (watcher.ts). Queries are fuzzy (fuzzysort) over the relative paths, best first.
 *
 * Contract: never throws for what the disk holds (unreadable directories are skipped). At most
 * `maxEntries` files are listed (`truncated` says so). Hidden files (a path segment starting
 * with ".") are matched only when asked (`hidden`, or a query that starts with "." or holds
 * "/."). When events cannot be trusted (too many directories, the inotify limit) the list is
 * rebuilt in the background on a search at most every `rescanMs`, answering from the old list.
 * Symbolic links are listed, never followed. Directories count against `maxEntries` too (a tree
 * of empty directories is bounded like one of files). Paths in `exclude` (absolute) are left out.
 */
import { type Dirent, realpathSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import fuzzysort from "fuzzysort";
import { IgnoreRules } from "./ignore-rules.js";
import { TreeWatcher } from "./watcher.js";

export interface FileMatch {
  /** Relative to the root, `/`-separated. */
  path: string;
  /** fuzzysort's score scaled to 0..1000 (1000: exact). */
  score: number;
  /** Positions in `path` (code units) that matched the query. */
  indices: number[];
}

export interface FileIndexOptions {
  maxEntries?: number;
  maxDirs?: number;
  rescanMs?: number;
  /** Absolute paths never listed nor walked (Tandem's home and store). */
  exclude?: readonly string[];
  /** Ignore rules (tests pass `globalExcludes: null`). */
  globalExcludes?: string | null;
}

const isHidden = (rel: string) => rel.startsWith(".") || rel.includes("/.");
const wantsHidden = (query: string) => query.startsWith(".") || query.includes("/.");

export class FileIndex {
  private files = new Set<string>();
  private prepared: { all: Fuzzysort.Prepared[]; visible: Fuzzysort.Prepared[] } | null = null;
  private readonly cache = new Map<string, Fuzzysort.Prepared>();
  private watcher: TreeWatcher | undefined;
  private rules: IgnoreRules;
  private building: Promise<void>;
  private lastBuild = 0;
  private closed = false;
  private dirs = 0;
  private readonly excluded: Set<string>;
  private readonly realRoot: string;
  truncated = false;

  constructor(
    readonly root: string,
    private readonly opts: FileIndexOptions = {},
  ) {
    this.excluded = new Set(opts.exclude ?? []);
    let real = root;
    try {
      real = realpathSync(root);
    } catch {
      /* a missing root lists nothing */
    }
    this.realRoot = real;
    this.rules = this.newRules();
    this.building = this.rebuild();
  }

  /** Resolves once the first walk is done. */
  ready(): Promise<void> {
    return this.building;
  }

  get size(): number {
    return this.files.size;
  }

  /** The best `limit` matches of `query` (an empty query: the first files, shortest first). */
  async search(query: string, opts: { limit?: number; hidden?: boolean } = {}): Promise<FileMatch[]> {
    await this.building;
    await this.catchUp();
    const limit = opts.limit ?? 20;
    const p = this.targets();
    const targets = opts.hidden || wantsHidden(query) ? p.all : p.visible;
    if (query.trim() === "")
      return targets
        .map((t) => t.target)
        .sort((a, b) => a.length - b.length || a.localeCompare(b))
        .slice(0, limit)
        .map((path) => ({ path, score: 0, indices: [] }));
    return fuzzysort.go(query, targets, { limit, threshold: 0.2 }).map((r) => ({
      path: r.target,
      score: Math.round(r.score * 1000),
      indices: [...r.indexes],
    }));
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
  }

  private newRules(): IgnoreRules {
    return new IgnoreRules(
      this.root,
      this.opts.globalExcludes === undefined ? {} : { globalExcludes: this.opts.globalExcludes },
    );
  }

  private targets() {
    if (!this.prepared) {
      const all: Fuzzysort.Prepared[] = [];
      const visible: Fuzzysort.Prepared[] = [];
      for (const f of this.files) {
        let t = this.cache.get(f);
        if (!t) {
          t = fuzzysort.prepare(f);
          this.cache.set(f, t);
        }
        all.push(t);
        if (!isHidden(f)) visible.push(t);
      }
      this.prepared = { all, visible };
    }
    return this.prepared;
  }

  /** Walks the whole tree again (first build, or events that cannot be trusted). */
  private async rebuild(): Promise<void> {
    this.watcher?.close();
    this.watcher = new TreeWatcher(this.root, { maxDirs: this.opts.maxDirs ?? 20_000 });
    this.rules = this.newRules();
    const files = new Set<string>();
    this.truncated = false;
    this.dirs = 0;
    await this.walk("", files, this.watcher);
    this.files = files;
    for (const k of this.cache.keys()) if (!files.has(k)) this.cache.delete(k);
    this.prepared = null;
    this.lastBuild = Date.now();
    await this.warmTargets();
  }

  /**
   * fuzzysort builds a target's lookup table on its first match: build them all now, in chunks
   * that let the process run, so the first keystroke does not pay for it (~0.2 s per 100k files).
   */
  private async warmTargets(): Promise<void> {
    const all = this.targets().all;
    for (let i = 0; i < all.length && !this.closed; i += 2000) {
      for (const t of all.slice(i, i + 2000)) if (t.target) fuzzysort.single(t.target[0], t);
      await new Promise((r) => setImmediate(r));
    }
  }

  private async walk(start: string, into: Set<string>, watcher: TreeWatcher): Promise<void> {
    const max = this.opts.maxEntries ?? 200_000;
    const stack = [start];
    let n = 0;
    while (stack.length && !this.closed) {
      const dir = stack.pop()!;
      watcher.watchDir(dir);
      let entries: Dirent[];
      try {
        entries = await readdir(dir ? join(this.root, dir) : this.root, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        const isDir = e.isDirectory();
        if (this.rules.ignored(rel, isDir) || this.isExcluded(rel)) continue;
        if (isDir) {
          if (this.dirs >= max) this.truncated = true;
          else {
            this.dirs++;
            stack.push(rel);
          }
        } else if (into.size >= max) this.truncated = true;
        else into.add(rel);
      }
      // Let the rest of the process run during a large first walk.
      if (++n % 200 === 0) await new Promise((r) => setImmediate(r));
    }
  }

  private isExcluded(rel: string): boolean {
    return this.excluded.size > 0 && this.excluded.has(join(this.realRoot, rel));
  }

  /** Applies the file-system events since the last search (or schedules a rebuild). */
  private async catchUp(): Promise<void> {
    const w = this.watcher;
    if (!w) return;
    if (!w.trusted) {
      if (Date.now() - this.lastBuild > (this.opts.rescanMs ?? 10_000)) this.building = this.rebuild();
      return;
    }
    const dirty = w.takeDirty();
    for (const rel of dirty) {
      if (rel.endsWith(".gitignore") || rel === "") {
        this.building = this.rebuild();
        return;
      }
      const st = await lstat(join(this.root, rel)).catch(() => undefined);
      if (!st) {
        this.files.delete(rel);
        const prefix = `${rel}/`;
        for (const f of this.files) if (f.startsWith(prefix)) this.files.delete(f);
        w.unwatchTree(rel);
      } else if (this.rules.ignored(rel, st.isDirectory()) || this.isExcluded(rel)) continue;
      else if (st.isDirectory()) await this.walk(rel, this.files, w);
      else this.files.add(rel);
      this.prepared = null;
    }
  }
}
