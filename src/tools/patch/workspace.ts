/**
 * What shell commands changed in the workspace during a turn, for the turn diff (tracker.ts).
 *
 * `WorkspaceWatch.take(root)` records the workspace's files before the turn: in a git work tree
 * the tracked and untracked-not-ignored files (`git ls-files`), else a walk that skips `.git` and
 * `node_modules`. Each file's size and mtime are kept; contents only where they cannot be had
 * later: files differing from the git index (and untracked ones), or every file outside git.
 * A clean tracked file's baseline is its index blob, read only if the file changes.
 * `changes()` lists the files again (one `git ls-files` in a work tree; outside one, a walk and
 * no process at all unless a `.git` appeared), stats them, reads only those whose size or mtime moved,
 * and returns them as `FileChange`s (add / update / delete) against the last state it saw;
 * `observe()` takes apply_patch's own changes so they are not reported twice.
 *
 * Limits: more than `maxFiles` files → no watch at all (`take` resolves undefined, the turn diff
 * then shows apply_patch changes only). Files over `maxFileBytes`, binary files (a NUL byte) and
 * baselines beyond `maxTotalBytes` of stored text are not diffed. Never throws.
 */
import { execFile } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FileChange } from "./changes.js";

export interface WatchLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

export const WATCH_LIMITS: WatchLimits = {
  maxFiles: 5000,
  maxFileBytes: 1 << 20,
  maxTotalBytes: 32 << 20,
};

interface Entry {
  size: number;
  mtimeMs: number;
  /** Text as last seen; null: not diffable (binary, too large, over budget). */
  text?: string | null;
  /** Git index blob holding the text (clean tracked files), read on demand. */
  oid?: string;
}

function git(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("git", ["-C", root, ...args], { maxBuffer: 64 << 20, encoding: "utf8" }, (err, out) =>
      resolve(err ? undefined : out),
    );
  });
}

const split0 = (text: string) => text.split("\0").filter(Boolean);

interface Listed {
  files: string[];
  oids: Map<string, string>;
  dirty: Set<string> | null;
  /** Listed by git (a work tree), not by walking. */
  git: boolean;
}

/**
 * Files under `root` (relative, `/`-separated). With `baseline`, also the index oids and the
 * files differing from the index (what `take` needs); else just the names, in one git call.
 * `useGit` false walks without trying git: forking a process per command is the costliest part
 * of a comparison.
 */
async function listFiles(
  root: string,
  limits: WatchLimits,
  baseline: boolean,
  useGit = true,
): Promise<Listed | undefined> {
  if (useGit && !baseline) {
    const listed = await git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]);
    if (listed !== undefined) {
      const files = [...new Set(split0(listed))]; // an unmerged path is listed once per stage
      if (files.length > limits.maxFiles) return undefined;
      return { files, oids: new Map(), dirty: null, git: true };
    }
  }
  const staged = useGit && baseline ? await git(root, ["ls-files", "-s", "-z"]) : undefined;
  if (staged !== undefined) {
    const oids = new Map<string, string>();
    for (const rec of split0(staged)) {
      const tab = rec.indexOf("\t");
      const [mode, oid] = rec.slice(0, tab).split(" ");
      if (mode !== "160000") oids.set(rec.slice(tab + 1), oid); // not submodules
    }
    const others = split0((await git(root, ["ls-files", "-o", "--exclude-standard", "-z"])) ?? "");
    const files = [...oids.keys(), ...others];
    if (files.length > limits.maxFiles) return undefined;
    const changed = await git(root, ["diff", "--name-only", "--relative", "-z"]);
    return { files, oids, dirty: changed === undefined ? null : new Set(split0(changed)), git: true };
  }
  const files: string[] = [];
  const walk = async (rel: string): Promise<boolean> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(join(root, rel), { withFileTypes: true });
    } catch {
      return true;
    }
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name === ".git" || e.name === "node_modules") continue;
        if (!(await walk(path))) return false;
      } else if (e.isFile()) {
        files.push(path);
        if (files.length > limits.maxFiles) return false;
      }
    }
    return true;
  };
  if (!(await walk(""))) return undefined;
  return { files, oids: new Map(), dirty: null, git: false };
}

async function readText(path: string, limits: WatchLimits): Promise<string | null> {
  try {
    const buf = await readFile(path);
    if (buf.length > limits.maxFileBytes || buf.includes(0)) return null;
    return buf.toString("utf8");
  } catch {
    return null;
  }
}

