/**
 * The two ways a question request is built (requirements Q1, Q2, Q10) and the JSON the model gets back (Q6).
 *
 * - `fromModelTool` takes the model's `request_user_input` arguments. The zod schema below only
 *   checks *types*; every limit (count, ids, lengths, option rules) is checked by
 *   `validateModelQuestions`, so the model gets one precise message per mistake instead of a
 *   generic schema dump. Model questions always allow a free-text "Other" answer (Q2).
 * - `fromInternal` takes runtime-built questions (MCP elicitation, credential prompts): any shape,
 *   secret allowed, trusted (a malformed internal request is a programming error and throws).
 * - `toModelResult` turns an outcome into the tool output. A secret answer never reaches the
 *   model: its value is replaced by the handle the caller stored it under.
 */
import * as z from "zod";
import type {
  Question,
  QuestionAnswer,
  QuestionOutcome,
  QuestionPolicy,
  QuestionRequest,
} from "../protocol/questions.js";
import { AbortError } from "../util/abort.js";
import { shortId } from "../util/ids.js";
import { requestIdFor } from "./broker.js";
import { redactAnswers } from "./reply.js";

export const MAX_QUESTIONS = 3;
export const MAX_HEADER_CHARS = 12;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 4;
export const RECOMMENDED_SUFFIX = " (Recommended)";
const ID_PATTERN = /^[a-z][a-z0-9_]*$/;
const RECOMMENDED_RE = /\s*\(recommended\)\s*$/i;

/** True when a label carries the "(Recommended)" marker (any case, any spacing before it). */
export function isRecommended(label: string): boolean {
  return RECOMMENDED_RE.test(label);
}

/** The label without its "(Recommended)" marker. */
export function stripRecommended(label: string): string {
  return label.replace(RECOMMENDED_RE, "");
}

// ---------------------------------------------------------------------------------------------
// Model tool arguments: types only, limits described (and hinted in JSON Schema via `meta`).
// Objects are strict so the wire schema says `additionalProperties: false` and a misspelt key
// (e.g. `multiSelect`) is reported instead of silently dropped.
// ---------------------------------------------------------------------------------------------

export const ModelQuestionOption = z.strictObject({
  label: z
    .string()
    .describe(
      "User-facing label (1-5 words), unique within the question. " +
        `If you recommend this option, make it the first option and end its label with "${RECOMMENDED_SUFFIX}"; ` +
        "only one option may carry it.",
    ),
  description: z
    .string()
    .describe("One short sentence explaining the impact or tradeoff of choosing this option."),
});

export const ModelQuestion = z.strictObject({
  id: z
    .string()
    .describe(
      "Stable identifier for mapping the answer: snake_case (e.g. `db_engine`), unique within the call.",
    )
    .meta({ pattern: ID_PATTERN.source }),
  header: z
    .string()
    .describe(`Short header shown in the UI, ${MAX_HEADER_CHARS} or fewer characters (e.g. "Database").`)
    .meta({ minLength: 1, maxLength: MAX_HEADER_CHARS }),
  question: z.string().describe("Single-sentence question shown to the user.").meta({ minLength: 1 }),
  options: z
    .array(ModelQuestionOption)
    .describe(
      `${MIN_OPTIONS}-${MAX_OPTIONS} mutually exclusive choices (omit for a free-text question). ` +
        'Do not add an "Other" option: the user can always type a free answer instead. ' +
        `If you recommend an option, make it the first option and end its label with "${RECOMMENDED_SUFFIX}"; ` +
        "only one option may carry it.",
    )
    .meta({ minItems: MIN_OPTIONS, maxItems: MAX_OPTIONS })
    .optional(),
  multi_select: z
    .boolean()
    .describe("Allow the user to pick several options (only with options). Default false.")
    .optional(),
  secret: z
    .boolean()
    .describe(
      "The answer is a credential (API key, token, password); only on a free-text question. " +
        "You receive a handle such as $TANDEM_SECRET_API_KEY instead of the value; " +
        "use it as an environment variable in commands.",
    )
    .optional(),
});
export type ModelQuestion = z.infer<typeof ModelQuestion>;

