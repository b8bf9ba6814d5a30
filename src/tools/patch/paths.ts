/**
 * Where a patch may write. Policy (the caller adds writable roots, see `extraRoots`):
 * - Paths are resolved against the call's working directory (`ctx.cwd`).
 * - Absolute paths are accepted when they lie inside the working directory (models often echo
 *   absolute paths from tool output); anything else is refused.
 * - `..` may be used only while the result stays inside the working directory.
 * - Symbolic links are followed for the check: a path whose real location (the deepest
 *   existing ancestor, resolved) lies outside the working directory is refused.
 * - Protected paths (`PathGuard`, requirements A4) are refused whatever the roots or approvals: Tandem's
 *   home and store always; a repository's metadata (`.git`, as a directory or a file, and the
 *   directory a `.git` file points to) unless the sandbox is danger-full-access. Checked on the
 *   resolved location as written and with symbolic links followed, so `..`, absolute paths and
 *   links into them are refused too.
 * Contract of `resolvePatchPath`: returns the paths or throws `PatchApplyError` whose message
 * names the offending path and says what to do.
 */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { PatchApplyError } from "./applier.js";
import type { PatchFs } from "./fs.js";

export interface ResolvedPath {
  /** Absolute path as written (symbolic links not resolved); what gets removed or renamed. */
  abs: string;
  /** Absolute path with symbolic links resolved; the key a file is known by, and where it is written. */
  real: string;
  /** Path relative to the working directory, `/`-separated: what the model and surfaces see. */
  rel: string;
  /**
   * The entry `abs` names, in its directory with links resolved (the entry itself not): what a
   * delete removes (fs.ts acts on the directory as it was checked here).
   */
  entry: string;
}

const inside = (root: string, p: string): boolean => {
  const r = relative(root, p);
  return r !== "" && !r.startsWith(`..${sep}`) && r !== ".." && !isAbsolute(r);
};

/**
 * `extraRoots`: further directories the call may write (writable roots of the sandbox, or
 * directories the user approved for this call); paths there keep their absolute form in `rel`.
 */
export function resolvePatchPath(
  cwd: string,
  path: string,
  fs: PatchFs,
  extraRoots: string[] = [],
  guard?: PathGuard,
): ResolvedPath {
  const p = locate(cwd, path, fs, extraRoots);
  const why = guard && refusal(guard, p.abs, p.real);
  if (why) throw new PatchApplyError(`path '${path}' ${why}`);
  return p;
}

function locate(cwd: string, path: string, fs: PatchFs, extraRoots: string[]): ResolvedPath {
  const root = resolve(cwd);
  if (path.includes("\0")) throw new PatchApplyError(`invalid path '${path}': it contains a NUL character`);
  const abs = resolve(root, path);
  const extra = extraRoots.map((r) => resolve(r)).find((r) => inside(r, abs));
  if (extra !== undefined && !inside(root, abs)) {
    const realExtra = fs.realpath(extra) ?? extra;
    let probe = abs;
    let realProbe = fs.realpath(probe);
    while (realProbe === undefined && probe !== extra && probe !== dirname(probe)) {
      probe = dirname(probe);
      realProbe = fs.realpath(probe);
    }
    const real = realProbe === undefined ? abs : join(realProbe, relative(probe, abs));
    if (!inside(realExtra, real))
      throw new PatchApplyError(
        `path '${path}' resolves to ${real} through a symbolic link, outside ${realExtra}.`,
      );
    return { abs, real, rel: abs, entry: entryOf(abs, real, fs) };
  }
  if (!inside(root, abs))
    throw new PatchApplyError(
      abs === root
        ? `invalid path '${path}': it names the working directory itself, not a file`
        : `path '${path}' is outside the working directory ${root}; apply_patch only changes files ` +
            "inside it. Use a path relative to the working directory.",
    );
  const realRoot = fs.realpath(root) ?? root;
  let probe = abs;
  let realProbe = fs.realpath(probe);
  while (realProbe === undefined && probe !== root && probe !== dirname(probe)) {
    probe = dirname(probe);
    realProbe = fs.realpath(probe);
  }
  const real = realProbe === undefined ? abs : join(realProbe, relative(probe, abs));
  if (!inside(realRoot, real))
    throw new PatchApplyError(
      `path '${path}' resolves to ${real} through a symbolic link, outside the working directory ` +
        `${realRoot}; apply_patch only changes files inside it.`,
    );
  return { abs, real, rel: relative(root, abs).split(sep).join("/"), entry: entryOf(abs, real, fs) };
}

