/**
 * Which workspace paths changed, from the kernel's file-system events (inotify on Linux), so
 * that finding what a command changed costs what the command changed — not the size of the
 * repository.
 *
 * One non-recursive `fs.watch` per directory the scan reaches (ignored directories are never
 * watched). Every event marks `dir/name` dirty; `takeDirty()` hands the set over and starts a
 * new one. `flush()` resolves once every event the kernel queued before the call has been
 * delivered: it writes a file in a private directory watched through the same inotify
 * instance, whose queue is ordered, and waits for that file's event.
 *
 * Contract: never throws. When watching stops being trustworthy (a watch cannot be added — e.g.
 * the inotify limit — a watcher errors, or `maxDirs` is passed) `trusted` turns false and stays
 * false; the owner then rescans instead of trusting the dirty set. New directories are not
 * watched here: the owner scans them (`watchDir`) when it sees their event, which also finds
 * what was written into them before the watch existed.
 */
import { type FSWatcher, mkdirSync, mkdtempSync, rmSync, unlinkSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface WatcherOptions {
  /** Most directories watched; past it the watcher gives up (`trusted` false). */
  maxDirs: number;
  /** Where the flush sentinel lives (a private directory under it is made and removed). */
  sentinelParent?: string;
}

export class TreeWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private dirty = new Set<string>();
  private readonly sentinelDir: string | undefined;
  private sentinel: FSWatcher | undefined;
  private seq = 0;
  private readonly waiting = new Map<string, () => void>();
  private untrusted = false;
  private closed = false;

  constructor(
    readonly root: string,
    private readonly opts: WatcherOptions,
  ) {
    try {
      const parent = opts.sentinelParent ?? tmpdir();
      mkdirSync(parent, { recursive: true, mode: 0o700 });
      this.sentinelDir = mkdtempSync(join(parent, "tandem-watch-"));
      this.sentinel = watch(this.sentinelDir, { persistent: false }, (_e, name) => {
        const done = name ? this.waiting.get(String(name)) : undefined;
        if (done) {
          this.waiting.delete(String(name));
          done();
        }
      });
      this.sentinel.on("error", () => this.distrust());
    } catch {
      this.distrust();
    }
  }

  /** False once an event may have been missed: the owner must rescan (see the contract). */
  get trusted(): boolean {
    return !this.untrusted && !this.closed;
  }

  get watchedDirs(): number {
    return this.watchers.size;
  }

  /** Starts watching `rel` (a directory, "" for the root). False when it could not. */
  watchDir(rel: string): boolean {
    if (this.untrusted || this.closed) return false;
    if (this.watchers.has(rel)) return true;
    if (this.watchers.size >= this.opts.maxDirs) {
      this.distrust();
      return false;
    }
    try {
      const w = watch(rel ? join(this.root, rel) : this.root, { persistent: false }, (_e, name) => {
        if (name === null || name === undefined) this.dirty.add(rel);
        else this.dirty.add(rel ? `${rel}/${name}` : String(name));
      });
      w.on("error", () => {
        // The directory went away (or the watch broke): its parent's event reports the removal.
        this.watchers.delete(rel);
        w.close();
        this.dirty.add(rel);
      });
      this.watchers.set(rel, w);
      return true;
    } catch {
      this.distrust();
      return false;
    }
  }

  /** Stops watching `rel` and every directory below it (it was removed or became ignored). */
  unwatchTree(rel: string): void {
    const prefix = rel ? `${rel}/` : "";
    for (const [dir, w] of this.watchers) {
      if (dir === rel || dir.startsWith(prefix)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
  }

  /** The paths marked since the last call (files or directories), and a fresh set. */
  takeDirty(): string[] {
    const out = [...this.dirty];
    this.dirty = new Set();
    return out;
  }

  /** Resolves once every event queued before this call has been delivered (see the contract). */
  flush(): Promise<void> {
    const dir = this.sentinelDir;
    if (!dir || !this.sentinel || this.untrusted || this.closed) return Promise.resolve();
    const name = `f${++this.seq}`;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        // No event within 5 s: something is wrong with the watch; do not trust it.
        this.waiting.delete(name);
        this.distrust();
        resolve();
      }, 5000);
      this.waiting.set(name, () => {
        clearTimeout(timer);
        resolve();
      });
      try {
        writeFileSync(join(dir, name), "");
        unlinkSync(join(dir, name));
      } catch {
        clearTimeout(timer);
        this.waiting.delete(name);
        this.distrust();
        resolve();
      }
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.sentinel?.close();
    for (const done of this.waiting.values()) done();
    this.waiting.clear();
    if (this.sentinelDir) rmSync(this.sentinelDir, { recursive: true, force: true });
  }

  private distrust(): void {
    if (this.untrusted) return;
    this.untrusted = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
