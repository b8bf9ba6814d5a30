/**
 * Diffs for display: a unified diff (git style, as the runtime's `file_change` items and
 * `turn.diff` events carry) or a Codex-format patch (`*** Begin Patch`, the `apply_patch` input
 * stored in history) parsed into files of typed lines. Pure; the view colours lines by `t`.
 *
 * Contract: every input line lands in some file's lines (nothing is dropped, so a reader never
 * loses a change), except the header lines that name the file; text that is neither format
 * becomes one file named "patch" with context lines.
 */

export type DiffLineType = "add" | "del" | "ctx" | "hunk" | "meta";
export interface DiffLine {
  t: DiffLineType;
  text: string;
}
export type FileKind = "add" | "update" | "delete" | "move";
export interface DiffFile {
  path: string;
  kind: FileKind;
  move_path?: string;
  lines: DiffLine[];
}

function lineOf(raw: string): DiffLine {
  if (raw.startsWith("@@")) return { t: "hunk", text: raw };
  if (raw.startsWith("+")) return { t: "add", text: raw.slice(1) };
  if (raw.startsWith("-")) return { t: "del", text: raw.slice(1) };
  if (raw.startsWith("\\")) return { t: "meta", text: raw };
  return { t: "ctx", text: raw.startsWith(" ") ? raw.slice(1) : raw };
}

const strip = (p: string) => p.replace(/^[ab]\//, "").replace(/\t.*$/, "");

/** A unified diff of one or more files (`--- a/x` / `+++ b/x` headers). */
export function parseUnifiedDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let cur: DiffFile | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.startsWith("diff --git ")) continue;
    if (raw.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      const from = raw.slice(4);
      const to = lines[i + 1].slice(4);
      const kind: FileKind =
        from === "/dev/null"
          ? "add"
          : to === "/dev/null"
            ? "delete"
            : strip(from) !== strip(to)
              ? "move"
              : "update";
      cur = {
        path: strip(kind === "add" ? to : from),
        kind,
        ...(kind === "move" ? { move_path: strip(to) } : {}),
        lines: [],
      };
      files.push(cur);
      i++;
      continue;
    }
    if (!cur) {
      cur = { path: "diff", kind: "update", lines: [] };
      files.push(cur);
    }
    cur.lines.push(lineOf(raw));
  }
  return files;
}

/** A Codex `apply_patch` patch (`*** Begin Patch` … `*** End Patch`). */
export function parseCodexPatch(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let cur: DiffFile | undefined;
  const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
  for (const raw of text.replace(/\r\n/g, "\n").split("\n")) {
    const h = header.exec(raw);
    if (h) {
      const kind = h[1] === "Add" ? "add" : h[1] === "Delete" ? "delete" : "update";
      cur = { path: h[2].trim(), kind, lines: [] };
      files.push(cur);
      continue;
    }
    if (raw === "*** Begin Patch" || raw === "*** End Patch" || raw === "*** End of File") continue;
    const move = /^\*\*\* Move to: (.+)$/.exec(raw);
    if (move && cur) {
      cur.kind = "move";
      cur.move_path = move[1].trim();
      continue;
    }
    if (!cur) {
      if (raw.trim() === "") continue;
      cur = { path: "patch", kind: "update", lines: [] };
      files.push(cur);
    }
    if (raw === "" && cur.kind === "add") continue;
    cur.lines.push(lineOf(raw));
  }
  // A trailing empty line of the text is not a context line.
  for (const f of files)
    while (
      f.lines.length &&
      f.lines[f.lines.length - 1].text === "" &&
      f.lines[f.lines.length - 1].t === "ctx"
    )
      f.lines.pop();
  return files;
}

/** Lines added and removed in `files`. */
export function diffStat(files: DiffFile[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const f of files)
    for (const l of f.lines) {
      if (l.t === "add") added++;
      else if (l.t === "del") removed++;
    }
  return { added, removed };
}
