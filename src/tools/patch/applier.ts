/**
 * Applying the chunks of one `*** Update File` to a file's text, in memory (pure).
 *
 * Contract of `applyChunks(text, chunks)`: returns the new text, or throws
 * `PatchApplyError` naming the chunk that failed, what it expected and where it looked.
 * Chunks apply in order; each is sought from where the previous one ended:
 * - each `@@ context` line is sought (fuzzily, see matcher.ts) and the search continues below it;
 * - the chunk's old lines (context + removed) are sought; with `*** End of File` first at the
 *   end of the file. If they are not found and end with a blank line, the search is retried
 *   without it (a blank separator line models leave before the next chunk or at the file end);
 * - a chunk with no old lines (only `+` lines) is inserted right below its last `@@` context
 *   line, or appended to the file when it has none. (The reference appends even with a
 *   context; inserting below it is what the model means.)
 *
 * What is written:
 * - Lines the chunk keeps (context) and lines outside chunks keep the file's exact text and
 *   line ending, so fuzzy matching never rewrites them (e.g. curly quotes stay curly).
 * - Added lines take the file's dominant line ending (CRLF files stay CRLF).
 * - Whether the file ends with a newline is preserved (an empty file gains one).
 */

import { closestMatch, type Match, seekSequence } from "./matcher.js";
import { type Chunk, type ChunkLine, oldLines } from "./parser.js";

/** A patch that parses but cannot be applied to the files as they are; nothing was written. */
export class PatchApplyError extends Error {
  override name = "PatchApplyError";
  static isInstance(e: unknown): e is PatchApplyError {
    return e instanceof Error && e.name === "PatchApplyError";
  }
}

/** A text split into lines without their endings, plus each line's ending. */
export interface Doc {
  lines: string[];
  /** `ends[i]` is "\n", "\r\n" or "" (only possible for the last line). */
  ends: string[];
  /** Dominant line ending: "\r\n" when most line breaks are CRLF, else "\n". */
  eol: string;
  /** True when the text is empty or ends with a line break. */
  finalNewline: boolean;
}

export function splitText(text: string): Doc {
  const lines: string[] = [];
  const ends: string[] = [];
  let crlf = 0;
  let lf = 0;
  let pos = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) {
      lines.push(text.slice(pos));
      ends.push("");
      break;
    }
    const cr = nl > pos && text.charCodeAt(nl - 1) === 13;
    lines.push(text.slice(pos, cr ? nl - 1 : nl));
    ends.push(cr ? "\r\n" : "\n");
    if (cr) crlf++;
    else lf++;
    pos = nl + 1;
  }
  const finalNewline = text.length === 0 || text.endsWith("\n");
  return { lines, ends, eol: crlf > lf ? "\r\n" : "\n", finalNewline };
}

export function joinText(doc: Pick<Doc, "lines" | "ends">): string {
  let out = "";
  for (let i = 0; i < doc.lines.length; i++) out += doc.lines[i] + doc.ends[i];
  return out;
}

interface Edit {
  start: number;
  oldLen: number;
  lines: ChunkLine[];
}

/** Lines of a chunk shown in errors: at most `max`, then how many more. */
function quote(lines: string[], max = 12): string {
  const shown = lines.slice(0, max).map((l) => `    ${l}`);
  if (lines.length > max) shown.push(`    … (${lines.length - max} more lines)`);
  return shown.join("\n");
}

function chunkName(c: Chunk, index: number, total: number): string {
  const where = c.contexts.length ? ` '@@ ${c.contexts[c.contexts.length - 1]}'` : "";
  return `chunk ${index + 1} of ${total}${where} (patch line ${c.line})`;
}

/** The chunk's lines without the last old line, when that line is blank; else undefined. */
function withoutBlankTail(lines: ChunkLine[]): ChunkLine[] | undefined {
  for (let k = lines.length - 1; k >= 0; k--) {
    if (lines[k].kind === "+") continue;
    if (lines[k].text.trim() !== "") return undefined;
    return [...lines.slice(0, k), ...lines.slice(k + 1)];
  }
  return undefined;
}

export function applyChunks(text: string, chunks: Chunk[]): string {
  const doc = splitText(text);
  const edits: Edit[] = [];
  let cursor = 0;
  chunks.forEach((c, n) => {
    for (const ctx of c.contexts) {
      const m = seekSequence(doc.lines, [ctx], cursor, false);
      if (!m)
        throw new PatchApplyError(
          `${chunkName(c, n, chunks.length)}: context line '@@ ${ctx}' was not found ` +
            `${cursor > 0 ? `after line ${cursor}` : "in the file"}.`,
        );
      cursor = m.index + 1;
    }
    let lines = c.lines;
    let old = oldLines(c);
    if (old.length === 0) {
      const at = c.contexts.length ? cursor : doc.lines.length;
      edits.push({ start: at, oldLen: 0, lines });
      cursor = at;
      return;
    }
    let m: Match | undefined = seekSequence(doc.lines, old, cursor, c.endOfFile);
    const shorter = m ? undefined : withoutBlankTail(lines);
    if (shorter) {
      const shorterOld = shorter.filter((l) => l.kind !== "+").map((l) => l.text);
      m = seekSequence(doc.lines, shorterOld, cursor, c.endOfFile);
      if (m) {
        lines = shorter;
        old = shorterOld;
      }
    }
    if (!m) throw new PatchApplyError(mismatch(doc, old, cursor, c, n, chunks.length));
    edits.push({ start: m.index, oldLen: old.length, lines });
    cursor = m.index + old.length;
  });
  return joinText(assemble(doc, edits));
}

function mismatch(doc: Doc, old: string[], cursor: number, c: Chunk, n: number, total: number): string {
  const where = c.endOfFile ? "at the end of the file" : cursor > 0 ? `after line ${cursor}` : "in the file";
  const parts = [`${chunkName(c, n, total)} did not match. Expected these lines ${where}:`, quote(old)];
  const near = closestMatch(doc.lines, old, cursor);
  if (near) {
    const found = doc.lines.slice(near.index, near.index + old.length);
    const nonBlank = old.filter((l) => l.trim() !== "").length;
    const same = near.identical > 0 ? ` (${near.identical} of ${nonBlank} lines identical)` : "";
    parts.push(`The most similar lines are at line ${near.index + 1}${same}:`, quote(found));
  }
  return parts.join("\n");
}

/** Applies ordered, non-overlapping edits to `doc`; fixes line endings as documented above. */
function assemble(doc: Doc, edits: Edit[]): Pick<Doc, "lines" | "ends"> {
  const lines: string[] = [];
  const ends: string[] = [];
  let pos = 0;
  for (const e of edits) {
    for (; pos < e.start; pos++) {
      lines.push(doc.lines[pos]);
      ends.push(doc.ends[pos]);
    }
    let old = e.start;
    for (const l of e.lines) {
      if (l.kind === "+") {
        lines.push(l.text);
        ends.push(doc.eol);
        continue;
      }
      if (l.kind === " ") {
        lines.push(doc.lines[old]);
        ends.push(doc.ends[old]);
      }
      old++;
    }
    pos = e.start + e.oldLen;
  }
  for (; pos < doc.lines.length; pos++) {
    lines.push(doc.lines[pos]);
    ends.push(doc.ends[pos]);
  }
  for (let i = 0; i < ends.length - 1; i++) if (ends[i] === "") ends[i] = doc.eol;
  if (ends.length > 0) ends[ends.length - 1] = doc.finalNewline ? ends[ends.length - 1] || doc.eol : "";
  return { lines, ends };
}
