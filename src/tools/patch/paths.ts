/**
 * Where a patch may write. Policy (the caller adds writable roots, see `extraRoots`):
 * - Paths are resolved against the call's working directory (`ctx.cwd`).
 * - Absolute paths are accepted when they lie inside the working directory (models often echo
 *   absolute paths from tool output); anything else is refused.
 * - `..` may be used only while the result stays inside the working directory.
 * - Symbolic links are followed for the check: a path whose real location (the deepest
 *   existing ancestor, resolved) lies outside the working directory is refused.
 * Contract of `resolvePatchPath`: returns the paths or throws `PatchApplyError` whose message
 * names the offending path and says what to do.
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { PatchApplyError } from "./applier.js";
import type { PatchFs } from "./fs.js";

export interface ResolvedPath {
  /** Absolute path as written (symbolic links not resolved); what gets removed or renamed. */
  abs: string;
  /** Absolute path with symbolic links resolved; the key a file is known by, and where it is written. */
  real: string;
  /** Path relative to the working directory, `/`-separated: what the model and surfaces see. */
  rel: string;
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
): ResolvedPath {
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
    return { abs, real, rel: abs };
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
  return { abs, real, rel: relative(root, abs).split(sep).join("/") };
}
