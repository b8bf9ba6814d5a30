/**
 * Which workspace paths the watch and checkpoints leave out, by git's ignore rules — evaluated
 * here, in-process, so that no git runs on the host (a `.git` the model wrote cannot choose a
 * program: core.fsmonitor, hooks, filters and the rest are never read).
 *
 * Rules, lowest precedence first: built-ins (`.git/` always; `node_modules/` unless re-included),
 * the user's global excludes file (`$XDG_CONFIG_HOME/git/ignore` or `~/.config/git/ignore`),
 * the workspace's `.git/info/exclude` (only when `.git` is a directory: a `.git` file pointing
 * elsewhere is never followed), then every `.gitignore` from the root down to the path's
 * directory; within a level the last matching pattern wins, and a path under an ignored
 * directory is ignored (git never looks inside one). Rule files are read as data
 * (`host/files.ts`: regular files only, no symlinks, at most RULE_FILE_MAX of each).
 *
 * Differences from git, by design: tracked files that match an ignore pattern are ignored too
 * (git keeps them, but knowing that needs the index); `core.excludesFile` set in a git config
 * is not read. Paths are relative to the root, `/`-separated; directories are tested as such.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { readRegular } from "../host/files.js";

/**
 * Most of one rule file read: past it only the lines before the cut apply. `ignore` compiles a
 * file's rules in one synchronous call and tests every path against every rule, so a hostile
 * megabyte of patterns (60,000 rules) held the process for seconds per compile and ~90 ms per
 * path; 64 KiB (a few thousand rules) is far above any real .gitignore.
 */
export const RULE_FILE_MAX = 64 << 10;
/**
 * `ignore` caches every path it was asked about, forever: a scan of 100k files would keep 100k
 * entries per matcher. Parents are decided here (`dirVerdict`), so its cache buys little; it is
 * reset every CACHE_BOUND tests (through its own re-initialiser, when it has one).
 */
const CACHE_BOUND = 4096;
const BUILT_IN = [".git/", "node_modules/"];

function readRules(path: string): string | undefined {
  const r = readRegular(path, { maxBytes: RULE_FILE_MAX, noFollow: true, truncate: true });
  if (!r.ok) return undefined;
  const text = r.data.toString("utf8");
  // Cut: the last line may be half a pattern.
  return r.stat.size > RULE_FILE_MAX ? text.slice(0, text.lastIndexOf("\n") + 1) : text;
}

export class IgnoreRules {
  private readonly base: Ignore;
  /** Each directory's `.gitignore` matcher (null: none), read on first use. */
  private readonly perDir = new Map<string, Ignore | null>();
  /** Directories already decided, for the parent checks of many paths. */
  private readonly dirVerdict = new Map<string, boolean>();
  private tests = 0;
  /** Whether a matcher has a rule that can match a file (not only `dir/` patterns). */
  private readonly fileRules = new WeakMap<Ignore, boolean>();
  /** The last directory's `levelsOf` (a walk asks for one directory's entries in a row). */
  private levels: { dir: string; matchers: Array<[Ignore, number]>; fileRules: boolean } | undefined;

  constructor(
    readonly root: string,
    opts: { globalExcludes?: string | null; extra?: readonly string[] } = {},
  ) {
    this.base = ignore({ allowRelativePaths: true }).add(BUILT_IN);
    const global = opts.globalExcludes === undefined ? defaultGlobalExcludes() : opts.globalExcludes;
    const globalText = global ? readRules(global) : undefined;
    if (globalText) this.base.add(globalText);
    const info = readRules(join(root, ".git", "info", "exclude"));
    if (info) this.base.add(info);
    if (opts.extra) this.base.add([...opts.extra]);
    this.fileRules.set(this.base, matchesFiles([globalText, info, ...(opts.extra ?? [])].join("\n")));
  }

  /** Whether `rel` (a file, or a directory when `isDir`) is left out. */
  ignored(rel: string, isDir: boolean): boolean {
    if (rel === "") return false;
    const parts = rel.split("/");
    if (parts.includes(".git")) return true;
    for (let i = 1; i < parts.length; i++) if (this.dirIgnored(parts.slice(0, i).join("/"))) return true;
    return isDir ? this.dirIgnored(rel) : this.decide(rel, false);
  }

