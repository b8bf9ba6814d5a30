/**
 * A small, streaming-friendly Markdown parser for terminal display. Line based: a message is
 * parsed in chunks of complete lines as it streams, carrying only the code-fence state from one
 * chunk to the next, so already-printed lines never change.
 *
 * Supported: ``` / ~~~ fenced code (with language label), ATX headings, bullet and numbered lists
 * (nesting by indentation), block quotes, horizontal rules, GFM tables (a header row, a
 * `|---|:--:|` separator, body rows; a table is one `MdLine`, so a streaming message holds its
 * table rows back until the table ends: `tableTail`), and inline `code`, **bold**, *italic*,
 * ~~strike~~ and [links](url). Anything else is plain text. Pure: views render `MdLine`s.
 */

export interface FenceState {
  inCode: boolean;
  /** The opening fence marker (``` or ~~~, possibly longer); a closing fence must match it. */
  fence: string;
  lang: string;
}

export const NO_FENCE: FenceState = { inCode: false, fence: "", lang: "" };

export interface Span {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  strike?: boolean;
  link?: boolean;
}

export type MdLine =
  | { kind: "text"; spans: Span[] }
  | { kind: "blank" }
  | { kind: "heading"; level: number; spans: Span[] }
  | { kind: "list"; indent: number; marker: string; spans: Span[] }
  | { kind: "quote"; spans: Span[] }
  | { kind: "rule" }
  | { kind: "fence"; lang: string; open: boolean }
  | { kind: "code"; text: string; lang: string }
  | { kind: "table"; align: Align[]; header: Span[][]; rows: Span[][][] };

export type Align = "left" | "center" | "right";

const ROW_RE = /^\s{0,3}\|.*\|\s*$/;
const SEP_CELL_RE = /^\s*:?-{1,}:?\s*$/;

/** The cells of a `| a | b |` row (escaped `\|` stays inside a cell). */
function cells(line: string): string[] {
  const body = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return body.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function separator(line: string | undefined): Align[] | undefined {
  if (line === undefined || !ROW_RE.test(line)) return undefined;
  const parts = cells(line);
  if (!parts.every((c) => SEP_CELL_RE.test(c))) return undefined;
  return parts.map((c) =>
    c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : "left",
  );
}

/**
 * How many lines at the end of `lines` (outside code) could still belong to a table that is not
 * finished: a run of `|…|` rows. A streaming message commits only the lines before them.
 */
export function tableTail(lines: string[], start: FenceState = NO_FENCE): number {
  if (fenceAfter(lines, start).inCode) return 0;
  let n = 0;
  while (n < lines.length && ROW_RE.test(lines[lines.length - 1 - n])) n++;
  return n;
}

const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING_RE = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_RE = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE_RE = /^\s{0,3}>\s?(.*)$/;
const RULE_RE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

/** Parses complete lines starting in fence state `start`; returns the lines and the state after them. */
export function parseLines(
  lines: string[],
  start: FenceState = NO_FENCE,
): { out: MdLine[]; end: FenceState } {
  let state = start;
  const out: MdLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\t/g, "    ");
    const fence = FENCE_RE.exec(line);
    if (state.inCode) {
      const closes =
        fence && fence[1][0] === state.fence[0] && fence[1].length >= state.fence.length && !fence[2];
      if (closes) {
        out.push({ kind: "fence", lang: state.lang, open: false });
        state = NO_FENCE;
      } else out.push({ kind: "code", text: line, lang: state.lang });
      continue;
    }
    if (fence) {
      state = { inCode: true, fence: fence[1], lang: fence[2] ?? "" };
      out.push({ kind: "fence", lang: state.lang, open: true });
      continue;
    }
    const align = ROW_RE.test(line) ? separator(lines[i + 1]) : undefined;
    if (align) {
      const header = cells(line).map(inline);
      const rows: Span[][][] = [];
      i += 1;
      while (i + 1 < lines.length && ROW_RE.test(lines[i + 1])) {
        i += 1;
        rows.push(cells(lines[i]).map(inline));
      }
      out.push({ kind: "table", align, header, rows });
      continue;
    }
    if (line.trim() === "") {
      out.push({ kind: "blank" });
      continue;
    }
    if (RULE_RE.test(line)) {
      out.push({ kind: "rule" });
      continue;
    }
    const h = HEADING_RE.exec(line);
    if (h) {
      out.push({ kind: "heading", level: h[1].length, spans: inline(h[2]) });
      continue;
    }
    const li = LIST_RE.exec(line);
    if (li) {
      const ordered = /\d/.test(li[2]);
      const marker = ordered ? li[2].replace(")", ".") : "•";
      out.push({ kind: "list", indent: Math.floor(li[1].length / 2), marker, spans: inline(li[3]) });
      continue;
    }
    const qm = QUOTE_RE.exec(line);
    if (qm) {
      out.push({ kind: "quote", spans: inline(qm[1]) });
      continue;
    }
    out.push({ kind: "text", spans: inline(line.trim() === line ? line : line.trimStart()) });
  }
  return { out, end: state };
}

