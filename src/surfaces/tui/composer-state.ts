/**
 * The composer's editing model, pure: a multi-line buffer with a cursor (a code-point index) and
 * a submit history. `reduce` returns the next state and, on Enter, the text to send.
 *
 * Newlines: Alt+Enter, Shift+Enter (terminals that report it) or Ctrl+J insert one; so does Enter
 * right after a trailing backslash (the backslash is replaced). A pasted chunk keeps its line
 * breaks (CRLF/CR normalised to LF), except that one trailing line break on a single-line chunk
 * counts as Enter: terminals deliver fast "text⏎" as one chunk.
 *
 * Bracketed paste (`paste` action, see paste.ts) is inserted literally: its line breaks stay
 * line breaks, nothing in it submits, a trailing backslash stays. A large paste shows as a
 * placeholder ("[pasted 120 lines]") that is expanded back when the text is submitted (if the
 * placeholder was edited it is no longer recognised and stays as typed).
 *
 * Images: a paste that is one image file's path (as a terminal pastes a file dropped on it:
 * quoted, `file://`, spaces escaped) becomes a chip `[image 1: shot.png]` in the draft; on
 * Enter every chip still in the text is taken out of it and its path given with the send
 * (`images`), so the user sees the attachment, may delete it, and the model gets the image.
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
  /** Placeholder → pasted text, for large pastes shown compactly. */
  pastes: Record<string, string>;
  /** Chip (`[image 1: a.png]`) → the image file's path. */
  images?: Record<string, string>;
}

export type ComposerAction =
  | { type: "insert"; text: string }
  /** A bracketed paste (already cleaned by paste.ts). */
  | { type: "paste"; text: string }
  /** Replaces the history list (e.g. a resumed thread's messages joined it). */
  | { type: "history"; history: string[] }
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
  /** Present when Enter sent something (already trimmed; empty only when images go alone). */
  submitted?: string;
  /** The image paths sent with `submitted` (chips still in the draft), in draft order. */
  images?: string[];
}

const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;

/**
 * The image path a pasted text is, or undefined: one line naming a .png/.jpg/.jpeg/.gif/.webp
 * file, possibly quoted, as a `file://` URL, or with backslash-escaped spaces. Pure: whether
 * the file exists is checked when the message is sent.
 */
export function imagePathOf(text: string): string | undefined {
  let t = text.trim();
  if (!t || t.includes("\n")) return undefined;
  if ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"'))) t = t.slice(1, -1);
  else t = t.replace(/\\(.)/g, "$1");
  if (t.startsWith("file://")) {
    try {
      t = decodeURIComponent(new URL(t).pathname);
    } catch {
      return undefined;
    }
  }
  if (!IMAGE_EXT.test(t) || !/^(\/|~\/|\.{1,2}\/|[^\s/]+\/|[^\s/]+\.)/.test(t)) return undefined;
  return t;
}

function imageChip(path: string, taken: Record<string, string>): string {
  const name = path.split("/").pop() ?? path;
  for (let i = Object.keys(taken).length + 1; ; i++) {
    const label = `[image ${i}: ${name}]`;
    if (!(label in taken)) return label;
  }
}

export const emptyComposer = (history: string[] = []): ComposerState => ({
  text: "",
  cursor: 0,
  history,
  historyIndex: history.length,
  draft: "",
  pastes: {},
});

/** A paste with more lines (or characters) than this shows as a placeholder. */
export const PASTE_COLLAPSE_LINES = 10;
export const PASTE_COLLAPSE_CHARS = 2000;

/** The placeholder for a large paste, unique among `taken`. */
export function pastePlaceholder(text: string, taken: Record<string, string>): string {
  const lines = text.split("\n").length;
  const base = lines > 1 ? `[pasted ${lines} lines` : `[pasted ${[...text].length} chars`;
  for (let i = 1; ; i++) {
    const label = `${base}${i > 1 ? ` #${i}` : ""}]`;
    if (!(label in taken)) return label;
  }
}

/** The composer text with large-paste placeholders replaced by what was pasted. */
export function expandPastes(text: string, pastes: Record<string, string>): string {
  let out = text;
  for (const [label, body] of Object.entries(pastes)) out = out.split(label).join(body);
  return out;
}

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
    case "paste": {
      if (!a.text) return { state: s };
      const image = imagePathOf(a.text);
      if (image) {
        const taken = s.images ?? {};
        const chip = imageChip(image, taken);
        const pad = s.cursor > 0 && !/\s$/.test(chars(s.text).slice(0, s.cursor).join("")) ? " " : "";
        return { state: { ...insertAt(s, `${pad}${chip} `), images: { ...taken, [chip]: image } } };
      }
      const large = a.text.split("\n").length > PASTE_COLLAPSE_LINES || a.text.length > PASTE_COLLAPSE_CHARS;
      if (!large) return { state: insertAt(s, a.text) };
      const label = pastePlaceholder(a.text, s.pastes);
      return { state: { ...insertAt(s, label), pastes: { ...s.pastes, [label]: a.text } } };
    }
    case "history":
      return {
        state: {
          ...s,
          history: a.history,
          historyIndex: a.history.length,
          draft: "",
          text: s.historyIndex === s.history.length ? s.text : s.draft,
          cursor: s.historyIndex === s.history.length ? s.cursor : chars(s.draft).length,
        },
      };
    case "newline":
      return { state: insertAt(s, "\n") };
    case "set":
      return { state: edit(s, a.text, chars(a.text).length) };
    case "clear":
      return { state: { ...edit(s, "", 0), pastes: {}, images: {} } };
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
      const chips = Object.entries(s.images ?? {})
        .filter(([chip]) => s.text.includes(chip))
        .sort(([a], [b]) => s.text.indexOf(a) - s.text.indexOf(b));
      let draft = s.text;
      for (const [chip] of chips) draft = draft.split(`${chip} `).join("").split(chip).join("");
      const text = expandPastes(draft, s.pastes).trim();
      if (!text && !chips.length) return { state: { ...edit(s, "", 0), pastes: {} } };
      const history = !text || s.history[s.history.length - 1] === text ? s.history : [...s.history, text];
      return {
        state: emptyComposer(history.slice(-500)),
        submitted: text,
        ...(chips.length ? { images: chips.map(([, path]) => path) } : {}),
      };
    }
  }
}
