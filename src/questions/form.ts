/**
 * The one mapping between Tandem's questions and a client's form (pure), used by every surface
 * that shows a request as a form: `tandem mcp-server` (MCP `elicitation/create` to its host), ACP
 * editors (`elicitation/create`), and the app server (Codex `mcpServer/elicitation/request`, for an
 * MCP server's form). The rules on free text and secrets are protocol/form-rules.ts (the web sheet
 * follows them too). The broker stays the judge: a reply it refuses is asked again (asker.ts).
 *
 * Contract of `formFor(request, opts)` (the first form):
 * - One field per question, keyed by its id, titled by its header, described by its prompt plus
 *   each described option (`- label: description`; option items carry only const and title):
 *   `single` → string with titled `oneOf` (const = title = the option label); `multi` → array whose
 *   `items.anyOf` are the same (min/max items kept); `text` → string (format, min/max length kept);
 *   `boolean` → boolean; `number` → number or integer (minimum/maximum kept). `default` is kept in
 *   the field's own type. A choice question that accepts free text gets the "Other…" choice
 *   (form-rules.ts otherChoice) as its last option; no other field is ever added.
 * - `required` lists the questions marked `required: true`.
 * - Secret questions: their ids under `_meta["tandem/secret"]` and SECRET_NOTE in the description.
 * - Approvals: one required `decision` field (form-approval.ts).
 * - `message` (formMessage): the reason the previous answer was not used (`opts.problem`), then
 *   what asks — an approval's command and directory; an MCP server's label, a blank line and its
 *   message (and the URL for a URL request asked as a form); else the questions' prompts — then,
 *   with `opts.thread`, which Tandem thread asks.
 *
 * Contract of `formAnswer(request, result)`:
 * - `decline` → decline (the person refused). `cancel` → cancel (the person dismissed the form
 *   without deciding; asker.ts says what Tandem does with it). Another action → invalid.
 * - `accept`: each field present becomes its question's answer: labels → `selected` (the broker
 *   checks them), text and numbers → `other` (numbers as `String(n)`), true/false → Yes/No. A
 *   missing, null, "" or [] value leaves the question out. A wrongly typed value → invalid, naming
 *   the field and what was expected. Choosing "Other…" → `other`: the second form (`otherFormFor`)
 *   is needed, with one required text field per such question, named by its id; its answer
 *   (`otherFormAnswer`) completes the reply. An accept that answers nothing is a decline ("Tandem
 *   never turns nothing into an answer"), unless every question is `required: false`.
 * `askByForm(request, show, opts)` runs both steps through `show` and returns the final answer.
 */
import { choiceAnswer, otherChoice, SECRET_META, SECRET_NOTE } from "../protocol/form-rules.js";
import {
  BOOLEAN_LABELS,
  elicitationLabel,
  type Question,
  type QuestionAnswer,
  type QuestionReply,
  type QuestionRequest,
} from "../protocol/questions.js";
import { approvalText, DECISION_FIELD, decisionAnswer, decisionField } from "./form-approval.js";

export { SECRET_META } from "../protocol/form-rules.js";
export { DECISION_FIELD, offeredDecisions } from "./form-approval.js";

type Titled = { const: string; title: string };
/** One field of a form: the restricted JSON Schema MCP and ACP forms share. */
export type FormField = {
  type: "string" | "number" | "integer" | "boolean" | "array";
  title?: string;
  description?: string;
  oneOf?: Titled[];
  items?: { anyOf: Titled[] };
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: string | number | boolean | string[];
};

export interface Form {
  message: string;
  requestedSchema: { type: "object"; properties: Record<string, FormField>; required?: string[] };
  _meta?: { [SECRET_META]: string[] };
}

/** What a client sends back for a form (MCP and ACP use the same shape). */
export interface FormResult {
  action: string;
  content?: Record<string, unknown> | null;
}

export type FormAnswer =
  | { kind: "reply"; reply: QuestionReply }
  | { kind: "decline"; reason: string }
  | { kind: "cancel"; reason: string }
  | { kind: "invalid"; message: string };

/** The first form's answer when some question's "Other…" was chosen: its text is asked next. */
export type OtherPending = { kind: "other"; ids: string[]; answers: Record<string, QuestionAnswer> };

export interface FormOptions {
  /** Why the previous answer was not used (a re-ask). */
  problem?: string;
  /** Say which Tandem thread asks (a client that serves several threads, e.g. an MCP host). */
  thread?: boolean;
}

const isChoice = (q: Question) => (q.kind === "single" || q.kind === "multi") && q.options.length > 0;

