/**
 * A small, streaming-friendly Markdown parser for terminal display. Line based: a message is
 * parsed in chunks of complete lines as it streams, carrying only the code-fence state from one
 * chunk to the next, so already-printed lines never change.
 *
 * Supported: ``` / ~~~ fenced code (with language label), ATX headings, bullet and numbered lists
 * (nesting by indentation), block quotes, horizontal rules, and inline `code`, **bold**, *italic*,
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
  | { kind: "code"; text: string; lang: string };

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
  for (const raw of lines) {
    const line = raw.replace(/\t/g, "    ");
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
