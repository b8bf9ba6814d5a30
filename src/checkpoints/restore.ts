/**
 * The restore engine behind undo and redo (README "Undo, redo, fork and rewind").
 *
 * `planRestore` takes one checkpoint (a turn's changes, store.ts) and, for every path the turn
 * changed, compares what is on disk now with what the turn left (undo) or found (redo):
 * - equal: a step — undo puts back the state before the turn (modified → old bytes and mode,
 *   created → removed, deleted → recreated, a link → relinked); redo the state after it;
 * - already the target: nothing to do (`unchanged`);
 * - anything else (someone edited it since, a link or directory stands there now): a
 *   `conflict`, applied only when the caller says so (`overwrite`);
 * - the target's contents were never stored (`withheld`: it held a secret value; `big`), or
 *   are gone: `unrestorable`, never written — no garbage in place of a file.
 * The plan carries a unified diff (jsdiff) from what is there now to what the restore writes.
 *
 * `applyRestore` writes each file atomically: a temporary file (O_CREAT|O_EXCL|O_NOFOLLOW) in
 * the file's own directory, then a rename over the name. Every directory on the way is opened
 * from the workspace root and checked to be really there (host/files.ts `openDirExact`): a
 * component the model swapped for a symbolic link (to leave the workspace, to reach
 * `$TANDEM_HOME`) is refused, never followed, and a link at the last component is replaced,
 * never written through. Directories a recreated file needs are made the same way. It runs no
 * program (not git). Paths with a `.git` component, or Tandem's own, are refused.
 *
 * Contract: `planRestore` reads only. `applyRestore` never throws for one file (it lands in
 * `failed` with a reason); it moves the workspace's baseline over what it wrote, so the next
 * turn does not count the restore as its own change, and sets the checkpoint's state.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  renameSync,
  type Stats,
  symlinkSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { structuredPatch } from "diff";
import { type DirHandle, openDirExact, readRegular } from "../host/files.js";
import { headerPath } from "../util/diff-header.js";
import { type FileState, hashOf } from "./store.js";
import type { Workspace } from "./workspace.js";

export type RestoreDirection = "undo" | "redo";

/** What stands at a path now: absent (null), a file or link, or something else (`other`). */
export type CurrentState = FileState | null | { kind: "other"; what: string };

export interface RestoreStep {
  path: string;
  /** The state the turn left (undo) or found (redo): what should be there now. */
  expected: FileState | null;
  /** The state the restore writes (null: remove). */
  target: FileState | null;
  current: CurrentState;
  /** Why it is a conflict (conflicts only). */
  reason?: string;
}

export interface RestorePlan {
  direction: RestoreDirection;
  checkpointId: number;
  turnId: string;
  steps: RestoreStep[];
  conflicts: RestoreStep[];
  unrestorable: Array<{ path: string; reason: string }>;
  unchanged: string[];
  /** From what is there now to what the restore writes: steps, then conflicts. */
  diff: string;
}

export interface RestoreResult {
  applied: string[];
  /** Conflicts left as they are (not overwritten). */
  skipped: string[];
  failed: Array<{ path: string; reason: string }>;
  unrestorable: Array<{ path: string; reason: string }>;
}

const MAX_DIFF_BYTES = 1 << 20;

/** The plan that undoes (or redoes) checkpoint `checkpointId` (see the module contract). */
export function planRestore(ws: Workspace, checkpointId: number, direction: RestoreDirection): RestorePlan {
  const cp = ws.store.checkpointById(checkpointId);
  if (!cp) throw new Error(`no checkpoint ${checkpointId} in the store of ${ws.root}`);
  const plan: RestorePlan = {
    direction,
    checkpointId,
    turnId: cp.turn_id,
    steps: [],
    conflicts: [],
    unrestorable: [],
    unchanged: [],
    diff: "",
  };
  for (const c of ws.store.changes(checkpointId)) {
    const [exp, target] = direction === "undo" ? [c.after, c.before] : [c.before, c.after];
    const refused = refusedPath(ws, c.path);
    if (refused) {
      plan.unrestorable.push({ path: c.path, reason: refused });
      continue;
    }
    const missing = notStored(ws, target);
    if (missing) {
      plan.unrestorable.push({ path: c.path, reason: missing });
      continue;
    }
    const current = currentState(ws, c.path);
    const step: RestoreStep = { path: c.path, expected: exp, target, current };
    if (same(current, target)) plan.unchanged.push(c.path);
    else if (same(current, exp)) plan.steps.push(step);
    else plan.conflicts.push({ ...step, reason: conflictReason(current, exp) });
  }
  plan.diff = [...plan.steps, ...plan.conflicts].map((s) => stepDiff(ws, s)).join("");
  return plan;
}