/** The fence state after `lines` (cheaper than parsing when only the state is needed). */
export function fenceAfter(lines: string[], start: FenceState = NO_FENCE): FenceState {
  let state = start;
  for (const line of lines) {
    const fence = FENCE_RE.exec(line);
    if (!fence) continue;
    if (!state.inCode) state = { inCode: true, fence: fence[1], lang: fence[2] ?? "" };
    else if (fence[1][0] === state.fence[0] && fence[1].length >= state.fence.length && !fence[2])
      state = NO_FENCE;
  }
  return state;
}

const INLINE_RE =
  /(`+)([^`]+?)\1|\*\*(.+?)\*\*|__(.+?)__|~~(.+?)~~|\[([^\]]+)\]\(([^)\s]+)\)|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])/g;

/** Inline spans of one line of text. Unclosed markers stay literal. */
export function inline(text: string): Span[] {
  const spans: Span[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE_RE)) {
    const at = m.index ?? 0;
    if (at > last) spans.push({ text: text.slice(last, at) });
    if (m[2] !== undefined) spans.push({ text: m[2], code: true });
    else if (m[3] !== undefined) spans.push(...inline(m[3]).map((s) => ({ ...s, bold: true })));
    else if (m[4] !== undefined) spans.push(...inline(m[4]).map((s) => ({ ...s, bold: true })));
    else if (m[5] !== undefined) spans.push(...inline(m[5]).map((s) => ({ ...s, strike: true })));
    else if (m[6] !== undefined) {
      spans.push({ text: m[6], link: true });
      if (m[7] !== m[6]) spans.push({ text: ` (${m[7]})` });
    } else if (m[8] !== undefined) spans.push(...inline(m[8]).map((s) => ({ ...s, italic: true })));
    else if (m[9] !== undefined) spans.push(...inline(m[9]).map((s) => ({ ...s, italic: true })));
    last = at + m[0].length;
  }
  if (last < text.length) spans.push({ text: text.slice(last) });
  return spans;
}

/** Plain text of a parsed line (tests, width estimates). */
export function plain(line: MdLine): string {
  switch (line.kind) {
    case "blank":
    case "rule":
      return line.kind === "rule" ? "───" : "";
    case "fence":
      return line.open ? `[${line.lang || "code"}]` : "";
    case "code":
      return line.text;
    case "list":
      return `${"  ".repeat(line.indent)}${line.marker} ${line.spans.map((s) => s.text).join("")}`;
    case "table":
      return [line.header, ...line.rows]
        .map((r) => r.map((c) => c.map((s) => s.text).join("")).join(" | "))
        .join("\n");
    default:
      return line.spans.map((s) => s.text).join("");
  }
}

const BALANCED = [/\*\*/g, /`/g, /~~/g];

/**
 * Where to split a long, unfinished plain-text line so its head can be printed now: after the
 * last sentence end (else the last space) that leaves at least a short tail, never inside an
 * inline span. `end` is where the head ends, `next` where the tail starts. Undefined when the
 * line is a list item, quote or heading (a split would lose its layout) or has no safe point.
 */
export function softBreak(text: string, limit: number): { end: number; next: number } | undefined {
  if (/^\s*([-*+]|\d{1,9}[.)])\s|^\s{0,3}(>|#)/.test(text)) return undefined;
  const window = text.slice(0, Math.max(limit, text.length - 40));
  const balanced = (head: string) => BALANCED.every((re) => (head.match(re)?.length ?? 0) % 2 === 0);
  const candidates = [...window.matchAll(/[.!?:;]\s+/g)].reverse();
  for (const m of candidates) {
    const end = (m.index ?? 0) + 1;
    if (end >= limit / 2 && balanced(text.slice(0, end))) return { end, next: end + m[0].length - 1 };
  }
  for (let i = window.lastIndexOf(" "); i > limit / 2; i = window.lastIndexOf(" ", i - 1)) {
    if (balanced(text.slice(0, i))) {
      let next = i;
      while (text[next] === " ") next++;
      return { end: i, next };
    }
  }
  return undefined;
}