export const RequestUserInputArgs = z.strictObject({
  questions: z
    .array(ModelQuestion)
    .describe(`Questions to show the user. Prefer 1 and do not exceed ${MAX_QUESTIONS}.`)
    .meta({ minItems: 1, maxItems: MAX_QUESTIONS }),
});
export type RequestUserInputArgs = z.infer<typeof RequestUserInputArgs>;

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

export type Validated<T> = { ok: true } & T;
export type Invalid = { ok: false; error: string };

/**
 * Checks the hard limits of Q1 and maps model questions to protocol questions.
 * Reports every problem at once (one line each) so the model can fix its call in one retry.
 * Text fields are trimmed; `allow_other` is always true (Q2).
 */
export function validateModelQuestions(
  args: RequestUserInputArgs,
): Validated<{ questions: Question[] }> | Invalid {
  const problems: string[] = [];
  const count = args.questions.length;
  if (count < 1 || count > MAX_QUESTIONS)
    problems.push(`questions: expected 1 to ${MAX_QUESTIONS} questions; got ${count}`);

  const seen = new Map<string, number>();
  args.questions.forEach((q, i) => {
    const id = q.id.trim();
    const at = ID_PATTERN.test(id) ? `questions[${i}] ("${id}")` : `questions[${i}]`;
    if (!ID_PATTERN.test(id))
      problems.push(
        `${at}: id must be snake_case (lowercase letters, digits and "_", starting with a letter); got "${q.id}"`,
      );
    else if (seen.has(id))
      problems.push(`${at}: id "${id}" is already used by questions[${seen.get(id)}]; ids must be unique`);
    else seen.set(id, i);

    const header = q.header.trim();
    const headerChars = [...header].length;
    if (headerChars === 0) problems.push(`${at}: header must not be empty`);
    else if (headerChars > MAX_HEADER_CHARS)
      problems.push(
        `${at}: header "${header}" is ${headerChars} characters; the limit is ${MAX_HEADER_CHARS}`,
      );
    if (q.question.trim() === "") problems.push(`${at}: question must not be empty`);

    if (q.options === undefined) {
      if (q.multi_select)
        problems.push(`${at}: multi_select needs options; a free-text question cannot use it`);
      return;
    }
    if (q.secret)
      problems.push(`${at}: secret is only allowed on a free-text question (one without options)`);
    problems.push(...checkOptions(at, q.options));
  });

  if (problems.length > 0)
    return { ok: false, error: `Invalid request_user_input arguments:\n- ${problems.join("\n- ")}` };
  return { ok: true, questions: args.questions.map(toQuestion) };
}

function checkOptions(at: string, options: NonNullable<ModelQuestion["options"]>): string[] {
  const problems: string[] = [];
  if (options.length < MIN_OPTIONS || options.length > MAX_OPTIONS)
    problems.push(
      `${at}: options must have ${MIN_OPTIONS} to ${MAX_OPTIONS} entries; got ${options.length} ` +
        "(omit options entirely for a free-text question)",
    );
  // Labels are compared the way a text reply matches them: trimmed, case-insensitive, marker stripped.
  const labels = new Map<string, number>();
  options.forEach((o, j) => {
    const key = stripRecommended(o.label.trim()).toLowerCase();
    if (key === "") problems.push(`${at}: options[${j}].label must not be empty`);
    else if (labels.has(key))
      problems.push(
        `${at}: options[${j}].label "${o.label.trim()}" repeats options[${labels.get(key)}]; labels must be unique`,
      );
    else labels.set(key, j);
  });
  const recommended = options.flatMap((o, j) => (isRecommended(o.label) ? [j] : []));
  if (recommended.length > 1)
    problems.push(
      `${at}: "(Recommended)" appears on ${recommended.length} options (options[${recommended.join("], options[")}]); ` +
        "only one option may carry it, and it must be the first",
    );
  else if (recommended.length === 1 && recommended[0] !== 0)
    problems.push(
      `${at}: options[${recommended[0]}] is marked "(Recommended)" but only the first option may be; ` +
        "move it to the front",
    );
  return problems;
}

function toQuestion(q: ModelQuestion): Question {
  const options = (q.options ?? []).map((o) => ({
    label: o.label.trim(),
    description: o.description.trim(),
  }));
  return {
    id: q.id.trim(),
    header: q.header.trim(),
    prompt: q.question.trim(),
    kind: q.multi_select ? "multi" : options.length > 0 ? "single" : "text",
    options,
    allow_other: true,
    secret: q.secret ?? false,
  };
}