/**
 * Applies `plan`: its steps and, with `overwrite`, its conflicts (else they are skipped).
 * Each path is re-checked as it is written; see the module contract.
 */
export async function applyRestore(
  ws: Workspace,
  plan: RestorePlan,
  opts: { overwrite: boolean },
): Promise<RestoreResult> {
  const result: RestoreResult = {
    applied: [],
    skipped: opts.overwrite ? [] : plan.conflicts.map((c) => c.path),
    failed: [],
    unrestorable: [...plan.unrestorable],
  };
  const todo = opts.overwrite ? [...plan.steps, ...plan.conflicts] : plan.steps;
  await ws.writeAndAbsorb(() => {
    for (const step of todo) {
      const failure = writeState(ws, step.path, step.target, (d) => ws.content(d));
      if (failure) result.failed.push({ path: step.path, reason: failure });
      else result.applied.push(step.path);
    }
    if (result.applied.length || plan.steps.length + plan.conflicts.length === 0)
      ws.store.setCheckpointState(plan.checkpointId, plan.direction === "undo" ? "undone" : "live");
    return result.applied;
  });
  return result;
}

/** Why `path` is never written by a restore, or undefined. */
function refusedPath(ws: Workspace, path: string): string | undefined {
  const parts = path.split("/");
  if (parts.some((p) => p === "" || p === "." || p === ".." || p === ".git") || path.includes("\0"))
    return "not a path a restore may write (.git, or not inside the workspace)";
  if (ws.isOwnPath(path)) return "Tandem's own state; never written by a restore";
  return undefined;
}

/** Why `target` cannot be written (its contents were never stored, or are gone), or undefined. */
function notStored(ws: Workspace, target: FileState | null): string | undefined {
  if (target === null) return undefined;
  if (target.kind === "withheld")
    return "it held a secret value Tandem knows, so its contents were never stored: it cannot be restored";
  if (target.kind === "big") return "it was over the size limit, so its contents were never stored";
  if (!ws.content(target)) return "its contents are no longer stored (pruned)";
  return undefined;
}

const same = (cur: CurrentState, want: FileState | null): boolean => {
  if (cur === null || want === null) return cur === want;
  if (cur.kind === "other" || want.kind === "withheld" || want.kind === "big") return false;
  if (cur.kind !== want.kind || (cur as FileState).hash !== want.hash) return false;
  return want.kind === "link" || (cur as FileState).mode === want.mode;
};

function conflictReason(cur: CurrentState, exp: FileState | null): string {
  if (exp && (exp.kind === "withheld" || exp.kind === "big"))
    return "its contents after the turn were not stored, so a later edit cannot be ruled out";
  if (cur === null) return "it was removed since";
  if (cur.kind === "other") return `a ${(cur as { what: string }).what} stands there now`;
  if (exp === null) return "it was created since";
  if (cur.kind !== exp.kind)
    return cur.kind === "link" ? "it is a symbolic link now" : "it is no longer a link";
  return (cur as FileState).hash === exp.hash ? "its mode changed since" : "it was edited since";
}

/** What is at `path` now, read through its directory as it really is (never through a link). */
export function currentState(ws: Workspace, path: string): CurrentState {
  const parent = openParent(ws.root, path, false);
  if (parent === "missing") return null;
  if (parent === "refused") return { kind: "other", what: "symbolic link on the way" };
  try {
    const abs = join(parent.path, baseName(path));
    let st: Stats;
    try {
      st = lstatSync(abs);
    } catch {
      return null;
    }
    const mode = st.mode & 0o7777;
    if (st.isSymbolicLink()) {
      const target = Buffer.from(readlinkSync(abs));
      return { kind: "link", hash: hashOf(target), mode };
    }
    if (!st.isFile()) return { kind: "other", what: st.isDirectory() ? "directory" : "special file" };
    // Larger than any stored content: it differs from every stored state.
    const r = readRegular(abs, { maxBytes: ws.maxFileBytes, noFollow: true });
    if (!r.ok && r.reason === "too_large") return { kind: "big", hash: null, mode };
    if (!r.ok) return { kind: "other", what: "file that cannot be read" };
    if (ws.holdsSecret(r.data)) return { kind: "withheld", hash: null, mode };
    return { kind: "file", hash: hashOf(r.data), mode };
  } finally {
    parent.close();
  }
}

/**
 * Writes `state` at `path` (see the module contract); returns why it could not, or undefined.
 * `content` yields a state's bytes (a link's target).
 */
