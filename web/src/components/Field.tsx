/**
 * One question of the sheet as a fieldset, for every kind (requirements Q1, S6): options as radios
 * (single, boolean) or checkboxes (multi), plus an explicit "Other…" choice where free text is
 * allowed whose text field shows only while it is chosen (src/protocol/form-rules.ts), a typed
 * input for text (email / url / date / datetime-local keyboards and pickers) and number (min,
 * max, step), a masked input and no note for secrets, an optional note otherwise. Defaults are
 * pre-filled by `initialAnswer`; `toAnswer` turns the fields into the wire answer (lib/answer.ts).
 */

import { useEffect, useRef } from "react";
import { otherChoice } from "../../../src/protocol/form-rules.js";
import type { Question } from "../../../src/protocol/questions.js";
import { printable } from "../../../src/util/printable.js";
import { type Draft, isFree, typeHint } from "../lib/answer.js";

const INPUT_TYPES: Record<string, string> = {
  email: "email",
  uri: "url",
  date: "date",
  "date-time": "datetime-local",
};

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
  const free = isFree(q);
  const hint = typeHint(q);
  const other = otherChoice(q);
  const choices = [...q.options, ...(other ? [{ label: other, description: "" }] : [])];
  const choseOther = other !== undefined && draft.selected.includes(other);
  // Choosing "Other…" shows its text field: the typing goes there next.
  const otherInput = useRef<HTMLInputElement>(null);
  const shown = useRef(choseOther);
  useEffect(() => {
    if (choseOther && !shown.current) otherInput.current?.focus();
    shown.current = choseOther;
  }, [choseOther]);
  const multi = q.kind === "multi";
  const pick = (label: string, on: boolean) => {
    if (multi)
      onChange({
        ...draft,
        selected: on
          ? [...draft.selected.filter((x) => x !== label), label]
          : draft.selected.filter((x) => x !== label),
      });
    else onChange({ ...draft, selected: on ? [label] : [] });
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
        choices.map((o, k) => (
          <label className={o.label === other ? "opt opt-other" : "opt"} key={o.label}>
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
      {(free || choseOther) && (
        <label className="field">
          {free
            ? q.secret
              ? "Secret answer (hidden, never shown to the model)"
              : "Answer"
            : "Your own answer"}
          <input
            ref={free ? undefined : otherInput}
            className="other"
            type={inputType}
            value={draft.other}
            autoComplete={q.secret ? "new-password" : "off"}
            spellCheck={false}
            placeholder="Type your answer"
            step={q.kind === "number" ? (q.integer ? "1" : "any") : undefined}
            min={q.kind === "number" ? q.minimum : undefined}
            max={q.kind === "number" ? q.maximum : undefined}
            minLength={q.kind === "text" ? q.min_length : undefined}
            maxLength={q.kind === "text" ? q.max_length : undefined}
            onChange={(ev) => onChange({ ...draft, other: ev.currentTarget.value })}
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