// ---------------------------------------------------------------------------------------------
// Constructors
// ---------------------------------------------------------------------------------------------

export interface RequestIds {
  threadId: string;
  turnId: string;
  callId: string;
}

/** Epoch ms when `policy` fires for a request created at `now`; null for `wait`. */
export function deadlineFor(policy: QuestionPolicy, now: number): number | null {
  return policy.type === "timeout" ? now + policy.ms : null;
}

/** Builds a request from the model's tool arguments, or returns the validation error for the model. */
export function fromModelTool(
  args: RequestUserInputArgs,
  ids: RequestIds,
  policy: QuestionPolicy,
  now: number = Date.now(),
): Validated<{ request: QuestionRequest }> | Invalid {
  const v = validateModelQuestions(args);
  if (!v.ok) return v;
  return { ok: true, request: build(ids, "model", v.questions, policy, now) };
}

export interface InternalRequestInput {
  threadId: string;
  turnId: string;
  /** The call this prompt belongs to (e.g. an MCP tool call); a synthetic `internal_…` id if none. */
  callId?: string;
  questions: Question[];
  policy: QuestionPolicy;
  now?: number;
}

/**
 * Builds a runtime-originated request (Q10). Questions are trusted as given (secret, free-text,
 * any option count). Throws if there are no questions or ids repeat — a caller bug, not user input.
 */
export function fromInternal(input: InternalRequestInput): QuestionRequest {
  if (input.questions.length === 0) throw new Error("fromInternal: a request needs at least one question");
  const ids = new Set(input.questions.map((q) => q.id));
  if (ids.size !== input.questions.length) throw new Error("fromInternal: question ids must be unique");
  const callId = input.callId ?? shortId("internal");
  return build(
    { threadId: input.threadId, turnId: input.turnId, callId },
    "internal",
    input.questions,
    input.policy,
    input.now ?? Date.now(),
  );
}

function build(
  ids: RequestIds,
  source: QuestionRequest["source"],
  questions: Question[],
  policy: QuestionPolicy,
  now: number,
): QuestionRequest {
  return {
    request_id: requestIdFor(ids.threadId, ids.callId),
    thread_id: ids.threadId,
    turn_id: ids.turnId,
    call_id: ids.callId,
    source,
    questions,
    policy,
    deadline: deadlineFor(policy, now),
    created_at: now,
  };
}

// ---------------------------------------------------------------------------------------------
// Model result (Q6)
// ---------------------------------------------------------------------------------------------

/** A post-tool hook withheld the answer from the model; the interaction itself happened (Q15). */
export type WithheldOutcome = { status: "withheld"; reason?: string };

export type ModelResultStatus = "answered" | "declined" | "timed_out" | "unavailable" | "withheld";

/**
 * The JSON object the model receives. Every status carries `answers` (possibly empty) and
 * `unanswered` (question ids without an answer, in question order); `policy` only on `timed_out`;
 * `message` tells the model what happened and how to proceed when that is not obvious.
 */
export interface ModelResult {
  status: ModelResultStatus;
  answers: Record<string, QuestionAnswer>;
  unanswered: string[];
  policy?: QuestionPolicy;
  message?: string;
}

export const UNAVAILABLE_MESSAGE =
  "No one can answer questions in this run (it is non-interactive). Do not ask again; " +
  "proceed on your best judgement and state the assumptions you made.";

const DECLINED_MESSAGE =
  "The user declined to answer. Do not ask the same question again; proceed on your best judgement " +
  "and state your assumptions, or explain what you need.";

const WITHHELD_MESSAGE =
  "The user answered, but the answer was withheld from you by policy. Do not ask again; " +
  "proceed on your best judgement and state your assumptions.";

/**
 * Serialises an outcome for the model. For secret questions the free-text value is replaced by
 * `secretHandle(questionId)` and any note is dropped, so no secret text can leak; a secret value
 * the user also typed into another answer of the same reply is masked there (`redactAnswers`).
 * Answers for ids not in the request are ignored. `cancelled` never reaches the model (the call
 * is recorded as aborted): passing it throws an AbortError.
 */
