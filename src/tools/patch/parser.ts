/**
 * Parser for the Codex patch format (requirements T3). Pure: text in, file operations out; it never
 * touches the file system (see applier.ts for that).
 *
 * Format (the strict form is the Lark grammar in grammar.ts):
 *
 *   *** Begin Patch
 *   *** Add File: path          then one `+line` per line of the new file
 *   *** Delete File: path
 *   *** Update File: path
 *   *** Move to: new/path       optional, right after Update File
 *   @@ optional context line    starts a chunk; several `@@` lines narrow step by step
 *    context / -removed / +added lines
 *   *** End of File             optional: the chunk's old lines end the file
 *   *** End Patch
 *
 * Leniency (each one safe: it never changes what a well-formed patch means):
 * - a heredoc wrapper (`<<'EOF'`, `apply_patch <<"PATCH"` … delimiter) or a Markdown code fence
 *   around the patch, surrounding blank lines, CRLF line breaks, a missing final newline;
 * - whitespace around marker lines (`*** …`), blank lines between file operations;
 * - a blank line inside a chunk is an empty context line (models drop the lone space), and a
 *   blank line between `+` lines of an added file is an empty line of that file;
 * - `@@ -12,7 +12,8 @@ text` (a unified-diff header) is read as `@@ text` — line numbers are ignored;
 * - `*** Update File` with `*** Move to` and no chunks is a pure rename.
 * A missing `*** End Patch` is NOT tolerated: it usually means the model's output was cut off.
 *
 * Contract of `parsePatch`: returns the operations in patch order, or throws `PatchParseError`
 * whose message names the 1-based patch line and says what was expected.
 */

export interface ChunkLine {
  /** " " context (kept), "-" removed, "+" added. */
  kind: " " | "-" | "+";
  text: string;
}

export interface Chunk {
  /** `@@ text` lines before the chunk body, sought in order to narrow where it applies. */
  contexts: string[];
  lines: ChunkLine[];
  /** `*** End of File` followed the chunk: its old lines should be the file's last lines. */
  endOfFile: boolean;
  /** 1-based patch line where the chunk starts (its first `@@` or body line). */
  line: number;
}

export type PatchOp =
  | { type: "add"; path: string; contents: string; line: number }
  | { type: "delete"; path: string; line: number }
  | { type: "update"; path: string; movePath?: string; chunks: Chunk[]; line: number };

export class PatchParseError extends Error {
  override name = "PatchParseError";
  /** 1-based line of the patch text (after any wrapper is removed), or 0 for the whole patch. */
  readonly line: number;
  constructor(message: string, line = 0) {
    super(line > 0 ? `invalid patch: line ${line}: ${message}` : `invalid patch: ${message}`);
    this.line = line;
  }
  static isInstance(e: unknown): e is PatchParseError {
    return e instanceof Error && e.name === "PatchParseError";
  }
}

export const BEGIN = "*** Begin Patch";
export const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARK = "*** End of File";

const HEADERS_HINT =
  "valid file headers are '*** Add File: <path>', '*** Delete File: <path>' and '*** Update File: <path>'";

/** Old lines (context + removed) of a chunk, in order. */
export const oldLines = (c: Chunk): string[] => c.lines.filter((l) => l.kind !== "+").map((l) => l.text);
/** New lines (context + added) of a chunk, in order. */
export const newLines = (c: Chunk): string[] => c.lines.filter((l) => l.kind !== "-").map((l) => l.text);

