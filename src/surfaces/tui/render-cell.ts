/**
 * Renders transcript cells (and the live message tail) to terminal text: wrapped to the
 * terminal width with hanging indents, styled with SGR codes when `color` is on. Pure.
 *
 * This is the only renderer of the transcript: committed cells are written once to the terminal
 * as these strings (bypassing Ink's layout, which costs microseconds per character and would
 * make opening a long thread slow); the live area shows the same strings inside Ink.
 *
 * Every string of a cell (model text, command output, tool results, file names, error messages)
 * passes util/terminal-text.ts first (`safeCell`), so nothing a model, a program or a server
 * wrote can act on the terminal; only the SGR colours of command output, and this module's own
 * styling, reach it as escape sequences. Commands are shown strictly (util/printable.ts).
 */

import { findingPlace } from "../../protocol/review.js";
import { printable } from "../../util/printable.js";
import { terminalText } from "../../util/terminal-text.js";
import { block, displayWidth, hardWrap, type Piece, paint, row, type Style, wrapPieces } from "./ansi.js";
import type { Cell } from "./cells.js";
import { answerRows, compact, duration, fold, outcomeTitle } from "./format.js";
import { highlightLine } from "./highlight.js";
import { type MdLine, parseLines, type Span } from "./markdown.js";

export interface RenderOptions {
  width: number;
  color: boolean;
}

const DIM: Style = { dim: true };
const S = {
  accent: { color: "cyan" },
  user: { color: "blue", bold: true },
  code: { color: "cyan" },
  ok: { color: "green" },
  warn: { color: "yellow" },
  error: { color: "red" },
  question: { color: "yellow" },
  demo: { color: "magenta" },
} as const satisfies Record<string, Style>;

const p = (text: string, style?: Style): Piece => ({ text, style });
const spaces = (n: number) => p(" ".repeat(n));

function spanPieces(spans: Span[], base: Style = {}): Piece[] {
  return spans.map((s) => {
    const style: Style = { ...base };
    if (s.bold) style.bold = true;
    if (s.italic) style.italic = true;
    if (s.strike) style.strike = true;
    if (s.code) style.color = "cyan";
    if (s.link) {
      style.color = "blue";
      style.underline = true;
    }
    return p(s.text, style);
  });
}

/** One parsed Markdown line behind `lead` (first row) / `cont` (wrapped rows). */
export function renderMdLine(line: MdLine, lead: Piece[], cont: Piece[], o: RenderOptions): string[] {
  const { width, color } = o;
  switch (line.kind) {
    case "blank":
      return [""];
    case "rule":
      return block(lead, cont, [p("─".repeat(Math.min(24, width - 4)), DIM)], width, color);
    case "fence":
      return block(lead, cont, [p(line.open ? `┌ ${line.lang || "code"}` : "└", DIM)], width, color);
    case "code": {
      const rows = hardWrap(line.text || " ", width - 4 - 2);
      return rows.map((r, i) =>
        row([...(i === 0 ? lead : cont), p("│ ", DIM), ...highlightLine(r, line.lang)], color),
      );
    }
    case "heading":
      return block(
        lead,
        cont,
        spanPieces(line.spans, { bold: true, color: "magenta", underline: line.level === 1 }),
        width,
        color,
      );
    case "list": {
      const marker = `${"  ".repeat(line.indent)}${line.marker} `;
      return block(
        [...lead, p(marker)],
        [...cont, spaces(marker.length)],
        spanPieces(line.spans),
        width,
        color,
      );
    }
    case "quote":
      return block(
        [...lead, p("▌ ", DIM)],
        [...cont, p("▌ ", DIM)],
        spanPieces(line.spans, { italic: true, dim: true }),
        width,
        color,
      );
    case "table":
      return renderTable(line, lead, cont, o);
    default:
      return block(lead, cont, spanPieces(line.spans), width, color);
  }
}

const cellText = (c: Span[]) => c.map((s) => s.text).join("");

/** Cuts `spans` to `max` columns, ending in "…" when something was cut. */
function fitSpans(spans: Span[], max: number): Span[] {
  if (displayWidth(cellText(spans)) <= max) return spans;
  const out: Span[] = [];
  let left = max - 1;
  for (const s of spans) {
    if (left <= 0) break;
    let text = "";
    for (const ch of s.text) {
      if (displayWidth(text + ch) > left) break;
      text += ch;
    }
    out.push({ ...s, text });
    left -= displayWidth(text);
  }
  out.push({ text: "…" });
  return out;
}

/**
 * A GFM table as aligned columns (`│` between them, a rule under the header). Columns wider than
 * the terminal allows are narrowed from the widest down and their cells cut with "…".
 */
