/**
 * Planning and committing a whole patch, atomically per call.
 *
 * `planPatch(ops, cwd, fs)` reads what it needs and computes every file's new content in
 * memory; operations see the effects of earlier ones in the same patch (e.g. Delete then Add of
 * one path). It throws `PatchApplyError` on the first operation that cannot apply — before
 * anything is written. Refused: Add of an existing file, Update/Delete of a missing one, Move
 * onto an existing file, paths outside the working directory or protected by `guard` (paths.ts),
 * directories.
 *
 * `commitPlan(plan, fs)` writes the net effect per file: new and changed files first (temp file
 * + rename, permission bits kept; parent directories created), removals last. If any write
 * fails, files already written are restored from memory, created directories removed, and a
 * `PatchApplyError` says what failed and whether the rollback was complete.
 */
import { dirname } from "node:path";
import { applyChunks, PatchApplyError } from "./applier.js";
import type { PatchFs } from "./fs.js";
import type { PatchOp } from "./parser.js";
import { type PathGuard, type ResolvedPath, resolvePatchPath } from "./paths.js";

/** One operation of the patch as applied; `before`/`after` are the texts around that operation. */
export interface FileChange {
  kind: "add" | "update" | "delete" | "move";
  /** Path relative to the working directory (`/`-separated). For a move: the source. */
  path: string;
  /** Destination of a move, relative to the working directory. */
  movePath?: string;
  absPath: string;
  absMovePath?: string;
  /** Text before the operation; null when the file did not exist (add). */
  before: string | null;
  /** Text after the operation (at `movePath` for a move); null when deleted. */
  after: string | null;
}

interface FileState {
  text: string;
  /** Permission bits; undefined for a new file (process default). */
  mode?: number;
}

/** One physical file the patch touches: its state on disk before, and after the whole patch. */
interface Entry {
  path: ResolvedPath;
  original: FileState | undefined;
  current: FileState | undefined;
}

export interface PatchPlan {
  changes: FileChange[];
  /** Net effect per file, keyed by real path, in first-touched order. */
  entries: Map<string, Entry>;
}

export function planPatch(
  ops: PatchOp[],
  cwd: string,
  fs: PatchFs,
  extraRoots: string[] = [],
  guard?: PathGuard,
): PatchPlan {
  const entries = new Map<string, Entry>();
  const changes: FileChange[] = [];
  const header = (op: PatchOp) =>
    `'*** ${op.type === "add" ? "Add" : op.type === "delete" ? "Delete" : "Update"} File: ${op.path}'` +
    ` (patch line ${op.line})`;

  const entry = (p: ResolvedPath, op: PatchOp): Entry => {
    let e = entries.get(p.real);
    if (!e) {
      let disk: { text: string; mode: number } | undefined;
      try {
        disk = fs.read(p.real);
      } catch (err) {
        throw new PatchApplyError(`${header(op)}: cannot read ${p.rel}: ${(err as Error).message}`);
      }
      e = { path: p, original: disk, current: disk };
      entries.set(p.real, e);
    }
    return e;
  };
  const resolvePath = (path: string, op: PatchOp) => {
    try {
      return resolvePatchPath(cwd, path, fs, extraRoots, guard);
    } catch (err) {
      throw new PatchApplyError(`${header(op)}: ${(err as Error).message}`);
    }
  };

  for (const op of ops) {
    const p = resolvePath(op.path, op);
    const e = entry(p, op);
    if (op.type === "add") {
      if (e.current)
        throw new PatchApplyError(
          `${header(op)}: ${p.rel} already exists. Use '*** Update File: ${op.path}' to change it, ` +
            "or delete it first in the same patch to replace it.",
        );
      e.current = { text: op.contents };
      changes.push({ kind: "add", path: p.rel, absPath: p.abs, before: null, after: op.contents });
      continue;
    }
    if (!e.current)
      throw new PatchApplyError(
        `${header(op)}: ${p.rel} does not exist` +
          (op.type === "update" ? `. Use '*** Add File: ${op.path}' to create it.` : "."),
      );
    const before = e.current;
    if (op.type === "delete") {
      e.current = undefined;
      changes.push({ kind: "delete", path: p.rel, absPath: p.abs, before: before.text, after: null });
      continue;
    }
    let text: string;
    try {
      text = op.chunks.length ? applyChunks(before.text, op.chunks) : before.text;
    } catch (err) {
      if (!PatchApplyError.isInstance(err)) throw err;
      throw new PatchApplyError(`${header(op)}: ${err.message}`);
    }
    const dest = op.movePath === undefined ? undefined : resolvePath(op.movePath, op);
    if (!dest || dest.real === p.real) {
      e.current = { text, mode: before.mode };
      changes.push({ kind: "update", path: p.rel, absPath: p.abs, before: before.text, after: text });
      continue;
    }
    const d = entry(dest, op);
    if (d.current)
      throw new PatchApplyError(
        `${header(op)}: cannot move to ${dest.rel}: it already exists. Delete it first in the same ` +
          "patch, or choose another name.",
      );
    e.current = undefined;
    d.current = { text, mode: before.mode };
    changes.push({
      kind: "move",
      path: p.rel,
      movePath: dest.rel,
      absPath: p.abs,
      absMovePath: dest.abs,
      before: before.text,
      after: text,
    });
  }
  return { changes, entries };
}

const sameState = (a: FileState | undefined, b: FileState | undefined) =>
  a?.text === b?.text && (a?.mode === b?.mode || b?.mode === undefined);

export function commitPlan(plan: PatchPlan, fs: PatchFs): void {
  const touched = [...plan.entries.values()].filter((e) => !sameState(e.original, e.current));
  const done: Entry[] = [];
  const dirs: string[] = [];
  let step = "";
  try {
    for (const e of touched) {
      if (!e.current) continue;
      step = `write ${e.path.rel}`;
      dirs.push(...fs.mkdirp(dirname(e.path.real)));
      fs.write(e.path.real, e.current.text, e.current.mode ?? e.original?.mode);
      done.push(e);
    }
    for (const e of touched) {
      if (e.current || !e.original) continue;
      step = `delete ${e.path.rel}`;
      fs.remove(e.path.entry);
      done.push(e);
    }
  } catch (err) {
    const lost = rollback(done, dirs, fs);
    const cause = (err as Error)?.message ?? String(err);
    throw new PatchApplyError(
      `failed to ${step}: ${cause}. ` +
        (lost.length === 0
          ? "Every file already written was restored; nothing changed."
          : `Could not restore: ${lost.join(", ")} — check them before retrying.`),
    );
  }
}

/** Undoes `done` in reverse order; returns the paths it could not restore. */
function rollback(done: Entry[], dirs: string[], fs: PatchFs): string[] {
  const lost: string[] = [];
  for (const e of [...done].reverse()) {
    try {
      if (e.original) fs.write(e.current ? e.path.real : e.path.entry, e.original.text, e.original.mode);
      else fs.remove(e.path.real);
    } catch {
      lost.push(e.path.rel);
    }
  }
  for (const d of [...dirs].reverse()) fs.rmdirIfEmpty(d);
  return lost;
}