export function writeState(
  ws: Workspace,
  path: string,
  state: FileState | null,
  content: (s: FileState) => Buffer | null,
): string | undefined {
  const parent = openParent(ws.root, path, state !== null);
  if (parent === "missing") return state === null ? undefined : "its directory cannot be made";
  if (parent === "refused")
    return "a directory on its way is a symbolic link or not a directory now; nothing was written through it";
  const name = baseName(path);
  const abs = join(parent.path, name);
  try {
    const st = lstatOr(abs);
    if (st?.isDirectory()) return "a directory stands there now; it was left alone";
    if (state === null) {
      if (st) unlinkSync(abs); // removes the entry itself (a link is not followed)
      return undefined;
    }
    const data = content(state);
    if (!data) return "its contents are no longer stored";
    const tmp = join(parent.path, `.tandem-restore-${randomBytes(6).toString("hex")}`);
    try {
      if (state.kind === "link") symlinkSync(data.toString("utf8"), tmp);
      else writeNew(tmp, data, state.mode);
      renameSync(tmp, abs); // replaces the entry: a link planted there is replaced, not followed
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // never made
      }
      throw e;
    }
    return undefined;
  } catch (e) {
    return `cannot write it: ${(e as Error).message}`;
  } finally {
    parent.close();
  }
}

function writeNew(tmp: string, data: Buffer, mode: number): void {
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The directory holding `path`, opened from the root one component at a time, each checked to
 * be really there (`openDirExact`); with `create`, missing ones are made inside the checked
 * parent. `missing`: a component does not exist (and was not made); `refused`: one is a link
 * or not a directory.
 */
function openParent(root: string, path: string, create: boolean): DirHandle | "missing" | "refused" {
  const dirs = path.split("/").slice(0, -1);
  let handle = openDirExact(root);
  if (!handle) return "refused";
  let abs = root;
  for (const part of dirs) {
    const next = join(abs, part);
    let h = openDirExact(next);
    if (!h) {
      const st = lstatOr(join(handle.path, part));
      if (st) {
        handle.close();
        return "refused";
      }
      if (!create) {
        handle.close();
        return "missing";
      }
      try {
        mkdirSync(join(handle.path, part), { mode: 0o755 });
      } catch {
        // raced: checked below
      }
      h = openDirExact(next);
      if (!h) {
        handle.close();
        return "refused";
      }
    }
    handle.close();
    handle = h;
    abs = next;
  }
  return handle;
}

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

function lstatOr(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The unified diff of one step: from what is there now to what it writes. */
function stepDiff(ws: Workspace, s: RestoreStep): string {
  const cur = s.current;
  const oldText = cur === null ? null : cur.kind === "other" ? undefined : textOf(ws, cur, s.path, true);
  const newText = s.target === null ? null : textOf(ws, s.target, s.path, false);
  const oldName = cur === null ? "/dev/null" : headerPath("a/", s.path);
  const newName = s.target === null ? "/dev/null" : headerPath("b/", s.path);
  let head = `--- ${oldName}\n+++ ${newName}\n`;
  const oldMode = cur && cur.kind !== "other" ? (cur as FileState).mode : undefined;
  if (oldMode !== undefined && s.target && s.target.kind === "file" && oldMode !== s.target.mode)
    head = `old mode ${(0o100000 | oldMode).toString(8)}\nnew mode ${(0o100000 | s.target.mode).toString(8)}\n${head}`;
  if (oldText === undefined || newText === undefined) return `${head}Binary or unreadable contents differ\n`;
  const patch = structuredPatch("", "", oldText ?? "", newText ?? "", undefined, undefined, { context: 3 });
  let out = head;
  for (const h of patch.hunks) {
    out += `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n`;
    for (const l of h.lines) out += `${l}\n`;
  }
  return out;
}

/** A state's text for the diff; undefined when it is not shown as text. */
function textOf(ws: Workspace, s: FileState, path: string, current: boolean): string | undefined {
  if (s.kind === "link") {
    const target = current ? readLinkAt(ws, path) : ws.content(s)?.toString("utf8");
    return target === undefined ? undefined : `symbolic link -> ${target}\n`;
  }
  if (s.kind !== "file") return undefined;
  const data = current ? readFileAt(ws, path) : ws.content(s);
  if (!data || data.length > MAX_DIFF_BYTES || data.includes(0)) return undefined;
  return data.toString("utf8");
}

function readFileAt(ws: Workspace, path: string): Buffer | undefined {
  const parent = openParent(ws.root, path, false);
  if (typeof parent === "string") return undefined;
  try {
    const r = readRegular(join(parent.path, baseName(path)), { maxBytes: MAX_DIFF_BYTES, noFollow: true });
    return r.ok ? r.data : undefined;
  } finally {
    parent.close();
  }
}

function readLinkAt(ws: Workspace, path: string): string | undefined {
  const parent = openParent(ws.root, path, false);
  if (typeof parent === "string") return undefined;
  try {
    return readlinkSync(join(parent.path, baseName(path)));
  } catch {
    return undefined;
  } finally {
    parent.close();
  }
}
