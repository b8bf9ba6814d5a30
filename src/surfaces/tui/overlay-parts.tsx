/**
 * The question overlay's pieces (overlay.tsx composes them): text fields with a cursor, the
 * windowed option list, the key hints for the focused field, the approval's details, the
 * confirmation text, and the raw-chunk hook that tells the Delete key from Backspace.
 */
import type { EventEmitter } from "node:events";
import { Box, Text, useStdin } from "ink";
import { type ReactNode, useEffect, useRef } from "react";
import type { QuestionRequest } from "../../protocol/questions.js";
import { printable } from "../../util/printable.js";
import { displayWidth } from "./ansi.js";
import { secondsLeft } from "./format.js";
import type { Keymap } from "./keymap.js";
import { APPROVAL_KEYS } from "./overlay-keys.js";
import { linesFor, MARKER, optionRows, scrollWindow, wrapText } from "./overlay-layout.js";
import { answerOf, type Draft, hasNote, hasOptions, type OverlayState } from "./overlay-state.js";
import { splitAt } from "./text-field.js";
import { theme } from "./theme.js";

/** A text field with a cursor (the inverse cell); secret text shows as dots. */
export function Field({
  label,
  value,
  at,
  focused,
  secret,
}: {
  label: string;
  value: string;
  at: number;
  focused: boolean;
  secret?: boolean;
}) {
  const shown = secret ? "•".repeat([...value].length) : value;
  const [before, under, after] = splitAt({ text: shown, at });
  return (
    <Text>
      <Text color={focused ? theme.accent : undefined}>{focused ? "› " : "  "}</Text>
      <Text bold={focused}>{label}</Text>
      {focused ? (
        <>
          {before}
          <Text inverse>{under || " "}</Text>
          {after}
        </>
      ) : shown === "" ? (
        <Text dimColor>…</Text>
      ) : (
        shown
      )}
    </Text>
  );
}

/** Rows a Field takes at `width` columns (marker, label, text, cursor cell). */
export const fieldRows = (label: string, value: string, width: number) =>
  linesFor(MARKER + displayWidth(label) + displayWidth(value) + 1, width);

export function Tabs({ state }: { state: OverlayState }) {
  const qs = state.request.questions;
  if (qs.length < 2) return null;
  return (
    <Text wrap="truncate-end">
      {qs.map((q, i) => (
        <Text key={q.id}>
          {i > 0 ? <Text dimColor> │ </Text> : null}
          <Text bold={i === state.index} underline={i === state.index} dimColor={i !== state.index}>
            {`${answerOf(q, state.drafts[i]) ? "✓ " : ""}${printable(q.header || q.id)}`}
          </Text>
        </Text>
      ))}
    </Text>
  );
}

/** The option list, windowed to `budget` lines around the highlighted row. */
/** The option list's rows as lines at `width`, with each row's height (the Other row last). */
export function optionLayout(state: OverlayState, draft: Draft, width: number) {
  const q = state.request.questions[state.index];
  const multi = q.kind === "multi";
  const mark = (on: boolean) => (multi ? (on ? "[x]" : "[ ]") : on ? "(•)" : "( )");
  const otherOn = multi ? draft.other.trim() !== "" : draft.choseOther;
  const count = q.options.length + (q.allow_other ? 1 : 0);
  const rows = optionRows(
    q.options.map((o, i) => ({
      label: printable(o.label),
      description: printable(o.description),
      mark: mark(draft.selected.includes(i)),
    })),
    width,
    count,
  );
  const otherLabel = `${String(q.options.length + 1).padStart(String(count).length)}. ${mark(otherOn)} Other: `;
  const heights = rows.map((r) => r.length);
  if (q.allow_other) heights.push(fieldRows(otherLabel, draft.other, width));
  return { rows, heights, otherLabel };
}

export function Options({
  state,
  draft,
  width,
  budget,
  scroll,
}: {
  state: OverlayState;
  draft: Draft;
  width: number;
  budget: number;
  scroll: { current: Map<number, number> };
}) {
  const q = state.request.questions[state.index];
  const { rows, heights, otherLabel } = optionLayout(state, draft, width);
  const win = scrollWindow(heights, draft.cursor, budget, scroll.current.get(state.index) ?? 0);
  scroll.current.set(state.index, win.start);
  const shown: ReactNode[] = [];
  for (let i = win.start; i < win.end; i++) {
    const cut = i === win.end - 1 ? win.lastLines : heights[i];
    if (i === q.options.length) {
      shown.push(
        <Field
          key="other"
          label={otherLabel}
          value={draft.other}
          at={draft.otherAt}
          focused={state.focus === "other"}
        />,
      );
      continue;
    }
    const here = state.focus === "options" && draft.cursor === i;
    const on = draft.selected.includes(i);
    for (const [j, line] of rows[i].slice(0, cut).entries())
      shown.push(
        <Text key={`${i}.${j}`} wrap="truncate-end">
          <Text color={here ? theme.accent : undefined}>{here && j === 0 ? "› " : "  "}</Text>
          <Text color={on ? theme.selected : undefined} bold={here}>
            {line.head}
          </Text>
          <Text dimColor>{line.desc}</Text>
        </Text>,
      );
  }
  return (
    <Box flexDirection="column">
      {win.start > 0 ? <Text dimColor>{`  ↑ ${win.start} more`}</Text> : null}
      {shown}
      {win.end < heights.length ? <Text dimColor>{`  ↓ ${heights.length - win.end} more`}</Text> : null}
    </Box>
  );
}