function renderTable(
  t: Extract<MdLine, { kind: "table" }>,
  lead: Piece[],
  cont: Piece[],
  o: RenderOptions,
): string[] {
  const all = [t.header, ...t.rows];
  const n = Math.max(t.align.length, ...all.map((r) => r.length));
  const widths = Array.from({ length: n }, (_, i) =>
    Math.max(1, ...all.map((r) => displayWidth(cellText(r[i] ?? [])))),
  );
  const room = o.width - displayWidth(lead.map((x) => x.text).join("")) - 3 * (n - 1);
  while (widths.reduce((a, b) => a + b, 0) > room && Math.max(...widths) > 1) {
    widths[widths.indexOf(Math.max(...widths))] -= 1;
  }
  const line = (cells: Span[][], base: Style, first: boolean): string => {
    const pieces: Piece[] = [...(first ? lead : cont)];
    for (let i = 0; i < n; i++) {
      const spans = fitSpans(cells[i] ?? [], widths[i]);
      const gap = widths[i] - displayWidth(cellText(spans));
      const align = t.align[i] ?? "left";
      const before = align === "right" ? gap : align === "center" ? Math.floor(gap / 2) : 0;
      if (i > 0) pieces.push(p(" │ ", DIM));
      pieces.push(spaces(before), ...spanPieces(spans, base), spaces(gap - before));
    }
    return row(pieces, o.color);
  };
  const rule = row([...cont, p(widths.map((w) => "─".repeat(w)).join("─┼─"), DIM)], o.color);
  return [line(t.header, { bold: true }, true), rule, ...t.rows.map((r) => line(r, {}, false))];
}

/** Plain multi-line text (user input, notices) wrapped behind prefixes. */
function paragraph(
  text: string,
  lead: Piece[],
  cont: Piece[],
  style: Style | undefined,
  o: RenderOptions,
): string[] {
  return text.split("\n").flatMap((line, i) => {
    const l = indented(line, i === 0 ? lead : cont, cont);
    return block(l.lead, l.cont, [p(l.text, style)], o.width, o.color);
  });
}

/**
 * `line`'s leading whitespace moved into its lead pieces (kept on wrapped rows too): word
 * wrapping drops spaces at the start of a row, which lost a diff's context-line space and the
 * indentation of help text and heredocs.
 */
function indented(
  line: string,
  lead: Piece[],
  cont: Piece[],
): { lead: Piece[]; cont: Piece[]; text: string } {
  const ws = /^[ \t]*/.exec(line)![0];
  if (!ws) return { lead, cont, text: line };
  const pad = spaces(ws.replace(/\t/g, "    ").length);
  return { lead: [...lead, pad], cont: [...cont, pad], text: line.slice(ws.length) };
}

