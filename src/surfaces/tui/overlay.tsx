/**
 * The question overlay view (SPEC Q16) over the pure state machine in overlay-state.ts.
 *
 * Contract: while mounted it owns the keyboard (the composer is locked by the app). Every key
 * calls `onTouch` (the caller throttles it and snoozes the broker deadline, Q7). A submit or
 * decline that the broker refuses is shown inline and the overlay stays. `QuestionPane` shows the
 * head of the pending queue, or — when someone else settled the question on screen — a notice
 * that any key dismisses.
 */
import { Box, Text, useInput } from "ink";
import { useEffect, useRef, useState } from "react";
import type { QuestionReply, QuestionRequest } from "../../protocol/questions.js";
import { secondsLeft } from "./format.js";
import type { Keymap } from "./keymap.js";
import { applyKeys } from "./overlay-keys.js";
import {
  answerOf,
  type Draft,
  hasNote,
  hasOptions,
  initOverlay,
  type OverlayState,
  reduce,
} from "./overlay-state.js";
import { type Pending, pendingId } from "./queue.js";
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

function Field({
  label,
  value,
  focused,
  secret,
}: {
  label: string;
  value: string;
  focused: boolean;
  secret?: boolean;
}) {
  const shown = secret ? "•".repeat([...value].length) : value;
  return (
    <Text>
      <Text color={focused ? theme.accent : undefined}>{focused ? "› " : "  "}</Text>
      <Text bold={focused}>{label}</Text>
      <Text>{shown}</Text>
      {focused ? <Text inverse> </Text> : shown === "" ? <Text dimColor>…</Text> : null}
    </Text>
  );
}

function Tabs({ state }: { state: OverlayState }) {
  const qs = state.request.questions;
  if (qs.length < 2) return null;
  return (
    <Text>
      {qs.map((q, i) => (
        <Text key={q.id}>
          {i > 0 ? <Text dimColor> │ </Text> : null}
          <Text bold={i === state.index} underline={i === state.index} dimColor={i !== state.index}>
            {`${answerOf(q, state.drafts[i]) ? "✓ " : ""}${q.header || q.id}`}
          </Text>
        </Text>
      ))}
    </Text>
  );
}

function Options({ state, draft }: { state: OverlayState; draft: Draft }) {
  const q = state.request.questions[state.index];
  const multi = q.kind === "multi";
  const mark = (on: boolean) => (multi ? (on ? "[x]" : "[ ]") : on ? "(•)" : "( )");
  const otherOn = multi ? draft.other.trim() !== "" : draft.choseOther;
  // Descriptions start in one column (labels are short; very long ones just push theirs right).
  const labelWidth = Math.min(40, Math.max(...q.options.map((o) => o.label.length)));
  return (
    <Box flexDirection="column">
      {q.options.map((o, i) => {
        const here = state.focus === "options" && draft.cursor === i;
        const on = draft.selected.includes(i);
        return (
          <Box key={o.label}>
            <Text color={here ? theme.accent : undefined}>{here ? "› " : "  "}</Text>
            <Text color={on ? theme.selected : undefined} bold={here}>
              {`${i + 1}. ${mark(on)} ${o.label.padEnd(labelWidth)}`}
            </Text>
            {o.description ? (
              <Box flexShrink={1} marginLeft={2}>
                <Text dimColor>{o.description}</Text>
              </Box>
            ) : null}
          </Box>
        );
      })}
      {q.allow_other && (
        <Field
          label={`${q.options.length + 1}. ${mark(otherOn)} Other: `}
          value={draft.other}
          focused={state.focus === "other"}
        />
      )}
    </Box>
  );
}

function Hints({ state, km }: { state: OverlayState; km: Keymap }) {
  const q = state.request.questions[state.index];
  const last = state.index === state.request.questions.length - 1;
  const parts: string[] = [];
  if (hasOptions(q) && state.focus === "options") {
    parts.push(`1-${q.options.length + (q.allow_other ? 1 : 0)} pick`);
    if (q.kind === "multi") parts.push(`${km.label("overlay.toggle")} toggle`);
    parts.push(`${km.pair("overlay.up", "overlay.down")} move`);
  }
  parts.push(`${km.label("overlay.enter")} ${last ? "submit" : "next"}`);
  if (hasNote(q, state.request))
    parts.push(`${km.label("overlay.note")} ${state.focus === "note" ? "back" : "note"}`);
  if (state.request.questions.length > 1)
    parts.push(`${km.pair("overlay.prevQuestion", "overlay.nextQuestion")} questions`);
  parts.push(`${km.label("overlay.decline")} decline`);
  return <Text dimColor>{parts.join(" · ")}</Text>;
}

