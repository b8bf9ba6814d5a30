/**
 * Patches as ACP `diff` tool-call content and locations (pure).
 *
 * Contract:
 * - A diff is `{type: "diff", path, oldText, newText}` with an absolute path. Tandem keeps no whole
 *   files for display, so each *hunk* becomes one diff whose texts are the hunk's lines: context and
 *   removed lines on the old side, context and added lines on the new side (what other ACP agents
 *   send for an edit of part of a file). An added file has `oldText: null` and its whole text as
 *   `newText`; a deleted file `newText: ""`.
 * - `unifiedDiffs` reads the unified diffs of an applied patch (the tool's `file_change` display:
 *   what was written); `patchDiffs` reads the apply_patch text itself (what the model proposed:
 *   shown while the patch waits for approval, and when a stored thread is replayed).
 * - `patchPaths` lists the files a patch names (absolute, in patch order, moves by destination too).
 */
import { isAbsolute, resolve } from "node:path";

export interface AcpDiff {
  type: "diff";
  path: string;
  oldText: string | null;
  newText: string;
}

const abs = (cwd: string, path: string) => (isAbsolute(path) ? path : resolve(cwd, path));

interface Hunk {
  old: string[];
  new: string[];
}

/** Splits +/-/space lines into hunks at `@@` lines. */
function hunks(lines: string[]): Hunk[] {
  const out: Hunk[] = [];
  let cur: Hunk | undefined;
  for (const line of lines) {
    if (line.startsWith("@@")) {
      cur = { old: [], new: [] };
      out.push(cur);
      continue;
    }
    if (line.startsWith("\\")) continue; // "\ No newline at end of file"
    const mark = line[0];
    if (mark !== " " && mark !== "-" && mark !== "+") continue;
    if (!cur) {
      cur = { old: [], new: [] };
      out.push(cur);
    }
    const text = line.slice(1);
    if (mark !== "+") cur.old.push(text);
    if (mark !== "-") cur.new.push(text);
  }
  return out.filter((h) => h.old.length || h.new.length);
}

function hunkDiffs(path: string, kind: string, body: string[]): AcpDiff[] {
  const list = hunks(body);
  if (kind === "add")
    return [{ type: "diff", path, oldText: null, newText: list.flatMap((h) => h.new).join("\n") }];
  if (kind === "delete")
    return [{ type: "diff", path, oldText: list.flatMap((h) => h.old).join("\n"), newText: "" }];
  return list.map((h) => ({ type: "diff", path, oldText: h.old.join("\n"), newText: h.new.join("\n") }));
}

/** One applied change of the tool's `file_change` display item. */
export interface DisplayChange {
  path: string;
  kind: "add" | "update" | "delete" | "move";
  move_path?: string;
  diff: string;
}

/** Diffs of an applied patch (unified diffs, one per file). */
export function unifiedDiffs(changes: DisplayChange[], cwd: string): AcpDiff[] {
  return changes.flatMap((c) => {
    const lines = c.diff.split("\n").filter((l) => !l.startsWith("--- ") && !l.startsWith("+++ "));
    return hunkDiffs(abs(cwd, c.move_path ?? c.path), c.kind, lines);
  });
}

interface PatchFile {
  kind: "add" | "update" | "delete";
  path: string;
  movePath?: string;
  body: string[];
}

function patchFiles(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const m = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (m) {
      const kind = m[1] === "Add" ? "add" : m[1] === "Delete" ? "delete" : "update";
      files.push({ kind, path: m[2].trim(), body: [] });
      continue;
    }
    const last = files.at(-1);
    if (!last) continue;
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    if (move) last.movePath = move[1].trim();
    else if (!line.startsWith("***")) last.body.push(line);
  }
  return files;
}

/** The patch text of apply_patch arguments: the custom tool's input, or `{"input": patch}`. */
export function patchText(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (typeof parsed?.input === "string") return parsed.input;
  } catch {
    /* the custom tool's input is the patch itself */
  }
  return args;
}

/** Diffs the patch proposes (deleted files have no known text and are left out). */
export function patchDiffs(patch: string, cwd: string): AcpDiff[] {
  return patchFiles(patch)
    .filter((f) => f.kind !== "delete")
    .flatMap((f) => hunkDiffs(abs(cwd, f.movePath ?? f.path), f.kind, f.body));
}

/** Absolute paths the patch names, in order, without repeats. */
export function patchPaths(patch: string, cwd: string): string[] {
  const out = patchFiles(patch).flatMap((f) => [f.path, ...(f.movePath ? [f.movePath] : [])]);
  return [...new Set(out.map((p) => abs(cwd, p)))];
}
