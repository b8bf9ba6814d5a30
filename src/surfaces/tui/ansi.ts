/**
 * Styled text for the scrollback, without Ink: SGR styling, terminal display width (wide CJK
 * and emoji count 2, combining marks 0) and greedy word wrapping of styled pieces with a
 * hanging indent. Pure and fast: committed cells are rendered here once, as plain strings.
 */

export type Color = "red" | "green" | "yellow" | "blue" | "magenta" | "cyan" | "gray";

export interface Style {
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  inverse?: boolean;
  color?: Color;
}

export interface Piece {
  text: string;
  style?: Style;
}

const COLOR_CODE: Record<Color, number> = {
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  gray: 90,
};

/** `text` with SGR codes for `style` (none when `color` is false, e.g. NO_COLOR or not a TTY). */
export function paint(text: string, style: Style | undefined, color: boolean): string {
  if (!color || !style || text === "") return text;
  const codes: number[] = [];
  if (style.bold) codes.push(1);
  if (style.dim) codes.push(2);
  if (style.italic) codes.push(3);
  if (style.underline) codes.push(4);
  if (style.inverse) codes.push(7);
  if (style.strike) codes.push(9);
  if (style.color) codes.push(COLOR_CODE[style.color]);
  return codes.length ? `\x1b[${codes.join(";")}m${text}\x1b[0m` : text;
}

function charWidth(cp: number): number {
  if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f))
    return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Columns the text occupies in a terminal (no escape sequences expected). */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** Splits text into wrap tokens: runs of spaces, single wide (CJK) characters, other words. */
const TOKEN_RE =
  /\s+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]+/gu;

/**
 * Greedy word wrap of styled pieces into lines of at most `width` columns. Spaces at a break
 * are dropped; a word wider than a line is cut. Newlines in pieces are not expected.
 */
export function wrapPieces(pieces: Piece[], width: number): Piece[][] {
  const w = Math.max(1, width);
  const lines: Piece[][] = [[]];
  let used = 0;
  let space: Piece | null = null;
  const push = (p: Piece, pw: number) => {
    const line = lines[lines.length - 1];
    const last = line[line.length - 1];
    if (last && last.style === p.style) last.text += p.text;
    else line.push({ ...p });
    used += pw;
  };
  const newline = () => {
    lines.push([]);
    used = 0;
    space = null;
  };
  for (const piece of pieces) {
    for (const m of piece.text.matchAll(TOKEN_RE)) {
      const tok = m[0];
      if (/^\s/.test(tok)) {
        // Runs of spaces across pieces join (the first piece's style wins).
        const prev = space as Piece | null;
        if (used > 0)
          space = prev ? { text: prev.text + tok, style: prev.style } : { text: tok, style: piece.style };
        continue;
      }
      const tw = displayWidth(tok);
      const sw = space ? displayWidth(space.text) : 0;
      if (used > 0 && used + sw + tw > w) newline();
      else if (space) push(space, sw);
      space = null;
      if (tw <= w - used) {
        push({ text: tok, style: piece.style }, tw);
        continue;
      }
      // Longer than a whole line: cut it.
      let chunk = "";
      let cw = 0;
      for (const ch of tok) {
        const chw = charWidth(ch.codePointAt(0)!);
        if (used + cw + chw > w) {
          push({ text: chunk, style: piece.style }, cw);
          newline();
          chunk = "";
          cw = 0;
        }
        chunk += ch;
        cw += chw;
      }
      if (chunk) push({ text: chunk, style: piece.style }, cw);
    }
  }
  return lines;
}

/** Pieces painted and joined as one row, as they are (no wrapping). */
export function row(pieces: Piece[], color: boolean): string {
  return pieces.map((p) => paint(p.text, p.style, color)).join("");
}

/**
 * Wraps `body` to `width` behind a first-line prefix and a continuation prefix (hanging indent);
 * returns finished, painted lines.
 */
export function block(first: Piece[], rest: Piece[], body: Piece[], width: number, color: boolean): string[] {
  const indent = Math.max(
    displayWidth(first.map((p) => p.text).join("")),
    displayWidth(rest.map((p) => p.text).join("")),
  );
  const wrapped = wrapPieces(body, width - indent);
  return wrapped.map((line, i) =>
    [...(i === 0 ? first : rest), ...line].map((p) => paint(p.text, p.style, color)).join(""),
  );
}

/** One SGR sequence (kept in command output, util/terminal-text.ts) or one character. */
const SGR_OR_CHAR = /\x1b\[[0-9;:]*m|[\s\S]/gu;

/**
 * Cuts text (kept verbatim, spaces included) into lines of at most `width` columns. An SGR
 * sequence takes no column and is never cut in two.
 */
export function hardWrap(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  let line = "";
  let used = 0;
  for (const [ch] of text.matchAll(SGR_OR_CHAR)) {
    const cw = ch.length > 2 ? 0 : charWidth(ch.codePointAt(0)!);
    if (used + cw > w) {
      out.push(line);
      line = "";
      used = 0;
    }
    line += ch;
    used += cw;
  }
  out.push(line);
  return out;
}