function Countdown({ request, now }: { request: QuestionRequest; now: number }) {
  if (request.deadline === null || request.policy.type !== "timeout") return null;
  const left = secondsLeft(request.deadline, now);
  const then =
    request.policy.on_timeout === "recommended"
      ? "the recommended option is used"
      : request.policy.on_timeout === "empty"
        ? "it is sent unanswered"
        : "it is declined";
  return (
    <Text color={left <= 10 ? theme.warn : undefined}>
      {`⏱ ${left}s left, then ${then} — any key snoozes`}
    </Text>
  );
}

function ApprovalDetails({ approval }: { approval: NonNullable<QuestionRequest["approval"]> }) {
  return (
    <Box flexDirection="column">
      {approval.command ? (
        <Text>
          <Text color={theme.accent}>{"$ "}</Text>
          <Text bold>{approval.command}</Text>
        </Text>
      ) : null}
      {approval.paths?.length ? <Text bold>{approval.paths.join(", ")}</Text> : null}
      <Text dimColor>{`in ${approval.cwd}`}</Text>
      {approval.justification ? <Text italic>{`Model: ${approval.justification}`}</Text> : null}
      {approval.prefix_rule?.length ? (
        <Text dimColor>{`Rule to remember: ${approval.prefix_rule.join(" ")} …`}</Text>
      ) : null}
    </Box>
  );
}

export function QuestionOverlay(
  props: OverlayHandlers & { request: QuestionRequest; keymap: Keymap; queued?: number; now?: () => number },
) {
  const { request, keymap } = props;
  const [state, setState] = useState(() => initOverlay(request));
  const ref = useRef(state);
  /** Set once a submit/decline went through: later keys must not act on a settled request. */
  const done = useRef(false);
  const handlers = useRef(props);
  handlers.current = props;
  const now = useNow(request.deadline !== null, 1000, props.now);

  useInput((input, key) => {
    if (done.current) return;
    const h = handlers.current;
    h.onTouch(h.request);
    const step = applyKeys(ref.current, input, key, keymap);
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
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={request.approval ? theme.warn : theme.question}
      paddingX={1}
    >
      <Text>
        <Text bold color={request.approval ? theme.warn : theme.question}>
          {request.approval
            ? "⚠ Approval needed"
            : `? ${total > 1 ? `Question ${state.index + 1}/${total}` : "Question"}`}
        </Text>
        {q.header && !request.approval ? <Text bold>{` · ${q.header}`}</Text> : null}
        {request.source === "internal" && !request.approval ? <Text dimColor> (from Tandem)</Text> : null}
        {props.queued ? <Text dimColor>{`  (${props.queued} more waiting)`}</Text> : null}
      </Text>
      {request.approval ? <ApprovalDetails approval={request.approval} /> : null}
      <Tabs state={state} />
      <Text>{q.prompt}</Text>
      {state.confirm ? (
        <Box flexDirection="column" marginTop={1}>
          {state.confirm.answered === 0 ? (
            <Text color={theme.warn}>Nothing is answered. Decline the request instead?</Text>
          ) : (
            <Text color={theme.warn}>
              {`${state.confirm.unanswered.length} of ${total} unanswered (${state.confirm.unanswered.join(", ")}). Submit anyway?`}
            </Text>
          )}
          <Text
            dimColor
          >{`${keymap.label("confirm.yes")}/y ${state.confirm.answered === 0 ? "decline" : "submit"} · ${keymap.label("confirm.no")}/n go back`}</Text>
        </Box>
      ) : (
        <Box flexDirection="column" marginTop={1}>
          {hasOptions(q) ? (
            <Options state={state} draft={draft} />
          ) : (
            <Field
              label={q.secret ? "Secret: " : "Answer: "}
              value={draft.other}
              focused={state.focus === "other"}
              secret={q.secret}
            />
          )}
          {hasNote(q, request) && (
            <Field label="Note: " value={draft.note} focused={state.focus === "note"} />
          )}
          {state.error ? <Text color={theme.error}>{state.error}</Text> : null}
          <Countdown request={request} now={now} />
          <Hints state={state} km={keymap} />
        </Box>
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
    />
  );
}