export function toModelResult(
  outcome: QuestionOutcome | WithheldOutcome,
  request: QuestionRequest,
  secretHandle: (questionId: string) => string,
): string {
  const allIds = request.questions.map((q) => q.id);
  switch (outcome.status) {
    case "cancelled":
      throw new AbortError(`request_user_input was cancelled: ${outcome.reason}`);
    case "withheld":
      return withheldModelResult(allIds, outcome.reason);
    case "declined": {
      const message = outcome.reason
        ? `${DECLINED_MESSAGE} Reason given: ${outcome.reason}`
        : DECLINED_MESSAGE;
      return render({ status: "declined", answers: {}, unanswered: allIds, message });
    }
    case "unavailable":
      return unavailableModelResult(allIds, outcome.reason);
    case "answered": {
      const { answers, unanswered } = mapAnswers(outcome.answers, request, secretHandle);
      const message =
        unanswered.length > 0
          ? `The user left ${unanswered.length === 1 ? "a question" : "some questions"} unanswered: ${unanswered.join(", ")}.`
          : undefined;
      return render({ status: "answered", answers, unanswered, message });
    }
    case "timed_out": {
      const { answers, unanswered } = mapAnswers(outcome.answers, request, secretHandle);
      return render({
        status: "timed_out",
        answers,
        unanswered,
        policy: outcome.policy,
        message: timeoutMessage(outcome.policy),
      });
    }
  }
}

/** The result when no one can answer (Q3 gate 4, or the broker found no responder). */
export function unavailableModelResult(questionIds: string[], reason?: string): string {
  const message = reason ? `${UNAVAILABLE_MESSAGE} Reason: ${reason}` : UNAVAILABLE_MESSAGE;
  return render({ status: "unavailable", answers: {}, unanswered: [...questionIds], message });
}

/** The result a post-tool hook substitutes when it withholds an answer (Q15). */
export function withheldModelResult(questionIds: string[], reason?: string): string {
  const message = reason ? `${WITHHELD_MESSAGE} Reason: ${reason}` : WITHHELD_MESSAGE;
  return render({ status: "withheld", answers: {}, unanswered: [...questionIds], message });
}

function timeoutMessage(policy: QuestionPolicy): string {
  const base = "The user did not answer before the timeout.";
  if (policy.type !== "timeout") return base;
  switch (policy.on_timeout) {
    case "recommended":
      return `${base} Where an option was recommended it was chosen for them; proceed and state your assumptions.`;
    case "empty":
      return `${base} Proceed on your best judgement and state your assumptions.`;
    case "decline":
      return `${base} Treat this as declined: do not ask again; proceed on your best judgement.`;
  }
}

function mapAnswers(
  given: Record<string, QuestionAnswer>,
  request: QuestionRequest,
  secretHandle: (questionId: string) => string,
): { answers: Record<string, QuestionAnswer>; unanswered: string[] } {
  const answers: Record<string, QuestionAnswer> = {};
  const unanswered: string[] = [];
  // A secret typed into another answer of the same reply is masked there too.
  const masked = redactAnswers(request.questions, given);
  for (const q of request.questions) {
    const a = Object.hasOwn(given, q.id) ? masked[q.id] : undefined;
    // A secret answer is its free text only; a note or selection alone does not answer it.
    if (!a || (q.secret ? !given[q.id].other : !isGiven(a))) {
      unanswered.push(q.id);
      continue;
    }
    if (q.secret) {
      answers[q.id] = { selected: [], other: secretHandle(q.id) };
      continue;
    }
    const out: QuestionAnswer = { selected: [...(a.selected ?? [])] };
    if (a.other !== undefined && a.other !== "") out.other = a.other;
    if (a.note !== undefined && a.note !== "") out.note = a.note;
    answers[q.id] = out;
  }
  return { answers, unanswered };
}

/** An answer counts when it picks an option, or carries free text or a note. */
function isGiven(a: QuestionAnswer): boolean {
  return (a.selected?.length ?? 0) > 0 || !!a.other || !!a.note;
}

function render(result: ModelResult): string {
  const out: Record<string, unknown> = {
    status: result.status,
    answers: result.answers,
    unanswered: result.unanswered,
  };
  if (result.policy) out.policy = result.policy;
  if (result.message) out.message = result.message;
  return JSON.stringify(out);
}
