/**
 * One question of the sheet as a fieldset, for every kind (SPEC Q1, S6): options as radios
 * (single, boolean) or checkboxes (multi), an "Other" field where allowed, a typed input for
 * text (email / url / date / datetime-local keyboards and pickers) and number (min, max, step),
 * a masked input and no note for secrets, an optional note otherwise. Defaults are pre-filled
 * by `initialAnswer`; `toAnswer` turns the fields into the wire answer.
 */

import type { Question, QuestionAnswer } from "../../../src/protocol/questions.js";
import { printable } from "../../../src/util/printable.js";

export interface Draft {
  selected: string[];
  other: string;
  note: string;
}

const INPUT_TYPES: Record<string, string> = {
  email: "email",
  uri: "url",
  date: "date",
  "date-time": "datetime-local",
};

export function initialAnswer(q: Question): Draft {
  const d = q.default;
  const selected =
    d === undefined || q.kind === "text" || q.kind === "number"
      ? []
      : Array.isArray(d)
        ? d
        : typeof d === "boolean"
          ? [d ? "Yes" : "No"]
          : q.options.some((o) => o.label === String(d))
            ? [String(d)]
            : [];
  const free = q.kind === "text" || q.kind === "number";
  const other = free && (typeof d === "string" || typeof d === "number") ? String(d) : "";
  return { selected, other, note: "" };
}

/** The wire answer, or null when the question is left unanswered. */
export function toAnswer(q: Question, d: Draft): QuestionAnswer | null {
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
  const other = q.secret ? raw : raw.trim();
  if (!d.selected.length && other.trim() === "") return null;
  const a: QuestionAnswer = { selected: d.selected };
  if (other.trim() !== "") a.other = other;
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

export function Field(props: {
  q: Question;
  index: number;
  draft: Draft;
  current: boolean;
  disabled: boolean;
  /** Shown instead of the question's prompt (an approval's, whose prompt the sheet already shows). */
  legend?: string;
  onChange: (d: Draft) => void;
}) {
  const { q, index: i, draft, onChange } = props;
  const free = q.kind === "text" || q.kind === "number";
  const hint = typeHint(q);
  const multi = q.kind === "multi";
  const pick = (label: string, on: boolean) => {
    if (multi)
      onChange({
        ...draft,
        selected: on
          ? [...draft.selected.filter((x) => x !== label), label]
          : draft.selected.filter((x) => x !== label),
      });
    else onChange({ ...draft, selected: on ? [label] : [], other: on ? "" : draft.other });
  };
  const inputType = q.secret
    ? "password"
    : q.kind === "number"
      ? "number"
      : (q.kind === "text" && q.format && INPUT_TYPES[q.format]) || "text";
  return (
    <fieldset
      className="q"
      data-index={i}
      data-current={props.current ? "1" : undefined}
      disabled={props.disabled}
    >
      <legend>
        {q.header && <span className="q-tag">{printable(q.header)}</span>}
        {printable(props.legend ?? q.prompt) + (q.required === true ? " *" : "")}
        {hint && <span className="desc">{` (${hint})`}</span>}
      </legend>
      {!free &&
        q.options.map((o, k) => (
          <label className="opt" key={o.label}>
            <input
              type={multi ? "checkbox" : "radio"}
              name={`q${i}`}
              value={o.label}
              checked={draft.selected.includes(o.label)}
              onChange={(ev) => pick(o.label, ev.currentTarget.checked)}
            />
            <span className="num" aria-hidden="true">
              {k + 1}
            </span>
            <span className="label">{printable(o.label)}</span>
            {o.description && <span className="desc">{printable(o.description)}</span>}
          </label>
        ))}
      {(free || q.allow_other) && (
        <label className="field">
          {free ? (q.secret ? "Secret answer (hidden, never shown to the model)" : "Answer") : "Other"}
          <input
            className="other"
            type={inputType}
            value={draft.other}
            autoComplete={q.secret ? "new-password" : "off"}
            spellCheck={false}
            placeholder={free ? "Type your answer" : "Your own answer instead"}
            step={q.kind === "number" ? (q.integer ? "1" : "any") : undefined}
            min={q.kind === "number" ? q.minimum : undefined}
            max={q.kind === "number" ? q.maximum : undefined}
            minLength={q.kind === "text" ? q.min_length : undefined}
            maxLength={q.kind === "text" ? q.max_length : undefined}
            onChange={(ev) => {
              const v = ev.currentTarget.value;
              onChange({ ...draft, other: v, selected: q.kind === "single" && v ? [] : draft.selected });
            }}
          />
        </label>
      )}
      {!q.secret && (
        <label className="field">
          Note (optional)
          <input
            className="note"
            type="text"
            value={draft.note}
            autoComplete="off"
            onChange={(ev) => onChange({ ...draft, note: ev.currentTarget.value })}
          />
        </label>
      )}
    </fieldset>
  );
}