/** The key hints for what has the focus: the option list or a text field. */
export function hintText(state: OverlayState, km: Keymap): string {
  const q = state.request.questions[state.index];
  const last = state.index === state.request.questions.length - 1;
  const parts: string[] = [];
  if (state.request.approval && state.focus === "options") {
    // One key decides; the digits and Enter still work (README "The terminal UI").
    const words: Record<string, string> = {
      accept: "accept",
      accept_for_session: "session",
      accept_and_remember: "remember",
      decline: "decline",
      cancel: "decline & stop",
    };
    for (const [action, decision] of APPROVAL_KEYS) parts.push(`${km.label(action)} ${words[decision]}`);
    parts.push(`1-${q.options.length} pick`, `${km.pair("overlay.up", "overlay.down")} move`);
    parts.push(`${km.label("overlay.enter")} submit`);
    return parts.join(" · ");
  }
  if (hasOptions(q) && state.focus === "options") {
    parts.push(`1-${q.options.length + (q.allow_other ? 1 : 0)} pick`);
    if (q.kind === "multi") parts.push(`${km.label("overlay.toggle")} toggle`);
    parts.push(`${km.pair("overlay.up", "overlay.down")} move`);
  } else {
    parts.push(
      `${km.pair("composer.left", "composer.right")} ${km.pair("composer.home", "composer.end")} cursor`,
    );
    parts.push(`${km.label("text.wordLeft")} word`);
    if (hasOptions(q) && state.focus === "other") parts.push(`${km.label("overlay.up")} options`);
  }
  parts.push(`${km.label("overlay.enter")} ${last ? "submit" : "next"}`);
  if (hasNote(q, state.request))
    parts.push(`${km.label("overlay.note")} ${state.focus === "note" ? "back" : "note"}`);
  if (state.request.questions.length > 1 && state.focus === "options")
    parts.push(`${km.pair("overlay.prevQuestion", "overlay.nextQuestion")} questions`);
  else if (state.request.questions.length > 1) parts.push(`${km.label("overlay.prevQuestion")} questions`);
  parts.push(`${km.label("overlay.decline")} decline`);
  return parts.join(" · ");
}

export function countdownText(request: QuestionRequest, now: number): string | null {
  if (request.deadline === null || request.policy.type !== "timeout") return null;
  const left = secondsLeft(request.deadline, now);
  const then =
    request.policy.on_timeout === "recommended"
      ? "the recommended option is used"
      : request.policy.on_timeout === "empty"
        ? "it is sent unanswered"
        : "it is declined";
  return `⏱ ${left}s left, then ${then} — any key snoozes`;
}

export interface Line {
  text: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  color?: string;
}

/**
 * What an approval shows above its options, once each: the command (or paths), where, why
 * (the model's justification, or the runtime's reason when there is none), and the rule that
 * "Accept and remember" stores.
 */
export function approvalLines(approval: NonNullable<QuestionRequest["approval"]>, width: number): Line[] {
  const out: Line[] = [];
  const add = (text: string, style: Omit<Line, "text"> = {}) => {
    for (const t of wrapText(text, width)) out.push({ text: t, ...style });
  };
  if (approval.command) add(`$ ${approval.command}`, { bold: true });
  if (approval.paths?.length) add(approval.paths.join(", "), { bold: true });
  add(`in ${approval.cwd}`, { dim: true });
  if (approval.justification) add(`Model: ${approval.justification}`, { italic: true });
  if (approval.reason && approval.reason !== approval.justification) add(approval.reason, { dim: true });
  if (approval.kind === "exec")
    add(
      approval.prefix_rule?.length
        ? `Accept and remember stores the rule: ${approval.prefix_rule.join(" ")} …`
        : "Accept and remember: no rule can be stored for this command (this session only).",
      { dim: true },
    );
  return out;
}

export const LineText = ({ line }: { line: Line }) => (
  <Text bold={line.bold} dimColor={line.dim} italic={line.italic} color={line.color} wrap="truncate-end">
    {line.text}
  </Text>
);

/** The confirmation's question, then its key line. */
export function confirmText(state: OverlayState, km: Keymap, total: number): string[] {
  const c = state.confirm!;
  if (c.kind === "discard")
    return [
      "Discard your answers?",
      `${km.label("confirm.yes")} = discard · ${km.label("confirm.no")} = keep editing`,
    ];
  return [
    c.answered === 0
      ? "Nothing is answered. Decline the request instead?"
      : `${c.unanswered.length} of ${total} unanswered (${c.unanswered.join(", ")}). Submit anyway?`,
    `${km.label("confirm.yes")}/y ${c.answered === 0 ? "decline" : "submit"} · ${km.label("confirm.no")}/n go back`,
  ];
}

export const isDeleteKey = (chunk: string) => /^\x1b\[3(;\d+)?~$/.test(chunk);

/** The last raw input chunk Ink read (see the comment where it is used). */
export function useRawInput(): { current: string } {
  const stdin = useStdin() as ReturnType<typeof useStdin> & { internal_eventEmitter?: EventEmitter };
  const emitter = stdin.internal_eventEmitter;
  const last = useRef("");
  useEffect(() => {
    if (!emitter) return;
    const on = (data: unknown) => {
      last.current = typeof data === "string" ? data : String(data);
    };
    emitter.on("input", on);
    return () => {
      emitter.off("input", on);
    };
  }, [emitter]);
  return last;
}