function describe(q: Question): string {
  const lines = [q.prompt];
  if (isChoice(q))
    for (const o of q.options) if (o.description.trim()) lines.push(`- ${o.label}: ${o.description}`);
  if (q.secret) lines.push(SECRET_NOTE);
  return lines.join("\n");
}

function field(q: Question): FormField {
  const base = { title: q.header || q.id, description: describe(q) };
  const d = q.default;
  const other = otherChoice(q);
  const choices = [...q.options.map((o) => o.label), ...(other ? [other] : [])].map(
    (label): Titled => ({ const: label, title: label }),
  );
  if (q.kind === "single" && isChoice(q))
    return { type: "string", ...base, oneOf: choices, ...(typeof d === "string" ? { default: d } : {}) };
  if (q.kind === "multi" && isChoice(q))
    return {
      type: "array",
      ...base,
      items: { anyOf: choices },
      ...(q.min_items !== undefined ? { minItems: q.min_items } : {}),
      ...(q.max_items !== undefined ? { maxItems: q.max_items } : {}),
      ...(Array.isArray(d) ? { default: d } : {}),
    };
  if (q.kind === "boolean")
    return { type: "boolean", ...base, ...(typeof d === "boolean" ? { default: d } : {}) };
  if (q.kind === "number")
    return {
      type: q.integer ? "integer" : "number",
      ...base,
      ...(q.minimum !== undefined ? { minimum: q.minimum } : {}),
      ...(q.maximum !== undefined ? { maximum: q.maximum } : {}),
      ...(typeof d === "number" ? { default: d } : {}),
    };
  return {
    type: "string",
    ...base,
    ...(q.format ? { format: q.format } : {}),
    ...(q.min_length !== undefined ? { minLength: q.min_length } : {}),
    ...(q.max_length !== undefined ? { maxLength: q.max_length } : {}),
    ...(typeof d === "string" ? { default: d } : {}),
  };
}

/** The form's message (see the contract): the reason for a re-ask, what asks, the thread. */
export function formMessage(request: QuestionRequest, opts: FormOptions = {}, body?: string): string {
  const e = request.elicitation;
  const what =
    body ??
    (request.approval
      ? approvalText(request)
      : e
        ? `${urlMessage(e)}${e.url ? `\nOpen: ${e.url}` : ""}`
        : request.questions.length === 1
          ? request.questions[0].prompt
          : request.questions.map((q) => `- ${q.prompt}`).join("\n"));
  const parts = [
    ...(opts.problem ? [`Your previous answer was not used: ${opts.problem}`] : []),
    what,
    ...(opts.thread ? [`(Through Tandem, thread ${request.thread_id}.)`] : []),
  ];
  return parts.join("\n\n");
}

/** The message of an MCP server's URL request, for a client that shows the URL itself: its label, a blank line, its message. */
export function urlMessage(info: NonNullable<QuestionRequest["elicitation"]>): string {
  return `${elicitationLabel(info)}\n\n${info.message}`;
}

function secretMeta(questions: Question[]): Pick<Form, "_meta"> {
  const secret = questions.filter((q) => q.secret).map((q) => q.id);
  return secret.length ? { _meta: { [SECRET_META]: secret } } : {};
}

export function formFor(request: QuestionRequest, opts: FormOptions = {}): Form {
  if (request.approval)
    return {
      message: formMessage(request, opts),
      requestedSchema: {
        type: "object",
        properties: { [DECISION_FIELD]: decisionField(request) },
        required: [DECISION_FIELD],
      },
    };
  const properties: Record<string, FormField> = {};
  for (const q of request.questions) properties[q.id] = field(q);
  const required = request.questions.filter((q) => q.required === true).map((q) => q.id);
  return {
    message: formMessage(request, opts),
    requestedSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
    ...secretMeta(request.questions),
  };
}

/** The second form: one required text field per question whose "Other…" was chosen. */
export function otherFormFor(request: QuestionRequest, pending: OtherPending, opts: FormOptions = {}): Form {
  const asked = request.questions.filter((q) => pending.ids.includes(q.id));
  const properties: Record<string, FormField> = {};
  for (const q of asked)
    properties[q.id] = {
      type: "string",
      title: `${q.header || q.id}: your answer`,
      description: q.secret ? `${q.prompt}\n${SECRET_NOTE}` : q.prompt,
      minLength: 1,
    };
  const names = asked.map((q) => `"${q.header || q.id}"`).join(", ");
  const body = `You chose ${otherChoice(asked[0]) ?? "Other…"} for ${names}: type your own answer.`;
  return {
    message: formMessage(request, opts, body),
    requestedSchema: { type: "object", properties, required: asked.map((q) => q.id) },
    ...secretMeta(asked),
  };
}

