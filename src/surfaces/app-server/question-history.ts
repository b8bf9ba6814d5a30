/**
 * A settled `request_user_input` call in a resumed history (`thread/read`, `thread/resume`,
 * `thread/turns/list`): live, its questions travel as a server request and Codex's TUI draws the
 * answers itself; Codex's schema has no item for them, so history gives the call as the tool call
 * it was — a completed `dynamicToolCall` whose output is each question with its answer, the way a
 * person reads them ("Which test runner? → unittest"). Secret answers are never shown (the stored
 * outcome is already redacted; this masks them again by the question's flag).
 */
import type { CodexThreadItem } from "../../protocol/app-server.js";
import { type QuestionAnswer, REDACTED } from "../../protocol/questions.js";
import type { StoredQuestion } from "../../protocol/threads.js";

const MASK = "••••";

function answerText(answer: QuestionAnswer | undefined, secret: boolean): string {
  if (!answer) return "(unanswered)";
  const hide = (s: string) => (secret || s === REDACTED ? MASK : s);
  const parts = answer.selected.map(hide);
  if (answer.other !== undefined) parts.push(hide(answer.other));
  let text = parts.join(", ") || "(no choice)";
  if (answer.note !== undefined) text += ` (note: ${hide(answer.note)})`;
  return text;
}

/** The outcome in one line per question, or why there was no answer. */
export function questionOutcomeText(stored: StoredQuestion): string {
  const { request, outcome } = stored;
  if (!outcome) return "waiting for an answer";
  if (outcome.status === "declined") return `declined${outcome.reason ? `: ${outcome.reason}` : ""}`;
  if (outcome.status === "cancelled" || outcome.status === "unavailable")
    return `${outcome.status}: ${outcome.reason}`;
  const lines = request.questions.map((q) => `${q.prompt} → ${answerText(outcome.answers[q.id], q.secret)}`);
  return outcome.status === "timed_out"
    ? [`timed out (${outcome.policy})`, ...lines].join("\n")
    : lines.join("\n");
}

/** The history item of a `request_user_input` call whose request the store has. */
export function questionCallItem(callId: string, stored: StoredQuestion): CodexThreadItem {
  const settled = stored.outcome !== null;
  const answered = stored.outcome?.status === "answered" || stored.outcome?.status === "timed_out";
  return {
    type: "dynamicToolCall",
    id: callId,
    tool: "request_user_input",
    namespace: null,
    arguments: {
      questions: stored.request.questions.map((q) => ({
        id: q.id,
        header: q.header,
        question: q.prompt,
        options: q.options.map((o) => o.label),
      })),
    },
    status: settled ? (answered ? "completed" : "failed") : "inProgress",
    contentItems: [{ type: "inputText", text: questionOutcomeText(stored) }],
    success: settled ? answered : null,
    durationMs: null,
  } as CodexThreadItem;
}
