/**
 * Tandem questions and approvals ↔ ACP requests (pure mapping; the stateful part is asker.ts).
 *
 * Approvals → `session/request_permission`, options mapped to Tandem's decisions:
 *   allow once → Accept, allow always → Accept for session, reject once → Decline (the model is
 *   told), reject always → Cancel (the command or patch does not run and the turn stops). A
 *   `cancelled` outcome (the client cancelled the prompt) is a decline.
 *
 * Questions → `elicitation/create` (form mode, sessionId + toolCallId of the asking call) when the
 * client declares form elicitation. One property per question, keyed by the question id, with the
 * question's `default` and `required` (the broker applies defaults and enforces required):
 * - single choice: `type: "string"` with titled `oneOf` [{const: label, title: label, description}];
 * - multi choice: `type: "array"` with `items.anyOf` of the same titled options, minItems/maxItems;
 * - boolean: `type: "boolean"` (true → "Yes", false → "No");
 * - number: `type: "number"` or `"integer"` with minimum/maximum (the number → its text in `other`);
 * - free text: `type: "string"` with format (email, uri, date, date-time), minLength/maxLength;
 * - a question that also accepts free text ("Other", always for model questions) gets an extra
 *   string property `<id>.other` (question ids never contain a dot);
 * - a secret question is marked `_meta: {"tandem/secret": true}` on its property (ACP's string
 *   formats have no password format): a client should mask the field. Secret answers are never
 *   logged here.
 * The client's `accept` content maps back per question: an option title/const → `selected`, the
 * `.other` field or free text → `other`; an unknown option without "Other" is invalid. `decline`
 * and `cancel` (the user dismissed the form) are declines. An accept without any answer is a
 * decline too (Tandem never turns "nothing" into an answer) unless every question is optional.
 * An MCP server's URL elicitation goes out in URL mode when the client declares it (accept → Done);
 * otherwise its Done/Decline question is asked like any other, the URL in the message.
 *
 * Without form elicitation, requests whose every question is single choice go out as one
 * `session/request_permission` per question (options as allow_once, plus "Skip" as reject_once →
 * a decline); `permissionAnswerable` says which requests can.
 */
import type {
  CreateElicitationResponse,
  ElicitationPropertySchema,
  ElicitationSchema,
  PermissionOption,
  RequestPermissionOutcome,
} from "@agentclientprotocol/sdk";
import {
  APPROVAL_LABELS,
  type ApprovalDecisionName,
  BOOLEAN_LABELS,
  ELICITATION_URL_LABELS,
  elicitationLabel,
  type Question,
  type QuestionAnswer,
  type QuestionReply,
  type QuestionRequest,
} from "../../protocol/questions.js";

export const SECRET_META = "tandem/secret";
export const OTHER_SUFFIX = ".other";
export const SKIP_OPTION = "skip";

export type Mapped =
  | { kind: "reply"; reply: QuestionReply }
  | { kind: "decline"; reason: string }
  | { kind: "invalid"; message: string };

/** ACP permission option id → Tandem approval decision, in the order offered. */
export const APPROVAL_OPTIONS: Array<{ option: PermissionOption; decision: ApprovalDecisionName }> = [
  { option: { optionId: "allow_once", name: "Allow once", kind: "allow_once" }, decision: "accept" },
  {
    option: { optionId: "allow_always", name: "Allow for this session", kind: "allow_always" },
    decision: "accept_for_session",
  },
  { option: { optionId: "reject_once", name: "Reject", kind: "reject_once" }, decision: "decline" },
  {
    option: { optionId: "reject_always", name: "Reject and stop the turn", kind: "reject_always" },
    decision: "cancel",
  },
];

/** The approval's options the request offers (all four are always among Tandem's labels). */
export function approvalOptions(request: QuestionRequest): PermissionOption[] {
  const labels = new Set(request.questions[0]?.options.map((o) => o.label));
  return APPROVAL_OPTIONS.filter((o) => labels.has(APPROVAL_LABELS[o.decision])).map((o) => o.option);
}

