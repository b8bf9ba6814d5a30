/**
 * A one-line text field with a cursor, pure: `edit(field, op)` returns the next field. Positions
 * count code points (an emoji is one step), so the cursor never lands inside a surrogate pair.
 *
 * Word jumps follow readline: left skips spaces then the word before the cursor; right skips to
 * the end of the next word. `at` is always clamped to 0..length.
 */
export interface TextField {
  text: string;
  /** Cursor position in code points, 0..length. */
  at: number;
}

export type FieldOp =
  | { type: "insert"; text: string }
  | { type: "deleteBack" }
  | { type: "deleteForward" }
  | { type: "left" }
  | { type: "right" }
  | { type: "home" }
  | { type: "end" }
  | { type: "wordLeft" }
  | { type: "wordRight" };

export const FIELD_OPS = new Set<FieldOp["type"]>([
  "insert",
  "deleteBack",
  "deleteForward",
  "left",
  "right",
  "home",
  "end",
  "wordLeft",
  "wordRight",
]);

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

export function edit(field: TextField, op: FieldOp): TextField {
  const chars = [...field.text];
  const at = Math.max(0, Math.min(chars.length, field.at));
  switch (op.type) {
    case "insert": {
      const add = [...op.text];
      return { text: [...chars.slice(0, at), ...add, ...chars.slice(at)].join(""), at: at + add.length };
    }
    case "deleteBack":
      if (at === 0) return { text: field.text, at };
      return { text: [...chars.slice(0, at - 1), ...chars.slice(at)].join(""), at: at - 1 };
    case "deleteForward":
      if (at === chars.length) return { text: field.text, at };
      return { text: [...chars.slice(0, at), ...chars.slice(at + 1)].join(""), at };
    case "left":
      return { text: field.text, at: Math.max(0, at - 1) };
    case "right":
      return { text: field.text, at: Math.min(chars.length, at + 1) };
    case "home":
      return { text: field.text, at: 0 };
    case "end":
      return { text: field.text, at: chars.length };
    case "wordLeft": {
      let i = at;
      while (i > 0 && isSpace(chars[i - 1])) i--;
      while (i > 0 && !isSpace(chars[i - 1])) i--;
      return { text: field.text, at: i };
    }
    case "wordRight": {
      let i = at;
      while (i < chars.length && isSpace(chars[i])) i++;
      while (i < chars.length && !isSpace(chars[i])) i++;
      return { text: field.text, at: i };
    }
  }
}

/** Splits the text at the cursor for display: before, the character under the cursor (or ""), after. */
export function splitAt(field: TextField): [string, string, string] {
  const chars = [...field.text];
  const at = Math.max(0, Math.min(chars.length, field.at));
  return [chars.slice(0, at).join(""), chars[at] ?? "", chars.slice(at + 1).join("")];
}
