/**
 * Debug-log hooks of the broker (util/log.ts, README "Debugging"), area "question": each request's
 * life cycle — asked, refused by a cap, then answered (and by whom), declined, timed out or
 * cancelled.
 *
 * Contract:
 * - Nothing is built while the log is off.
 * - Debug records name the request, its thread and turn, its kind (question, approval, MCP
 *   elicitation), its questions' ids and types, who settled it and which questions were answered;
 *   at trace they carry the request itself (requests never hold answers) and the outcome.
 * - No answer to a `secret: true` question is ever logged: the outcome's entry for such a question
 *   is REDACTED (whatever the broker's own redaction kept), its values are handed to `log.secret`
 *   when the request settles — so frames and model requests logged later mask them — and the
 *   question's id is handed to `log.secretKey` when it is asked, so an answer logged in a
 *   surface's frame before the broker sees it is redacted by its key.
 */
import type { QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import { log, REDACTED } from "../util/log.js";

function summary(request: QuestionRequest): Record<string, unknown> {
  return {
    request_id: request.request_id,
    thread_id: request.thread_id,
    turn_id: request.turn_id,
    call_id: request.call_id,
    kind: request.approval
      ? `approval:${request.approval.kind}`
      : request.elicitation
        ? "elicitation"
        : "question",
    source: request.source,
    questions: request.questions.map((q) => ({
      id: q.id,
      kind: q.kind,
      ...(q.secret ? { secret: true } : {}),
    })),
  };
}

/** A request is now pending (asked, or asked again after a restart). */
export function asked(request: QuestionRequest): void {
  if (!log.enabled("debug")) return;
  for (const q of request.questions) if (q.secret) log.secretKey(q.id);
  const policy = request.policy;
  log.debug("question", "asked", {
    ...summary(request),
    policy: policy.type === "timeout" ? `timeout ${policy.ms} ms → ${policy.on_timeout}` : "wait",
    deadline: request.deadline,
    agent: request.agent?.nickname,
    ...(log.enabled("trace") ? { request } : {}),
  });
}

/** A cap refused a new request before anyone saw it. */
export function refused(request: QuestionRequest, why: { reason: string; limit?: string }): void {
  if (!log.enabled("debug")) return;
  log.debug("question", "refused", { ...summary(request), limit: why.limit, reason: why.reason });
}

/** The request settled with `outcome` (real values) / `shown` (what the broker publishes). */
export function settled(request: QuestionRequest, outcome: QuestionOutcome, shown: QuestionOutcome): void {
  if (!log.enabled("debug")) return;
  const secret = new Set(request.questions.filter((q) => q.secret).map((q) => q.id));
  const answers = "answers" in outcome ? outcome.answers : undefined;
  for (const id of secret) {
    const a = answers?.[id];
    if (!a) continue;
    for (const v of [...a.selected, a.other, a.note]) log.secret(v);
  }
  const shownAnswers = "answers" in shown ? shown.answers : undefined;
  const safe = shownAnswers
    ? Object.fromEntries(Object.entries(shownAnswers).map(([id, a]) => [id, secret.has(id) ? REDACTED : a]))
    : undefined;
  log.debug("question", shown.status, {
    request_id: request.request_id,
    thread_id: request.thread_id,
    turn_id: request.turn_id,
    responder: "responder" in shown ? shown.responder : undefined,
    reason: "reason" in shown ? shown.reason : undefined,
    answered: answers ? Object.keys(answers) : undefined,
    unanswered: "unanswered" in shown ? shown.unanswered : undefined,
    ...(log.enabled("trace") ? { outcome: safe ? { ...shown, answers: safe } : shown } : {}),
  });
}