/** Splits `text` into lines, dropping any wrapper; `first` is the 1-based number of lines[0]. */
function unwrap(text: string): { lines: string[]; first: number } {
  let lines = text.split(/\r?\n/);
  let first = 1;
  const trimEdges = () => {
    while (lines.length > 0 && lines[0].trim() === "") {
      lines = lines.slice(1);
      first++;
    }
    while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines = lines.slice(0, -1);
  };
  trimEdges();
  if (lines.length >= 2) {
    const head = lines[0].trim();
    const last = lines[lines.length - 1].trim();
    const heredoc = /^(?:(?:apply_patch|applypatch)\s+)?<<-?\s*(['"]?)([A-Za-z_][\w]*)\1$/.exec(head);
    const fenced = head.startsWith("```") && last === "```";
    if ((heredoc && last === heredoc[2]) || fenced) {
      lines = lines.slice(1, -1);
      first++;
      trimEdges();
    }
  }
  return { lines, first };
}

/** Marker text of a line that starts with `***` (whitespace around it ignored), else undefined. */
function marker(line: string): string | undefined {
  const t = line.trim();
  return t.startsWith("***") ? t : undefined;
}

/** Whether `mark` is the header `prefix` (with a path, or bare: then the path is missing). */
function isHeader(mark: string | undefined, prefix: string): mark is string {
  return mark !== undefined && (mark.startsWith(prefix) || mark === prefix.trimEnd());
}

function pathAfter(prefix: string, mark: string, lineNo: number): string {
  const path = mark.slice(prefix.length).trim();
  if (path === "") throw new PatchParseError(`'${prefix.trim()}' needs a path`, lineNo);
  return path;
}

/** `@@`, `@@ text` or `@@ -a,b +c,d @@ text` → the context text ("" for none); else undefined. */
function chunkHeader(line: string): string | undefined {
  const t = line.trimEnd();
  if (t === "@@") return "";
  if (!t.startsWith("@@ ")) return undefined;
  const rest = t.slice(3);
  const unified = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/.exec(rest);
  return unified ? unified[1] : rest;
}

export function parsePatch(text: string): PatchOp[] {
  const { lines, first } = unwrap(text);
  if (lines.length === 0)
    throw new PatchParseError("the patch is empty; it must start with '*** Begin Patch'");
  if (lines[0].trim() !== BEGIN)
    throw new PatchParseError(`the first line must be '${BEGIN}', got '${clip(lines[0])}'`, first);
  const endAt = lines.length - 1;
  if (endAt === 0 || lines[endAt].trim() !== END)
    throw new PatchParseError(
      `the last line must be '${END}' (got '${clip(lines[endAt])}'); was the patch cut off?`,
      first + endAt,
    );

  const ops: PatchOp[] = [];
  let i = 1;
  const no = (k: number) => first + k;
  while (i < endAt) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const mark = marker(line);
    if (isHeader(mark, ADD)) {
      const path = pathAfter(ADD, mark, no(i));
      const start = i++;
      const body: string[] = [];
      while (i < endAt) {
        if (lines[i].startsWith("+")) body.push(lines[i++].slice(1));
        else if (lines[i].trim() === "" && nextFilled(lines, i, endAt)?.startsWith("+")) {
          body.push("");
          i++;
        } else break;
      }
      ops.push({ type: "add", path, contents: body.length ? `${body.join("\n")}\n` : "", line: no(start) });
    } else if (isHeader(mark, DELETE)) {
      ops.push({ type: "delete", path: pathAfter(DELETE, mark, no(i)), line: no(i) });
      i++;
    } else if (isHeader(mark, UPDATE)) {
      const r = parseUpdate(lines, i, endAt, no);
      ops.push(r.op);
      i = r.next;
    } else {
      const what = mark === END ? `'${END}' before the end of the patch` : `'${clip(line)}'`;
      throw new PatchParseError(`unexpected ${what}: ${HEADERS_HINT}`, no(i));
    }
  }
  if (ops.length === 0) throw new PatchParseError("the patch contains no file operations", no(1));
  return ops;
}

function parseUpdate(
  lines: string[],
  start: number,
  endAt: number,
  no: (k: number) => number,
): { op: PatchOp; next: number } {
  const path = pathAfter(UPDATE, marker(lines[start])!, no(start));
  let i = start + 1;
  let movePath: string | undefined;
  const moveMark = i < endAt ? marker(lines[i]) : undefined;
  if (isHeader(moveMark, MOVE)) {
    movePath = pathAfter(MOVE, moveMark, no(i));
    i++;
  }
  const chunks: Chunk[] = [];
  let current: Chunk | undefined;
  const close = (at: number) => {
    if (!current) return;
    if (current.lines.length === 0)
      throw new PatchParseError(
        `chunk of '${path}' has no lines after its '@@' header; add context, '-' and '+' lines`,
        no(at),
      );
    chunks.push(current);
    current = undefined;
  };
  while (i < endAt) {
    const line = lines[i];
    const mark = marker(line);
    if (mark !== undefined && !line.startsWith(" ")) {
      if (mark === EOF_MARK) {
        if (!current || current.lines.length === 0)
          throw new PatchParseError(`'${EOF_MARK}' must follow the lines of a chunk`, no(i));
        current.endOfFile = true;
        close(i);
        i++;
        continue;
      }
      break; // next file operation (or an error the caller reports)
    }
    const ctx = chunkHeader(line);
    if (ctx !== undefined) {
      if (current && current.lines.length > 0) close(i);
      current ??= { contexts: [], lines: [], endOfFile: false, line: no(i) };
      if (ctx.trim() !== "") current.contexts.push(ctx);
      i++;
      continue;
    }
    const kind = line[0];
    const blank = line.trim() === "" && kind !== " ";
    if (blank || kind === " " || kind === "+" || kind === "-") {
      current ??= { contexts: [], lines: [], endOfFile: false, line: no(i) };
      current.lines.push(
        blank ? { kind: " ", text: "" } : { kind: kind as ChunkLine["kind"], text: line.slice(1) },
      );
      i++;
      continue;
    }
    throw new PatchParseError(
      `unexpected line '${clip(line)}' in the update of '${path}': every chunk line must start with ` +
        `' ' (context), '-' (remove) or '+' (add); chunks start with '@@'`,
      no(i),
    );
  }
  close(i);
  if (chunks.length === 0 && movePath === undefined)
    throw new PatchParseError(
      `'*** Update File: ${path}' has no changes; add '@@' chunks (or '*** Move to:' to rename)`,
      no(start),
    );
  const op: PatchOp = { type: "update", path, chunks, line: no(start) };
  if (movePath !== undefined) op.movePath = movePath;
  return { op, next: i };
}

/** The next line after `i` that is not blank, if any before `endAt`. */
function nextFilled(lines: string[], i: number, endAt: number): string | undefined {
  for (let k = i + 1; k < endAt; k++) if (lines[k].trim() !== "") return lines[k];
  return undefined;
}

function clip(s: string | undefined, max = 80): string {
  if (s === undefined) return "";
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