export class WorkspaceWatch {
  private constructor(
    readonly root: string,
    private entries: Map<string, Entry>,
    private readonly limits: WatchLimits,
    /** `root` was a git work tree when the watch was taken. */
    private readonly inGit: boolean,
  ) {}

  /** The workspace now, or undefined when it is too large (or not readable). */
  static async take(root: string, limits: WatchLimits = WATCH_LIMITS): Promise<WorkspaceWatch | undefined> {
    try {
      const listed = await listFiles(root, limits, true);
      if (!listed) return undefined;
      const entries = new Map<string, Entry>();
      let budget = limits.maxTotalBytes;
      await Promise.all(
        listed.files.map(async (rel) => {
          const s = await stat(join(root, rel)).catch(() => undefined);
          if (!s?.isFile()) return;
          const entry: Entry = { size: s.size, mtimeMs: s.mtimeMs };
          const oid = listed.oids.get(rel);
          if (oid !== undefined && listed.dirty !== null && !listed.dirty.has(rel)) entry.oid = oid;
          else if (s.size > limits.maxFileBytes || s.size > budget) entry.text = null;
          else {
            budget -= s.size;
            entry.text = await readText(join(root, rel), limits);
          }
          entries.set(rel, entry);
        }),
      );
      return new WorkspaceWatch(root, entries, limits, listed.git);
    } catch {
      return undefined;
    }
  }

  /** The baseline text of a known file (reading its index blob when that is where it is). */
  private async before(e: Entry): Promise<string | null> {
    if (e.text !== undefined) return e.text;
    if (e.oid === undefined) return null;
    const out = await git(this.root, ["cat-file", "blob", e.oid]);
    return out === undefined || out.length > this.limits.maxFileBytes || out.includes("\0") ? null : out;
  }

  /** Files changed since the last look (or `take`), oldest state → now; updates the state. */
  async changes(): Promise<FileChange[]> {
    // A directory that became a work tree since (git init) is listed by git again: a stat, not a fork.
    const inGit =
      this.inGit ||
      (await stat(join(this.root, ".git")).then(
        () => true,
        () => false,
      ));
    const listed = await listFiles(this.root, this.limits, false, inGit).catch(() => undefined);
    if (!listed) return [];
    const out: FileChange[] = [];
    const seen = new Set<string>();
    const stats = await Promise.all(
      listed.files.map((rel) => stat(join(this.root, rel)).catch(() => undefined)),
    );
    for (const [i, rel] of listed.files.entries()) {
      const absPath = join(this.root, rel);
      const s = stats[i];
      if (!s?.isFile()) continue; // e.g. tracked but deleted: reported below
      seen.add(rel);
      const known = this.entries.get(rel);
      if (known && known.size === s.size && known.mtimeMs === s.mtimeMs) continue;
      const after = await readText(absPath, this.limits);
      const before = known ? await this.before(known) : null;
      this.entries.set(rel, { size: s.size, mtimeMs: s.mtimeMs, text: after });
      if (after === null || (known && before === null) || before === after) continue;
      out.push({ kind: known ? "update" : "add", path: rel, absPath, before, after });
    }
    for (const [rel, known] of this.entries) {
      if (seen.has(rel)) continue;
      this.entries.delete(rel);
      const before = await this.before(known);
      if (before !== null)
        out.push({ kind: "delete", path: rel, absPath: join(this.root, rel), before, after: null });
    }
    return out;
  }

  /** Records files apply_patch wrote (their new text and stat), so `changes()` skips them. */
  async observe(changes: readonly FileChange[]): Promise<void> {
    for (const c of changes) {
      const targets: Array<[string | undefined, string | undefined, string | null]> =
        c.kind === "move"
          ? [
              [c.path, c.absPath, null],
              [c.movePath, c.absMovePath, c.after],
            ]
          : [[c.path, c.absPath, c.after]];
      for (const [rel, abs, text] of targets) {
        if (rel === undefined || abs === undefined || rel.startsWith("../")) continue;
        if (text === null) {
          this.entries.delete(rel);
          continue;
        }
        const s = await stat(abs).catch(() => undefined);
        if (s) this.entries.set(rel, { size: s.size, mtimeMs: s.mtimeMs, text });
      }
    }
  }
}