function cellLines(cell: Cell, o: RenderOptions): string[] {
  const { width, color } = o;
  switch (cell.kind) {
    case "banner": {
      const inner = Math.min(width - 4, Math.max(displayWidth(cell.title), ...cell.lines.map(displayWidth)));
      const border = (t: string) => paint(t, S.demo, color);
      const texts: Piece[] = [
        p(cell.title, { bold: true, color: "magenta" }),
        ...cell.lines.map((l) => p(l)),
      ];
      const rows = texts.flatMap((t) =>
        wrapPieces([t], inner).map((line) => {
          const used = displayWidth(line.map((x) => x.text).join(""));
          const body = line.map((x) => paint(x.text, x.style, color)).join("");
          return `${border("│ ")}${body}${" ".repeat(Math.max(0, inner - used))}${border(" │")}`;
        }),
      );
      return [border(`╭${"─".repeat(inner + 2)}╮`), ...rows, border(`╰${"─".repeat(inner + 2)}╯`)];
    }
    case "user":
      return [
        "",
        ...paragraph(
          cell.late
            ? `${cell.text}  (the turn ended before reading it; the model gets it with your next message)`
            : cell.text,
          [p("› ", S.user)],
          [spaces(2)],
          undefined,
          o,
        ),
      ];
    case "agent": {
      const out = cell.first ? [""] : [];
      cell.lines.forEach((line, i) => {
        const lead = cell.first && i === 0 ? [p("• ")] : [spaces(2)];
        out.push(...renderMdLine(line, lead, [spaces(2)], o));
      });
      return out;
    }
    case "reasoning":
      return paragraph(`thinking: ${cell.text}`, [], [spaces(2)], { dim: true, italic: true }, o);
    case "exec": {
      const ok = cell.status === "completed" && (cell.exitCode === 0 || cell.exitCode === null);
      // Each line of a multi-line command (a heredoc) wraps under its own start, inside the cell.
      const head = printable(cell.command)
        .split("\n")
        .flatMap((line, i) => {
          const l = indented(line, i === 0 ? [p("$ ", ok ? S.ok : S.error)] : [spaces(2)], [spaces(2)]);
          return block(l.lead, l.cont, [p(l.text, { bold: true })], width, color);
        });
      // A declined command's output is addressed to the model; the user gets their own words.
      const declined = cell.status === "declined" && cell.output.startsWith("The user declined");
      const output = declined ? "You declined this command." : cell.output;
      const body = fold(output).flatMap((l) =>
        hardWrap(l, width - 4).map((r) => paint(`  │ ${r}`, DIM, color)),
      );
      const end =
        cell.status === "interrupted"
          ? `interrupted${cell.exitCode === null ? "" : ` (exit ${cell.exitCode})`}`
          : cell.exitCode === null
            ? cell.status
            : `exit ${cell.exitCode}`;
      return [...head, ...body, paint(`  └ ${end}`, DIM, color)];
    }
    case "review": {
      if (!cell.result)
        return [
          ...block(
            [p("◈ ", S.error)],
            [spaces(2)],
            [p("Review: the answer could not be read", { bold: true })],
            width,
            color,
          ),
          ...paragraph(cell.error ?? "", [spaces(2)], [spaces(2)], DIM, o),
        ];
      const r = cell.result;
      const n = r.findings.length;
      const head = `Review — ${n ? `${n} finding${n === 1 ? "" : "s"}` : "no findings"}`;
      const out = block([p("◈ ", n ? S.warn : S.ok)], [spaces(2)], [p(head, { bold: true })], width, color);
      const tone = [S.error, S.warn, S.accent, DIM];
      for (const f of r.findings) {
        const place = findingPlace(f, cell.cwd);
        out.push(
          ...block(
            [spaces(2), p(`P${f.priority} `, tone[f.priority] ?? DIM)],
            [spaces(5)],
            [p(f.title, { bold: true }), ...(place ? [p(`  ${place}`, DIM)] : [])],
            width,
            color,
          ),
        );
        for (const line of parseLines(f.body.split("\n")).out)
          out.push(...renderMdLine(line, [spaces(5)], [spaces(5)], o));
      }
      const overall = [r.overall_correctness, r.overall_explanation].filter(Boolean).join(" — ");
      if (overall) out.push(...paragraph(overall, [spaces(2)], [spaces(2)], { italic: true }, o));
      return out;
    }
    case "agents": {
      const tone: Record<string, Style> = {
        completed: S.ok,
        started: S.accent,
        running: S.accent,
        waiting_on_user: S.warn,
        failed: S.error,
        interrupted: S.warn,
      };
      const out = block([p("◇ ", S.accent)], [spaces(2)], [p(cell.title, { bold: true })], width, color);
      for (const a of cell.agents) {
        const who = [p("● ", tone[a.status] ?? DIM), p(a.name, { bold: true })];
        if (a.role) who.push(p(` (${a.role})`, DIM));
        who.push(p(` · ${a.status.replace(/_/g, " ")}`, tone[a.status] ?? DIM));
        out.push(...block([spaces(2)], [spaces(4)], who, width, color));
        if (a.error) out.push(...paragraph(a.error, [spaces(4)], [spaces(4)], S.error, o));
        if (a.message)
          for (const line of parseLines(a.message.split("\n")).out)
            out.push(...renderMdLine(line, [spaces(4)], [spaces(4)], o));
      }
      return out;
    }
    case "tool": {
      const detail = cell.detail ? `: ${fold(cell.detail, 1, 1).join(" ")}` : "";
      return paragraph(`→ ${cell.tool} ${cell.status}${detail}`, [], [spaces(2)], DIM, o);
    }
    case "plan": {
      const mark = { completed: p("✔ ", S.ok), in_progress: p("◐ ", S.accent), pending: p("○ ", DIM) };
      const out = block([p("☰ ", S.accent), p("Plan", { bold: true })], [spaces(2)], [], width, color);
      if (cell.explanation)
        out.push(...paragraph(cell.explanation, [spaces(2)], [spaces(2)], { italic: true, dim: true }, o));
      for (const st of cell.steps) {
        const m = mark[st.status as keyof typeof mark] ?? mark.pending;
        const style: Style | undefined =
          st.status === "completed"
            ? { dim: true, strike: true }
            : st.status === "in_progress"
              ? { bold: true }
              : undefined;
        out.push(...block([spaces(2), m], [spaces(4)], [p(st.step, style)], width, color));
      }
      return out;
    }
    case "files": {
      const verb =
        cell.status === "completed"
          ? "Edited"
          : cell.status === "declined"
            ? "Declined edit of"
            : "Failed to edit";
      const out = block(
        [
          p("✎ ", cell.status === "completed" ? S.ok : S.error),
          p(
            cell.error && cell.changes.length === 0
              ? "Patch failed: no files were changed"
              : `${verb} ${cell.changes.length} file${cell.changes.length === 1 ? "" : "s"}`,
            { bold: true },
          ),
        ],
        [spaces(2)],
        [],
        width,
        color,
      );
      for (const c of cell.changes) {
        const tag = { add: "A", update: "M", delete: "D", move: "R" }[c.kind] ?? "M";
        out.push(
          ...block(
            [spaces(2), p(`${tag} `, S.accent)],
            [spaces(4)],
            [p(c.move_path ? `${c.path} → ${c.move_path}` : c.path)],
            width,
            color,
          ),
        );
        for (const l of fold(
          c.diff
            .split("\n")
            .filter((l) => !l.startsWith("---") && !l.startsWith("+++"))
            .join("\n"),
          6,
          3,
        ))
          for (const r of hardWrap(l, width - 4))
            out.push(
              row([spaces(4), p(r, l.startsWith("+") ? S.ok : l.startsWith("-") ? S.error : DIM)], color),
            );
      }
      // Why it failed, as the model was told (parse error, missing file, unmatched chunk, refusal).
      for (const l of (cell.error ?? "").split("\n").filter((x) => x.trim()))
        out.push(...block([spaces(2)], [spaces(4)], [p(l, S.error)], width, color));
      return out;
    }
    case "questions": {
      const rows = answerRows(cell.request, cell.outcome);
      const title = [
        p("? ", S.question),
        p(cell.request.approval ? "Approval" : cell.request.questions.length > 1 ? "Questions" : "Question", {
          bold: true,
          color: "yellow",
        }),
        p(` — ${outcomeTitle(cell.outcome)}`, DIM),
      ];
      const out = block(title, [spaces(2)], [], width, color);
      for (const r of rows) {
        // A prompt may span lines (an approval's is the subject, then the reason): each line
        // is wrapped on its own, behind the same indent.
        const [first = "", ...more] = r.prompt.split("\n");
        out.push(
          ...block(
            [spaces(2), p(`${r.header}: `, { bold: true })],
            [spaces(4)],
            [p(first, DIM)],
            width,
            color,
          ),
        );
        for (const line of more) out.push(...block([spaces(4)], [spaces(4)], [p(line, DIM)], width, color));
        if (r.answer !== null)
          out.push(...block([spaces(4), p("→ ")], [spaces(6)], [p(r.answer)], width, color));
      }
      return out;
    }
    case "notice": {
      const style = { info: undefined, dim: DIM, ok: S.ok, warn: S.warn, error: S.error }[cell.tone];
      return paragraph(cell.text, [], [spaces(2)], style, o);
    }
    case "turn": {
      const time = cell.ms === null ? "" : ` in ${duration(cell.ms)}`;
      const tokens = cell.usage?.total_tokens ? ` · ${compact(cell.usage.total_tokens)} tokens` : "";
      if (cell.status === "interrupted")
        return block([], [], [p(`■ Interrupted${time}`, S.warn)], width, color);
      if (cell.status === "failed")
        return paragraph(`✗ Turn failed${cell.error ? `: ${cell.error}` : ""}`, [], [spaces(2)], S.error, o);
      return block([], [], [p(`─ done${time}${tokens}`, DIM)], width, color);
    }
  }
}

/** Every string in `v`, neutralised for the terminal; `v` itself when nothing changes (never mutated). */
function deepSafe<T>(v: T): T {
  if (typeof v === "string") return terminalText(v) as T;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const y = deepSafe(x);
      if (y === x) return;
      out ??= v.slice();
      out[i] = y;
    });
    return (out ?? v) as T;
  }
  if (v && typeof v === "object") {
    let out: Record<string, unknown> | undefined;
    for (const [k, x] of Object.entries(v)) {
      const y = deepSafe(x);
      if (y === x) continue;
      out ??= { ...(v as Record<string, unknown>) };
      out[k] = y;
    }
    return (out ?? v) as T;
  }
  return v;
}

/**
 * The cell with all its text safe to write: command output keeps its SGR colours; the command
 * itself is kept for `printable` where it is drawn.
 */
export function safeCell(cell: Cell): Cell {
  if (cell.kind === "exec") return { ...cell, output: terminalText(cell.output, { sgr: true }) };
  return deepSafe(cell);
}

/** A committed cell as terminal text, one line per row, ending with a newline. */
export function renderCell(cell: Cell, o: RenderOptions): string {
  return `${cellLines(safeCell(cell), { ...o, width: Math.max(20, o.width) }).join("\n")}\n`;
}
