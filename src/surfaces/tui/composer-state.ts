/**
 * The composer's editing model, pure: a multi-line buffer with a cursor (a code-point index) and
 * a submit history. `reduce` returns the next state and, on Enter, the text to send.
 *
 * Newlines: Alt+Enter, Shift+Enter (terminals that report it) or Ctrl+J insert one; so does Enter
 * right after a trailing backslash (the backslash is replaced). A pasted chunk keeps its line
 * breaks (CRLF/CR normalised to LF), except that one trailing line break on a single-line chunk
 * counts as Enter: terminals deliver fast "text⏎" as one chunk.
 *
 * History: ↑ on the first line recalls older entries, ↓ on the last line newer ones, back to the
 * draft that was being typed. Consecutive duplicates are stored once.
 */

export interface ComposerState {
  text: string;
  cursor: number;
  history: string[];
  /** Position in history while browsing (history.length = the live draft). */
  historyIndex: number;
  draft: string;
}

export type ComposerAction =
  | { type: "insert"; text: string }
  | { type: "newline" }
  | { type: "submit" }
  | { type: "deleteBack" }
  | { type: "deleteForward" }
  | { type: "left" }
  | { type: "right" }
  | { type: "home" }
  | { type: "end" }
  | { type: "up" }
  | { type: "down" }
  | { type: "clear" }
  | { type: "set"; text: string };

export interface ComposerStep {
  state: ComposerState;
  /** Present when Enter sent something (already trimmed, never empty). */
  submitted?: string;
}

export const emptyComposer = (history: string[] = []): ComposerState => ({
  text: "",
  cursor: 0,
  history,
  historyIndex: history.length,
  draft: "",
});

const chars = (s: string) => [...s];

function edit(s: ComposerState, text: string, cursor: number): ComposerState {
  return { ...s, text, cursor, historyIndex: s.history.length, draft: "" };
}

function insertAt(s: ComposerState, ins: string): ComposerState {
  const c = chars(s.text);
  const add = chars(ins);
  c.splice(s.cursor, 0, ...add);
  return edit(s, c.join(""), s.cursor + add.length);
}

/** Line index and column of the cursor. */
export function cursorLine(s: Pick<ComposerState, "text" | "cursor">): {
  line: number;
  col: number;
  lines: string[];
} {
  const lines = s.text.split("\n");
  let left = s.cursor;
  for (let i = 0; i < lines.length; i++) {
    const len = chars(lines[i]).length;
    if (left <= len) return { line: i, col: left, lines };
    left -= len + 1;
  }
  return { line: lines.length - 1, col: chars(lines[lines.length - 1]).length, lines };
}

function moveLine(s: ComposerState, delta: -1 | 1): ComposerState | undefined {
  const { line, col, lines } = cursorLine(s);
  const target = line + delta;
  if (target < 0 || target >= lines.length) return undefined;
  let pos = 0;
  for (let i = 0; i < target; i++) pos += chars(lines[i]).length + 1;
  return { ...s, cursor: pos + Math.min(col, chars(lines[target]).length) };
}

function recall(s: ComposerState, index: number): ComposerState {
  const draft = s.historyIndex === s.history.length ? s.text : s.draft;
  const text = index === s.history.length ? draft : s.history[index];
  return { ...s, text, cursor: chars(text).length, historyIndex: index, draft };
}

/** Normalises pasted text; returns the text to insert and whether it ended with a lone Enter. */
export function normalisePaste(input: string): { text: string; enter: boolean } {
  const text = input.replace(/\r\n?/g, "\n");
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  if (text.endsWith("\n") && !body.includes("\n")) return { text: body, enter: true };
  return { text, enter: false };
}

export function reduce(s: ComposerState, a: ComposerAction): ComposerStep {
  const c = chars(s.text);
  switch (a.type) {
    case "insert":
      return { state: insertAt(s, a.text) };
    case "newline":
      return { state: insertAt(s, "\n") };
    case "set":
      return { state: edit(s, a.text, chars(a.text).length) };
    case "clear":
      return { state: edit(s, "", 0) };
    case "deleteBack":
      if (s.cursor === 0) return { state: s };
      c.splice(s.cursor - 1, 1);
      return { state: edit(s, c.join(""), s.cursor - 1) };
    case "deleteForward":
      if (s.cursor >= c.length) return { state: s };
      c.splice(s.cursor, 1);
      return { state: edit(s, c.join(""), s.cursor) };
    case "left":
      return { state: { ...s, cursor: Math.max(0, s.cursor - 1) } };
    case "right":
      return { state: { ...s, cursor: Math.min(c.length, s.cursor + 1) } };
    case "home": {
      const { col } = cursorLine(s);
      return { state: { ...s, cursor: s.cursor - col } };
    }
    case "end": {
      const { col, line, lines } = cursorLine(s);
      return { state: { ...s, cursor: s.cursor - col + chars(lines[line]).length } };
    }
    case "up":
      return { state: moveLine(s, -1) ?? (s.historyIndex > 0 ? recall(s, s.historyIndex - 1) : s) };
    case "down":
      return {
        state: moveLine(s, 1) ?? (s.historyIndex < s.history.length ? recall(s, s.historyIndex + 1) : s),
      };
    case "submit": {
      // A trailing backslash before the cursor at the end turns Enter into a newline.
      if (s.cursor === c.length && s.text.endsWith("\\")) {
        return { state: edit(s, `${s.text.slice(0, -1)}\n`, c.length) };
      }
      const text = s.text.trim();
      if (!text) return { state: edit(s, "", 0) };
      const history = s.history[s.history.length - 1] === text ? s.history : [...s.history, text];
      return { state: emptyComposer(history.slice(-500)), submitted: text };
    }
  }
}