export function approvalReply(request: QuestionRequest, outcome: RequestPermissionOutcome): Mapped {
  if (outcome.outcome !== "selected") return { kind: "decline", reason: "the client cancelled the request" };
  const picked = APPROVAL_OPTIONS.find((o) => o.option.optionId === outcome.optionId);
  const question = request.questions[0];
  if (!picked || !question)
    return {
      kind: "invalid",
      message: `unknown permission option "${outcome.optionId}"; offered: ${approvalOptions(request)
        .map((o) => o.optionId)
        .join(", ")}`,
    };
  return {
    kind: "reply",
    reply: { answers: { [question.id]: { selected: [APPROVAL_LABELS[picked.decision]] } } },
  };
}

/** True when every question can be asked as a permission request (single choice with options). */
export function permissionAnswerable(
  questions: Array<Pick<Question, "kind" | "options" | "secret">>,
): boolean {
  return questions.every(
    (q) => (q.kind === "single" || q.kind === "boolean") && q.options.length > 0 && !q.secret,
  );
}

export function choiceOptions(q: Question): PermissionOption[] {
  return [
    ...q.options.map(
      (o, i): PermissionOption => ({ optionId: `opt_${i}`, name: o.label, kind: "allow_once" }),
    ),
    { optionId: SKIP_OPTION, name: "Skip (do not answer)", kind: "reject_once" },
  ];
}

/** One question's permission outcome: its answer, undefined when skipped, or an error. */
export function choiceAnswer(
  q: Question,
  outcome: RequestPermissionOutcome,
): { ok: true; answer?: QuestionAnswer } | { ok: false; message: string } {
  if (outcome.outcome !== "selected" || outcome.optionId === SKIP_OPTION) return { ok: true };
  const i = /^opt_(\d+)$/.exec(outcome.optionId);
  const option = i ? q.options[Number(i[1])] : undefined;
  if (!option) return { ok: false, message: `unknown option "${outcome.optionId}" for question ${q.id}` };
  return { ok: true, answer: { selected: [option.label] } };
}

function property(q: Question): ElicitationPropertySchema {
  const base = { title: q.header || q.id, description: q.prompt };
  const options = q.options.map((o) => ({
    const: o.label,
    title: o.label,
    ...(o.description ? { description: o.description } : {}),
  }));
  const d = q.default;
  switch (q.kind) {
    case "boolean":
      return { type: "boolean", ...base, ...(typeof d === "boolean" ? { default: d } : {}) };
    case "number":
      return {
        type: q.integer ? "integer" : "number",
        ...base,
        ...(q.minimum !== undefined ? { minimum: q.minimum } : {}),
        ...(q.maximum !== undefined ? { maximum: q.maximum } : {}),
        ...(typeof d === "number" ? { default: d } : {}),
      };
    case "single":
      if (!options.length) break;
      return { type: "string", ...base, oneOf: options, ...(typeof d === "string" ? { default: d } : {}) };
    case "multi":
      if (!options.length) break;
      return {
        type: "array",
        ...base,
        items: { anyOf: options },
        ...(q.min_items !== undefined ? { minItems: q.min_items } : {}),
        ...(q.max_items !== undefined ? { maxItems: q.max_items } : {}),
        ...(Array.isArray(d) ? { default: d } : {}),
      };
  }
  return {
    type: "string",
    ...base,
    ...(q.format ? { format: q.format } : {}),
    ...(q.min_length !== undefined ? { minLength: q.min_length } : {}),
    ...(q.max_length !== undefined ? { maxLength: q.max_length } : {}),
    ...(typeof d === "string" ? { default: d } : {}),
    ...(q.secret ? { _meta: { [SECRET_META]: true } } : {}),
  };
}

const hasChoices = (q: Question) =>
  (q.kind === "single" || q.kind === "multi" || q.kind === "boolean") && q.options.length > 0;

