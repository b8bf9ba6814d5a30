/**
 * Tandem questions ↔ Codex `item/tool/requestUserInput` (pure mapping; the stateful part is in
 * session.ts).
 *
 * Contract of `replyFromCodex` (a Codex client answers each question with a list of strings):
 * - a string equal to one of the question's option labels → `selected`;
 * - a string starting with `user_note: ` → the typed `note` (the prefix is removed);
 * - any other non-empty string → `other` (several are joined with a newline);
 * - the Codex TUI's own extra option `None of the above` (when it is not one of the question's
 *   labels) selects nothing: its note is the free-text answer (`other`), not a note; without a
 *   note the answer is `other: "None of the above"`, so the model still learns none applied;
 * - secret questions take their strings verbatim as `other` (no label or note parsing, never logged);
 * - a question answered with an empty list is left unanswered; when no question has an answer at all,
 *   the result is a decline — Tandem never turns "nothing" into a fake answer.
 * The broker validates the reply (labels, single vs multi, free text allowed); its refusal is what the
 * client is told.
 */
import {
  type CodexQuestion,
  type ToolRequestUserInputParams,
  ToolRequestUserInputResponse,
} from "../../protocol/app-server.js";
import type { CollaborationMode } from "../../protocol/events.js";
import type { Question, QuestionAnswer, QuestionRequest } from "../../protocol/questions.js";
import type { FormAnswer } from "../../questions/form.js";

export const NOTE_PREFIX = "user_note: ";
/** The option the Codex TUI adds to every question that allows free text. */
export const NONE_OF_THE_ABOVE = "None of the above";
export const REQUEST_USER_INPUT = "item/tool/requestUserInput";

export function codexQuestion(q: Question): CodexQuestion {
  return {
    id: q.id,
    header: q.header,
    question: q.prompt,
    isOther: q.allow_other,
    isSecret: q.secret,
    options: q.options.length ? q.options.map((o) => ({ label: o.label, description: o.description })) : null,
  };
}

/**
 * Params of the server request. `isBlocking` is true when the turn waits for the answer: always in
 * Plan mode, and in Default mode unless a timeout policy lets the turn go on without it.
 * `autoResolutionMs` is the time left before that timeout fires (null for `wait`).
 */
export function requestUserInputParams(
  request: QuestionRequest,
  mode: CollaborationMode,
  now = Date.now(),
): ToolRequestUserInputParams {
  return {
    threadId: request.thread_id,
    turnId: request.turn_id,
    itemId: request.call_id,
    questions: request.questions.map(codexQuestion),
    isBlocking: mode === "plan" || request.policy.type === "wait",
    autoResolutionMs: request.deadline === null ? null : Math.max(0, Math.round(request.deadline - now)),
  };
}

/**
 * What a client's result to a server request means: the one answer vocabulary of every form
 * (questions/form.ts): a reply for the broker, a decline, a cancel (only an MCP server's form has
 * one here), or an invalid result (asked again, questions/asker.ts).
 */
export type CodexAnswerResult = FormAnswer;

/** Parses the client's `item/tool/requestUserInput` result and maps it (see replyFromCodex). */
export function userInputReply(request: QuestionRequest, result: unknown): CodexAnswerResult {
  const parsed = ToolRequestUserInputResponse.safeParse(result);
  if (parsed.success) return replyFromCodex(request, parsed.data);
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "result"}: ${i.message}`).join("; ");
  return {
    kind: "invalid",
    message: `the ${REQUEST_USER_INPUT} result is malformed (${issues}); expected {answers: {<question id>: {answers: [string]}}}`,
  };
}

export function replyFromCodex(
  request: QuestionRequest,
  response: ToolRequestUserInputResponse,
): CodexAnswerResult {
  const answers: Record<string, QuestionAnswer> = {};
  for (const [id, entry] of Object.entries(response.answers)) {
    const strings = entry.answers.filter((s) => s !== "");
    if (strings.length === 0) continue;
    const q = request.questions.find((x) => x.id === id);
    answers[id] = q ? answerFor(q, strings) : { selected: [], other: strings.join("\n") };
  }
  if (Object.keys(answers).length === 0)
    return { kind: "decline", reason: "the client submitted no answer to any question" };
  return { kind: "reply", reply: { answers } };
}

function answerFor(q: Question, strings: string[]): QuestionAnswer {
  if (q.secret) return { selected: [], other: strings.join("\n") };
  const labels = new Set(q.options.map((o) => o.label));
  const selected: string[] = [];
  const other: string[] = [];
  const notes: string[] = [];
  for (const s of strings) {
    if (s.startsWith(NOTE_PREFIX)) notes.push(s.slice(NOTE_PREFIX.length));
    else if (labels.has(s)) selected.push(s);
    else other.push(s);
  }
  const none = other.indexOf(NONE_OF_THE_ABOVE);
  if (none >= 0 && selected.length === 0) {
    // "None of the above" + note: the note *is* the answer.
    other.splice(none, 1);
    other.push(...notes.splice(0));
    if (other.length === 0) other.push(NONE_OF_THE_ABOVE);
  }
  const answer: QuestionAnswer = { selected };
  if (other.length) answer.other = other.join("\n");
  if (notes.length) answer.note = notes.join("\n");
  return answer;
}
