/**
 * The question overlay's geometry, pure: option rows pre-wrapped into lines of a known width (so
 * their heights are exact), and the window of rows that fits the height the overlay may use.
 *
 * Why: Ink clears the whole terminal — scrollback included — when its live area reaches the
 * terminal's height, so a tall overlay on a small terminal used to wipe the transcript. The
 * overlay therefore lays out its options here and shows only the rows that fit, with "more
 * above/below" lines, always including the focused row.
 *
 * Option row layout (columns): `› ` focus marker (2), the number right-aligned to the widest
 * number, `. `, the mark (`( )`/`[x]`), a space, the label, then the description — in its own
 * column after the longest label when that leaves room, else on the lines below, indented under
 * the label. Wrapped lines keep their column.
 */
import { printable } from "../../util/printable.js";
import { displayWidth, wrapPieces } from "./ansi.js";

export interface OptionLine {
  /** Number, mark and label part (padded to the description column), or indentation. */
  head: string;
  /** Description part (may be empty). */
  desc: string;
}

export interface OptionRowInput {
  label: string;
  description?: string;
  mark: string;
}

/** Columns of the focus marker before every row. */
export const MARKER = 2;
/** A description column narrower than this moves the description below the label. */
const MIN_DESC = 16;
const MAX_LABEL = 32;

const wrap = (text: string, width: number): string[] =>
  wrapPieces([{ text }], Math.max(1, width)).map((l) => l.map((p) => p.text).join(""));

const pad = (s: string, w: number) => s + " ".repeat(Math.max(0, w - displayWidth(s)));

/**
 * Lines for every option row at `width` columns (the focus marker included in the width). `count`
 * is the number of numbered rows (options plus an Other row), for the number column.
 */
export function optionRows(rows: OptionRowInput[], width: number, count = rows.length): OptionLine[][] {
  const numW = String(Math.max(1, count)).length;
  const inner = Math.max(1, width - MARKER);
  const lead = numW + 2 + Math.max(0, ...rows.map((r) => displayWidth(r.mark))) + 1;
  const labelW = Math.min(MAX_LABEL, Math.max(0, ...rows.map((r) => displayWidth(r.label))));
  const descCol = lead + labelW + 2;
  const beside = inner - descCol >= MIN_DESC;
  return rows.map((r, i) => {
    const first = `${String(i + 1).padStart(numW)}. ${r.mark} `;
    const indent = " ".repeat(displayWidth(first));
    const labels = wrap(r.label, inner - lead);
    const lines: OptionLine[] = labels.map((l, j) => ({ head: (j === 0 ? first : indent) + l, desc: "" }));
    if (!r.description) return lines;
    if (beside) {
      const descs = wrap(r.description, inner - descCol);
      const n = Math.max(lines.length, descs.length);
      const out: OptionLine[] = [];
      for (let j = 0; j < n; j++)
        out.push({ head: pad(lines[j]?.head ?? "", descCol), desc: descs[j] ?? "" });
      return out;
    }
    for (const d of wrap(r.description, inner - lead)) lines.push({ head: indent, desc: d });
    return lines;
  });
}

export interface Window {
  /** First and one-past-last row shown. */
  start: number;
  end: number;
  /** Lines the last shown row may use (it is cut when even alone it does not fit). */
  lastLines: number;
}

/**
 * The rows to show: all when they fit in `budget` lines; else a contiguous range holding `focus`,
 * with one line taken by "↑ n more" when rows are hidden above and one by "↓ n more" below.
 * `prevStart` keeps the window still while the focus moves inside it.
 */
export function scrollWindow(heights: number[], focus: number, budget: number, prevStart = 0): Window {
  const n = heights.length;
  const b = Math.max(1, budget);
  const sum = (s: number, e: number) => heights.slice(s, e).reduce((a, h) => a + h, 0);
  if (sum(0, n) <= b) return { start: 0, end: n, lastLines: heights[n - 1] ?? 0 };
  const f = Math.max(0, Math.min(n - 1, focus));
  const fits = (s: number, e: number) => (s > 0 ? 1 : 0) + sum(s, e) + (e < n ? 1 : 0) <= b;
  let start = Math.max(0, Math.min(prevStart, f));
  while (start < f && !fits(start, f + 1)) start++;
  let end = f + 1;
  while (end < n && fits(start, end + 1)) end++;
  while (start > 0 && fits(start - 1, end)) start--;
  const room = b - (start > 0 ? 1 : 0) - (end < n ? 1 : 0) - sum(start, end - 1);
  return { start, end, lastLines: Math.max(1, Math.min(heights[end - 1], room)) };
}

/** Lines a text of `text` columns takes when wrapped at `width` (at least one). */
export function linesFor(textWidth: number, width: number): number {
  return Math.max(1, Math.ceil(textWidth / Math.max(1, width)));
}

/**
 * Word-wraps plain text to `width` columns; at most `max` lines (the last cut with "…"). Control
 * characters are made visible first (util/printable.ts): prompts and approvals carry the model's
 * text, which must not move the cursor or erase what the user reads.
 */
export function wrapText(text: string, width: number, max = Number.POSITIVE_INFINITY): string[] {
  const lines = printable(text)
    .split("\n")
    .flatMap((l) => wrap(l, width));
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, Math.max(1, max));
  const last = kept[kept.length - 1];
  kept[kept.length - 1] = `${[...last].slice(0, Math.max(0, width - 1)).join("")}…`;
  return kept;
}
