/**
 * The question overlay view (requirements Q16) over the pure state machine in overlay-state.ts.
 *
 * Contract: while mounted it owns the keyboard (the composer is locked by the app). Every key
 * calls `onTouch` (the caller throttles it and snoozes the broker deadline, Q7). A submit or
 * decline that the broker refuses is shown inline and the overlay stays. `QuestionPane` shows the
 * head of the pending queue, or — when someone else settled the question on screen — a notice
 * that any key dismisses.
 */
import { Box, Text, useInput } from "ink";
import { useEffect, useRef, useState } from "react";
import { elicitationLabel, type QuestionReply, type QuestionRequest } from "../../protocol/questions.js";
import { printable } from "../../util/printable.js";
import { secondsLeft } from "./format.js";
import type { Keymap } from "./keymap.js";
import { applyKeys } from "./overlay-keys.js";
import { wrapText } from "./overlay-layout.js";
import {
  approvalLines,
  confirmText,
  countdownText,
  Field,
  fieldRows,
  hintText,
  isDeleteKey,
  LineText,
  Options,
  optionLayout,
  Tabs,
  useRawInput,
} from "./overlay-parts.js";
import { hasNote, hasOptions, initOverlay, promptOf, reduce } from "./overlay-state.js";
import { type Pending, pendingId } from "./queue.js";
import { useTerminalSize } from "./terminal-size.js";
import { theme } from "./theme.js";

export type ActionResult = { ok: true } | { ok: false; message: string };

export interface OverlayHandlers {
  onSubmit(request: QuestionRequest, reply: QuestionReply): ActionResult;
  onDecline(request: QuestionRequest): ActionResult;
  onTouch(request: QuestionRequest): void;
}

/** Re-renders every `ms` while `active`, returning the current time. */
function useNow(active: boolean, ms = 1000, now: () => number = Date.now): number {
  const [t, setT] = useState(now);
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => setT(now()), ms);
    return () => clearInterval(id);
  }, [active, ms, now]);
  return t;
}