function entryOf(abs: string, real: string, fs: PatchFs): string {
  const dir = fs.realpath(dirname(abs));
  return dir === undefined ? real : join(dir, basename(abs));
}

/** What a patch may never write, whatever the writable roots or approvals (see the header). */
export interface PathGuard {
  /** Absolute files or directories refused in every mode (Tandem's home, the store's files). */
  protectedPaths: string[];
  /** Refuse `.git` components (and gitdirs); false under danger-full-access. */
  protectGit: boolean;
  /** Directories where a `.git` component starts to count (the workspace and writable roots). */
  roots: string[];
  /** Git directories `.git` files point to (worktrees, submodules, --separate-git-dir). */
  gitDirs: string[];
}

/** The guard for a call: `protectedPaths` and the git directories of `roots` and their parents. */
export function pathGuard(
  fs: PatchFs,
  opts: { protectedPaths: string[]; protectGit: boolean; roots: string[] },
): PathGuard {
  const roots = [...new Set(opts.roots.map((r) => resolve(r)))];
  const withReal = (ps: string[]) => [...new Set(ps.flatMap((p) => [p, fs.realpath(p) ?? p]))];
  const gitDirs: string[] = [];
  if (opts.protectGit)
    for (const root of roots)
      for (let d = root; ; d = dirname(d)) {
        const dir = gitDirOf(d, fs);
        if (dir === null) break; // a `.git` directory: its components are refused already
        if (dir !== undefined) gitDirs.push(...dir);
        if (d === dirname(d)) break;
      }
  return {
    protectedPaths: withReal(opts.protectedPaths.map((p) => resolve(p))),
    protectGit: opts.protectGit,
    roots: withReal(roots),
    gitDirs: withReal(gitDirs),
  };
}

/**
 * `dir/.git` is a file → the git directory it names and, for a worktree, the `commondir` that
 * holds the shared config; a directory (or unreadable) → null; absent → undefined.
 */
function gitDirOf(dir: string, fs: PatchFs): string[] | null | undefined {
  const text = (p: string) => {
    try {
      return fs.read(p)?.text;
    } catch {
      return null;
    }
  };
  // fs.read wants a directory with its links resolved (fs.ts).
  const pointer = text(join(fs.realpath(dir) ?? dir, ".git"));
  if (pointer === undefined) return undefined;
  const m = pointer === null ? null : /^gitdir:\s*(.+?)\s*$/m.exec(pointer);
  if (!m) return null;
  const gitdir = resolve(dir, m[1]);
  const common = text(join(fs.realpath(gitdir) ?? gitdir, "commondir"))?.trim();
  return common ? [gitdir, resolve(gitdir, common)] : [gitdir];
}

const within = (root: string, p: string) => p === root || inside(root, p);

/** Why the patch may not write `abs` (really `real`), or undefined when it may. */
export function refusal(guard: PathGuard, abs: string, real: string): string | undefined {
  for (const p of new Set([abs, real])) {
    const hit = guard.protectedPaths.find((q) => within(q, p));
    if (hit)
      return (
        `resolves to ${p}, inside Tandem's own state (${hit}): apply_patch never changes Tandem's ` +
        "home or its store, in any sandbox mode."
      );
    if (!guard.protectGit) continue;
    const git = guard.gitDirs.find((q) => within(q, p)) ?? gitComponent(guard.roots, p);
    if (git)
      return (
        `resolves to ${p}, inside the Git metadata ${git}: apply_patch never changes .git under the ` +
        "read-only or workspace-write sandbox (a change there could make git run code). Ask the " +
        "user to make this change."
      );
  }
  return undefined;
}

/** The `.git` path `p` lies in, counting components below the deepest root holding it. */
function gitComponent(roots: string[], p: string): string | undefined {
  const base = roots.filter((r) => inside(r, p)).sort((a, b) => b.length - a.length)[0] ?? sep;
  const parts = relative(base, p).split(sep);
  const k = parts.findIndex((c) => c.toLowerCase() === ".git");
  return k < 0 ? undefined : join(base, ...parts.slice(0, k + 1));
}

/** Where `path` lands from `cwd`: absolute, and with its deepest existing ancestor's links resolved. */
export function realLocation(cwd: string, path: string, fs: PatchFs): { abs: string; real: string } {
  const abs = resolve(cwd, path);
  let probe = abs;
  let realProbe = fs.realpath(probe);
  while (realProbe === undefined && probe !== dirname(probe)) {
    probe = dirname(probe);
    realProbe = fs.realpath(probe);
  }
  return { abs, real: realProbe === undefined ? abs : join(realProbe, relative(probe, abs)) };
}