  /**
   * `ignored(dir ? `${dir}/${name}` : name, isDir)` for a walk that is inside `dir` — which must
   * not be ignored itself (the walk went in) — at a cost per entry of one test per rule file
   * that applies there, and none for a file when no rule there can match a file (only
   * directory patterns such as `node_modules/`, or no rule files: the common case).
   */
  entryIgnored(dir: string, name: string, isDir: boolean): boolean {
    if (name === ".git") return true;
    const rel = dir ? `${dir}/${name}` : name;
    if (isDir) return this.dirIgnored(rel);
    const levels = this.levelsOf(dir);
    if (!levels.fileRules) return false;
    let ignoredNow = false;
    for (const [ig, cut] of levels.matchers) {
      if (++this.tests % CACHE_BOUND === 0) this.resetCaches();
      const r = ig.test(cut ? rel.slice(cut) : rel);
      if (r.ignored) ignoredNow = true;
      else if (r.unignored) ignoredNow = false;
    }
    return ignoredNow;
  }

  /** The matchers that apply to `dir`'s entries, outermost first, each with its prefix length. */
  private levelsOf(dir: string): { matchers: Array<[Ignore, number]>; fileRules: boolean } {
    if (this.levels?.dir === dir) return this.levels;
    const matchers: Array<[Ignore, number]> = [[this.base, 0]];
    let fileRules = this.fileRules.get(this.base) === true;
    const parts = dir ? dir.split("/") : [];
    for (let depth = 0; depth <= parts.length; depth++) {
      const at = parts.slice(0, depth).join("/");
      const m = this.matcher(at);
      if (!m) continue;
      matchers.push([m, at ? at.length + 1 : 0]);
      fileRules ||= this.fileRules.get(m) === true;
    }
    this.levels = { dir, matchers, fileRules };
    return this.levels;
  }

  /** Forgets what was read for `dir` (its `.gitignore` changed) and every verdict below it. */
  invalidate(dir: string): void {
    this.perDir.delete(dir);
    this.levels = undefined;
    this.dirVerdict.clear();
  }

  private dirIgnored(rel: string): boolean {
    let v = this.dirVerdict.get(rel);
    if (v === undefined) {
      v = this.decide(rel, true);
      this.dirVerdict.set(rel, v);
    }
    return v;
  }

  /** The last matching rule over every level, deepest last (the parents are checked by the caller). */
  private decide(rel: string, isDir: boolean): boolean {
    let ignoredNow = false;
    const apply = (ig: Ignore, path: string) => {
      if (++this.tests % CACHE_BOUND === 0) this.resetCaches();
      const r = ig.test(isDir ? `${path}/` : path);
      if (r.ignored) ignoredNow = true;
      else if (r.unignored) ignoredNow = false;
    };
    apply(this.base, rel);
    const parts = rel.split("/");
    for (let depth = 0; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join("/");
      const m = this.matcher(dir);
      if (m) apply(m, parts.slice(depth).join("/"));
    }
    return ignoredNow;
  }

  private resetCaches(): void {
    for (const ig of [this.base, ...this.perDir.values()]) {
      const reset = (ig as unknown as { _initCache?: () => void } | null)?._initCache;
      if (typeof reset === "function") reset.call(ig);
    }
    if (this.dirVerdict.size > CACHE_BOUND * 4) this.dirVerdict.clear();
  }

  private matcher(dir: string): Ignore | null {
    let m = this.perDir.get(dir);
    if (m === undefined) {
      const text = readRules(join(this.root, dir, ".gitignore"));
      m = text ? ignore({ allowRelativePaths: true }).add(text) : null;
      if (m) this.fileRules.set(m, matchesFiles(text as string));
      this.perDir.set(dir, m);
    }
    return m;
  }
}

/**
 * Whether rule text has a pattern that can match a file: any line that is not blank, not a
 * comment and not a directory-only pattern (`name/`). Errs towards true (a negation, a pattern
 * with an escaped or trailing space): only "false" lets a walk skip testing files.
 */
export function matchesFiles(text: string): boolean {
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (line === "" || line.startsWith("#")) continue;
    if (line.endsWith("/") && !line.startsWith("!") && !line.includes("\\")) continue;
    return true;
  }
  return false;
}

function defaultGlobalExcludes(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return xdg ? join(xdg, "git", "ignore") : join(homedir(), ".config", "git", "ignore");
}