/** The form for a request: one property per question (+ `<id>.other` for free text beside options). */
export function elicitationSchema(request: QuestionRequest): ElicitationSchema {
  const properties: Record<string, ElicitationPropertySchema> = {};
  for (const q of request.questions) {
    properties[q.id] = property(q);
    if (hasChoices(q) && q.allow_other)
      properties[`${q.id}${OTHER_SUFFIX}`] = {
        type: "string",
        title: `${q.header || q.id}: other`,
        description: "Or type your own answer instead of choosing",
      };
  }
  const required = request.questions.filter((q) => q.required).map((q) => q.id);
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

/** The form's message: the questions' prompts, one per line. */
export function elicitationMessage(request: QuestionRequest, previousError?: string): string {
  const e = request.elicitation;
  const lines = e
    ? [elicitationLabel(e), e.message, ...(e.url ? [e.url] : [])]
    : request.questions.map((q) => q.prompt);
  if (previousError) lines.unshift(`Your previous answer was not accepted: ${previousError}`);
  return lines.join("\n");
}

type Value = string | number | boolean | string[];

function answerFor(q: Question, value: Value | undefined, other: Value | undefined): QuestionAnswer | string {
  const answer: QuestionAnswer = { selected: [] };
  const free: string[] = [];
  const labels = new Set(q.options.map((o) => o.label));
  if (q.kind === "boolean" && typeof value === "boolean")
    return { selected: [value ? BOOLEAN_LABELS.yes : BOOLEAN_LABELS.no] };
  if (q.kind === "number" && typeof value === "number") return { selected: [], other: String(value) };
  const values = value === undefined || value === "" ? [] : Array.isArray(value) ? value : [value];
  for (const v of values) {
    const s = String(v);
    if (hasChoices(q) && labels.has(s)) answer.selected.push(s);
    else if (hasChoices(q) && !q.allow_other)
      return `"${s}" is not an option of ${q.id} (${[...labels].join(", ")})`;
    else free.push(s);
  }
  if (other !== undefined && String(other) !== "") free.push(String(other));
  if (free.length) answer.other = free.join("\n");
  return answer;
}

/** Maps the client's elicitation result to a reply, a decline or an invalid result. */
export function elicitationReply(request: QuestionRequest, response: CreateElicitationResponse): Mapped {
  if (response.action === "decline") return { kind: "decline", reason: "the user declined the form" };
  if (response.action === "cancel") return { kind: "decline", reason: "the user dismissed the form" };
  if (response.action !== "accept")
    return { kind: "invalid", message: `unknown elicitation action "${response.action}"` };
  const content = ((response as { content?: Record<string, Value> | null }).content ?? {}) as Record<
    string,
    Value
  >;
  const answers: Record<string, QuestionAnswer> = {};
  for (const q of request.questions) {
    const got = answerFor(
      q,
      Object.hasOwn(content, q.id) ? content[q.id] : undefined,
      content[`${q.id}${OTHER_SUFFIX}`],
    );
    if (typeof got === "string") return { kind: "invalid", message: got };
    if (got.selected.length || got.other !== undefined) answers[q.id] = got;
  }
  // A form whose every field is optional may be submitted empty (an MCP server's form); otherwise
  // an empty submission is no answer at all.
  if (Object.keys(answers).length === 0 && !request.questions.every((q) => q.required === false))
    return { kind: "decline", reason: "the user submitted the form without an answer" };
  return { kind: "reply", reply: { answers } };
}

/** An MCP server's URL elicitation (the user visits the URL): accept → Done, else a decline. */
export function urlReply(request: QuestionRequest, response: CreateElicitationResponse): Mapped {
  if (response.action !== "accept") return { kind: "decline", reason: `the user chose ${response.action}` };
  const q = request.questions[0];
  if (!q) return { kind: "invalid", message: "the request has no question" };
  return { kind: "reply", reply: { answers: { [q.id]: { selected: [ELICITATION_URL_LABELS.done] } } } };
}