const typeName = (v: unknown) => (Array.isArray(v) ? "an array" : v === null ? "null" : `a ${typeof v}`);
const absent = (v: unknown) =>
  v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

/** One field's value → its question's answer (undefined: "Other…" alone, text to come), or why it does not fit. */
function answerFor(q: Question, value: unknown): { answer?: QuestionAnswer; other: boolean } | string {
  const other = otherChoice(q);
  const chose = (labels: string[]) => ({
    answer: choiceAnswer(q, labels, undefined),
    other: other !== undefined && labels.includes(other),
  });
  switch (q.kind) {
    case "single":
      return typeof value === "string"
        ? chose([value])
        : `expected an option label (a string), got ${typeName(value)}`;
    case "multi":
      return Array.isArray(value) && value.every((v) => typeof v === "string")
        ? chose(value)
        : `expected an array of option labels, got ${typeName(value)}`;
    case "boolean":
      return typeof value === "boolean"
        ? { answer: { selected: [value ? BOOLEAN_LABELS.yes : BOOLEAN_LABELS.no] }, other: false }
        : `expected true or false, got ${typeName(value)}`;
    case "number":
      if (typeof value === "number" || typeof value === "string")
        return { answer: { selected: [], other: String(value) }, other: false };
      return `expected a number, got ${typeName(value)}`;
    default:
      return typeof value === "string"
        ? { answer: { selected: [], other: value }, other: false }
        : `expected text, got ${typeName(value)}`;
  }
}

/** What ends a form without content: the person's decline or cancel, or an unknown action. */
function notAccepted(result: FormResult): FormAnswer | undefined {
  if (result.action === "decline") return { kind: "decline", reason: "the user declined the form" };
  if (result.action === "cancel") return { kind: "cancel", reason: "the user cancelled the form" };
  if (result.action !== "accept")
    return { kind: "invalid", message: `unknown form action "${result.action}"` };
  return undefined;
}

function replyOf(request: QuestionRequest, answers: Record<string, QuestionAnswer>): FormAnswer {
  if (Object.keys(answers).length === 0 && !request.questions.every((q) => q.required === false))
    return { kind: "decline", reason: "the user submitted the form without an answer" };
  return { kind: "reply", reply: { answers } };
}

export function formAnswer(request: QuestionRequest, result: FormResult): FormAnswer | OtherPending {
  const ended = notAccepted(result);
  if (ended) return ended;
  const content = result.content ?? {};
  if (request.approval) {
    const d = decisionAnswer(request, content);
    if (!d.ok) return { kind: "invalid", message: d.message };
    return { kind: "reply", reply: { answers: { [DECISION_FIELD]: { selected: [d.label] } } } };
  }
  const answers: Record<string, QuestionAnswer> = {};
  const ids: string[] = [];
  for (const q of request.questions) {
    const value = content[q.id];
    if (absent(value)) continue;
    const mapped = answerFor(q, value);
    if (typeof mapped === "string") return { kind: "invalid", message: `"${q.id}": ${mapped}` };
    if (mapped.answer) answers[q.id] = mapped.answer;
    if (mapped.other) ids.push(q.id);
  }
  if (ids.length) return { kind: "other", ids, answers };
  return replyOf(request, answers);
}

export function otherFormAnswer(
  request: QuestionRequest,
  pending: OtherPending,
  result: FormResult,
): FormAnswer {
  const ended = notAccepted(result);
  if (ended) return ended;
  const content = result.content ?? {};
  const answers = { ...pending.answers };
  for (const id of pending.ids) {
    const q = request.questions.find((x) => x.id === id)!;
    const text = content[id];
    if (typeof text !== "string" || text.trim() === "")
      return {
        kind: "invalid",
        message: `"${id}": you chose ${otherChoice(q)}; type your own answer, or pick one of the options`,
      };
    const chosen = [...(answers[id]?.selected ?? []), otherChoice(q)!];
    answers[id] = choiceAnswer(q, chosen, text)!;
  }
  return replyOf(request, answers);
}

/**
 * Asks `request` through `show` (which sends one form and resolves with the client's result, or
 * rejects with the client's error): the first form, then the "Other…" text form when needed.
 */
export async function askByForm(
  request: QuestionRequest,
  show: (form: Form) => Promise<FormResult>,
  opts: FormOptions = {},
): Promise<FormAnswer> {
  const first = formAnswer(request, await show(formFor(request, opts)));
  if (first.kind !== "other") return first;
  const { problem: _, ...rest } = opts;
  return otherFormAnswer(request, first, await show(otherFormFor(request, first, rest)));
}