export function QuestionOverlay(
  props: OverlayHandlers & {
    request: QuestionRequest;
    keymap: Keymap;
    queued?: number;
    now?: () => number;
    /** Rows the overlay may use, borders included (default: the terminal's height less one). */
    maxRows?: number;
  },
) {
  const { request, keymap } = props;
  const [state, setState] = useState(() => initOverlay(request));
  const ref = useRef(state);
  /** Set once a submit/decline went through: later keys must not act on a settled request. */
  const done = useRef(false);
  const handlers = useRef(props);
  handlers.current = props;
  const now = useNow(request.deadline !== null, 1000, props.now);
  const size = useTerminalSize();
  const scroll = useRef(new Map<number, number>());
  // Registered before useInput's listener, so it sees each chunk first: Ink reports Backspace
  // (DEL) and the Delete key (ESC [3~) alike, and only the raw chunk tells them apart.
  const raw = useRawInput();

  useInput((input, key) => {
    if (done.current) return;
    const h = handlers.current;
    h.onTouch(h.request);
    const step =
      key.delete && isDeleteKey(raw.current) && ref.current.focus !== "options" && !ref.current.confirm
        ? reduce(ref.current, { type: "edit", op: "deleteForward" })
        : applyKeys(ref.current, input, key, keymap);
    let s = step.state;
    if (step.effect) {
      const r =
        step.effect.type === "submit" ? h.onSubmit(h.request, step.effect.reply) : h.onDecline(h.request);
      if (!r.ok) s = reduce(s, { type: "failed", message: r.message }).state;
      else done.current = true;
    }
    ref.current = s;
    setState(s);
  });

  const q = request.questions[state.index];
  const draft = state.drafts[state.index];
  const total = request.questions.length;
  const width = Math.max(10, size.columns - 4);
  const avail = Math.max(3, (props.maxRows ?? size.rows - 1) - 2);

  // An MCP elicitation's label (who sees the answer) and message head every question of its form.
  const details = request.approval
    ? approvalLines(request.approval, width)
    : request.elicitation
      ? [
          ...wrapText(printable(elicitationLabel(request.elicitation)), width).map((text) => ({
            text,
            color: theme.warn,
          })),
          ...wrapText(printable(request.elicitation.message), width).map((text) => ({ text, dim: true })),
        ]
      : [];
  const shownPrompt = promptOf(q);
  let prompt = request.approval ? [] : wrapText(shownPrompt, width);
  const note = hasNote(q, request) && !state.confirm;
  const noteRows = note ? fieldRows("Note: ", draft.note, width) : 0;
  const errorLines = state.error && !state.confirm ? wrapText(state.error, width) : [];
  const countdown = state.confirm ? null : countdownText(request, now);
  let hints = state.confirm ? [] : wrapText(hintText(state, keymap), width);
  const confirmLines = state.confirm
    ? confirmText(state, keymap, total).flatMap((l) => wrapText(l, width))
    : [];
  const body = hasOptions(q) ? 0 : fieldRows(q.secret ? "Secret: " : "Answer: ", draft.other, width);
  const fixed = () =>
    1 +
    details.length +
    (total > 1 ? 1 : 0) +
    prompt.length +
    spacer +
    noteRows +
    errorLines.length +
    (countdown ? 1 : 0) +
    hints.length +
    confirmLines.length +
    body;
  let spacer = 1;
  // Small terminal: give up the spacer, then long prompts and hints, before the option rows.
  const want =
    hasOptions(q) && !state.confirm
      ? Math.min(
          6,
          optionLayout(state, draft, width).heights.reduce((a, b) => a + b, 0),
        )
      : 0;
  if (avail - fixed() < want) spacer = 0;
  if (avail - fixed() < want && hints.length > 1) hints = wrapText(hintText(state, keymap), width, 1);
  if (avail - fixed() < want && prompt.length > 1)
    prompt = wrapText(shownPrompt, width, Math.max(1, prompt.length - (want - (avail - fixed()))));
  const listBudget = Math.max(1, avail - fixed());

  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={request.approval ? theme.warn : theme.question}
      paddingX={1}
    >
      <Text wrap="truncate-end">
        <Text bold color={request.approval ? theme.warn : theme.question}>
          {request.approval
            ? "⚠ Approval needed"
            : `? ${total > 1 ? `Question ${state.index + 1}/${total}` : "Question"}`}
        </Text>
        {q.header && !request.approval ? <Text bold>{` · ${printable(q.header)}`}</Text> : null}
        {request.source === "internal" && !request.approval ? (
          <Text dimColor>
            {request.elicitation
              ? ` (from MCP server "${printable(request.elicitation.server)}")`
              : " (from Tandem)"}
          </Text>
        ) : null}
        {props.queued ? <Text dimColor>{`  (${props.queued} more waiting)`}</Text> : null}
      </Text>
      {request.agent ? (
        <Text wrap="truncate-end" dimColor>
          {`asked by sub-agent ${printable(request.agent.nickname)} (${printable(request.agent.role)}, depth ${request.agent.depth}) · task: ${printable(request.agent.task.replace(/\s+/g, " "))}`}
        </Text>
      ) : null}
      {details.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed lines of the approval
        <LineText key={`d${i}`} line={l} />
      ))}
      <Tabs state={state} />
      {prompt.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: wrapped prompt lines
        <Text key={`p${i}`}>{l}</Text>
      ))}
      {spacer ? <Text> </Text> : null}
      {state.confirm ? (
        confirmLines.map((l, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: wrapped confirmation lines
          <Text key={`c${i}`} color={i === 0 ? theme.warn : undefined} dimColor={i > 0}>
            {l}
          </Text>
        ))
      ) : (
        <>
          {hasOptions(q) ? (
            <Options state={state} draft={draft} width={width} budget={listBudget} scroll={scroll} />
          ) : (
            <Field
              label={q.secret ? "Secret: " : "Answer: "}
              value={draft.other}
              at={draft.otherAt}
              focused={state.focus === "other"}
              secret={q.secret}
            />
          )}
          {note ? (
            <Field label="Note: " value={draft.note} at={draft.noteAt} focused={state.focus === "note"} />
          ) : null}
          {errorLines.map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: wrapped error lines
            <Text key={`e${i}`} color={theme.error}>
              {l}
            </Text>
          ))}
          {countdown ? (
            <Text color={secondsLeft(request.deadline ?? 0, now) <= 10 ? theme.warn : undefined}>
              {countdown}
            </Text>
          ) : null}
          {hints.map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: wrapped hint lines
            <Text key={`h${i}`} dimColor wrap="truncate-end">
              {l}
            </Text>
          ))}
        </>
      )}
    </Box>
  );
}

/** The head of the pending queue, or the "settled elsewhere" notice. */
export function QuestionPane(
  props: OverlayHandlers & {
    pending: Pending[];
    settled: { requestId: string; text: string } | null;
    keymap: Keymap;
    onDismiss(): void;
    now?: () => number;
    /** Rows the overlay may use, borders included (the app leaves room for what it draws below). */
    maxRows?: number;
  },
) {
  const { pending, settled } = props;
  useInput(() => props.onDismiss(), { isActive: settled !== null });
  if (settled) {
    return (
      <Box borderStyle="round" borderColor={theme.ok} paddingX={1} flexDirection="column">
        <Text color={theme.ok}>{settled.text}</Text>
        <Text dimColor>Press any key to continue.</Text>
      </Box>
    );
  }
  const head = pending[0];
  if (!head) return null;
  return (
    <QuestionOverlay
      key={pendingId(head)}
      request={head.request}
      keymap={props.keymap}
      queued={pending.length - 1}
      onSubmit={props.onSubmit}
      onDecline={props.onDecline}
      onTouch={props.onTouch}
      now={props.now}
      maxRows={props.maxRows}
    />
  );
}
