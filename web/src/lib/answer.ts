/**
 * A question's draft in the sheet and the wire answer it gives (pure; test/web/form-rules.test.ts
 * runs the cases every form surface shares). Free text beside options follows the one rule of
 * src/protocol/form-rules.ts: an explicit "Other…" choice, whose text counts only while it is
 * chosen; a secret's text is kept as typed and takes no note.
 */
import { choiceAnswer, otherChoice } from "../../../src/protocol/form-rules.js";
import type { Question, QuestionAnswer } from "../../../src/protocol/questions.js";

export interface Draft {
  /** Chosen option labels, the "Other…" choice among them when chosen. */
  selected: string[];
  /** The typed text: the answer of a text or number question, else the "Other…" text. */
  other: string;
  note: string;
}

/** Text and number questions are answered by typing; the others by choosing. */
export const isFree = (q: Question) => q.kind === "text" || q.kind === "number";

export function initialAnswer(q: Question): Draft {
  const d = q.default;
  const selected =
    d === undefined || isFree(q)
      ? []
      : Array.isArray(d)
        ? d
        : typeof d === "boolean"
          ? [d ? "Yes" : "No"]
          : q.options.some((o) => o.label === String(d))
            ? [String(d)]
            : [];
  const other = isFree(q) && (typeof d === "string" || typeof d === "number") ? String(d) : "";
  return { selected, other, note: "" };
}

/** "Other…" is chosen but nothing is typed for it (the sheet says so instead of submitting). */
export function needsText(q: Question, d: Draft): boolean {
  const other = otherChoice(q);
  return other !== undefined && d.selected.includes(other) && d.other.trim() === "";
}

/** The wire answer, or null when the question is left unanswered. */
export function toAnswer(q: Question, d: Draft): QuestionAnswer | null {
  let a: QuestionAnswer | undefined;
  if (isFree(q)) {
    let raw = d.other;
    // datetime-local gives local time without a zone; the protocol wants RFC 3339.
    if (
      raw &&
      q.format === "date-time" &&
      !q.secret &&
      !Number.isNaN(Date.parse(raw)) &&
      !/[zZ]|[+-]\d\d:?\d\d$/.test(raw)
    )
      raw = new Date(raw).toISOString();
    const text = q.secret ? raw : raw.trim();
    if (text.trim() !== "") a = { selected: [], other: text };
  } else {
    a = choiceAnswer(q, d.selected, d.other);
  }
  if (!a) return null;
  const note = d.note.trim();
  if (note && !q.secret) a.note = note;
  return a;
}

/** What a typed answer must look like (the server checks it with the same rules). */
export function typeHint(q: Question): string {
  const parts: string[] = [];
  if (q.kind === "number") {
    let t = q.integer ? "whole number" : "number";
    if (q.minimum !== undefined && q.maximum !== undefined) t += ` from ${q.minimum} to ${q.maximum}`;
    else if (q.minimum !== undefined) t += ` ≥ ${q.minimum}`;
    else if (q.maximum !== undefined) t += ` ≤ ${q.maximum}`;
    parts.push(t);
  }
  if (q.kind === "text" && (q.min_length !== undefined || q.max_length !== undefined))
    parts.push(`${q.min_length ?? 0}–${q.max_length ?? "∞"} characters`);
  if (q.kind === "multi" && (q.min_items !== undefined || q.max_items !== undefined))
    parts.push(`choose ${q.min_items ?? 0}–${q.max_items ?? q.options.length}`);
  if (q.required === false) parts.push("optional");
  return parts.join("; ");
}
