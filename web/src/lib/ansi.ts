/**
 * Terminal output for display: SGR colour sequences become styled segments; every other escape
 * sequence (cursor moves, OSC titles, …) is removed; a carriage return keeps only what was
 * written after it on that line (progress bars), and the control characters that remain are
 * shown as visible symbols (printable()), never acted on. Pure; the view renders segments as
 * spans with classes (16 colours) or an rgb colour (256 / true colour).
 */
import { printable } from "../../../src/util/printable.js";

export interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}
export interface Segment extends Style {
  text: string;
}

const CUBE = [0, 95, 135, 175, 215, 255];
/** A 256-colour index as `cN` (N < 16, themed by CSS) or `rgb(…)`. */
function color256(n: number): string {
  if (n < 16) return `c${n}`;
  if (n < 232) {
    const i = n - 16;
    return `rgb(${CUBE[Math.floor(i / 36)]}, ${CUBE[Math.floor(i / 6) % 6]}, ${CUBE[i % 6]})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g}, ${g}, ${g})`;
}

function applySgr(style: Style, params: number[]): Style {
  const s = { ...style };
  if (params.length === 0) params = [0];
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === 0) {
      for (const k of Object.keys(s)) delete s[k as keyof Style];
    } else if (p === 1) s.bold = true;
    else if (p === 2) s.dim = true;
    else if (p === 3) s.italic = true;
    else if (p === 4) s.underline = true;
    else if (p === 22) s.bold = s.dim = undefined;
    else if (p === 23) s.italic = undefined;
    else if (p === 24) s.underline = undefined;
    else if (p >= 30 && p <= 37) s.fg = `c${p - 30}`;
    else if (p >= 90 && p <= 97) s.fg = `c${p - 90 + 8}`;
    else if (p === 39) s.fg = undefined;
    else if (p >= 40 && p <= 47) s.bg = `c${p - 40}`;
    else if (p >= 100 && p <= 107) s.bg = `c${p - 100 + 8}`;
    else if (p === 49) s.bg = undefined;
    else if (p === 38 || p === 48) {
      const key = p === 38 ? "fg" : "bg";
      if (params[i + 1] === 5 && params[i + 2] !== undefined) {
        s[key] = color256(params[i + 2]);
        i += 2;
      } else if (params[i + 1] === 2 && params[i + 4] !== undefined) {
        s[key] = `rgb(${params[i + 2]}, ${params[i + 3]}, ${params[i + 4]})`;
        i += 4;
      }
    }
  }
  for (const k of Object.keys(s) as Array<keyof Style>) if (s[k] === undefined) delete s[k];
  return s;
}

/** Removes overwritten text: for each line, what follows its last lone `\r`. */
function carriageReturns(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line) => {
      const i = line.lastIndexOf("\r", line.length - 2);
      return i >= 0 ? line.slice(i + 1) : line.replace(/\r$/, "");
    })
    .join("\n");
}

// CSI … final byte, OSC … BEL/ST, other two-byte escapes.
const ESCAPES = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]/g;

export function parseAnsi(input: string): Segment[] {
  const text = carriageReturns(input);
  const out: Segment[] = [];
  let style: Style = {};
  let last = 0;
  const push = (chunk: string) => {
    if (!chunk) return;
    const shown = printable(chunk);
    const prev = out[out.length - 1];
    if (prev && sameStyle(prev, style)) prev.text += shown;
    else out.push({ ...style, text: shown });
  };
  for (const m of text.matchAll(ESCAPES)) {
    push(text.slice(last, m.index));
    last = (m.index ?? 0) + m[0].length;
    if (m[2] === "m") style = applySgr(style, m[1] === "" ? [] : m[1].split(";").map((n) => Number(n) || 0));
  }
  push(text.slice(last));
  return out;
}

function sameStyle(a: Style, b: Style): boolean {
  return (
    a.fg === b.fg &&
    a.bg === b.bg &&
    !!a.bold === !!b.bold &&
    !!a.dim === !!b.dim &&
    !!a.italic === !!b.italic &&
    !!a.underline === !!b.underline
  );
}
