/**
 * Tandem questions and approvals ↔ an MCP-style form (pure mapping), shared by the surfaces that
 * show a request as a form: `tandem mcp-server` (MCP `elicitation/create` to its host) and the app
 * server (Codex `mcpServer/elicitation/request`). One broker request becomes one form; the
 * client's result becomes a typed reply, a decline or a cancel. The broker stays the judge: a reply
 * it refuses is asked again.
 *
 * Contract of `elicitationFor(request)`:
 * - Questions: one property per question, keyed by its id, titled by its header, described by its
 *   prompt (plus the options' descriptions, which `oneOf` items cannot carry):
 *   `single` → string with titled `oneOf` (const = the option label); `multi` → array whose items
 *   are a titled `anyOf` (min/max items kept); `text` → string (format, min/max length kept);
 *   `boolean` → boolean; `number` → number or integer (minimum/maximum kept). `default` is kept in
 *   the property's own type. A choice question that accepts free text (`allow_other`, every model
 *   question, SPEC Q2) gets a companion optional string property `<id>__other`.
 * - Secret questions (Q10) are marked twice, since MCP has no secret keyword: the description says
 *   so, and the form's `_meta["tandem/secret"]` lists their property names so a client can mask them.
 * - `required` lists questions marked required that have no companion free-text field (with one,
 *   either field answers, which JSON Schema cannot say; the broker enforces it).
 * - Approvals (`request.approval`): one required property `decision`, a titled `oneOf` of the
 *   decisions the request offers (const = the decision name: accept, accept_for_session, …).
 *
 * Contract of `elicitationReply(request, result)`:
 * - `accept`: each property present becomes that question's answer: option labels → `selected`,
 *   text and numbers → `other` (numbers as `String(n)`), true/false → the Yes/No option, the
 *   companion field → `other`. A value of the wrong type, or an unknown decision, → `invalid` (the
 *   message says what was expected). A question left out is unanswered.
 * - `decline` → `decline`; `cancel` → `cancel` (the caller stops the turn: Tandem's cancel).
 */
import type {
  ElicitRequestFormParams,
  ElicitResult,
  PrimitiveSchemaDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import {
  APPROVAL_LABELS,
  type ApprovalDecisionName,
  BOOLEAN_LABELS,
  elicitationLabel,
  type Question,
  type QuestionAnswer,
  type QuestionReply,
  type QuestionRequest,
} from "../protocol/questions.js";

/** Key of the form `_meta` entry listing the secret property names. */
export const SECRET_META = "tandem/secret";
export const DECISION_FIELD = "decision";
const OTHER_SUFFIX = "__other";

export type ElicitationAnswer =
  | { kind: "reply"; reply: QuestionReply }
  | { kind: "decline"; reason: string }
  | { kind: "cancel"; reason: string }
  | { kind: "invalid"; message: string };

const isChoice = (q: Question) => q.kind === "single" || q.kind === "multi";

/** The companion free-text property of each choice question that accepts free text. */
export function otherFields(questions: Question[]): Map<string, string> {
  const taken = new Set(questions.map((q) => q.id));
  const out = new Map<string, string>();
  for (const q of questions) {
    if (!isChoice(q) || !q.allow_other) continue;
    let name = `${q.id}${OTHER_SUFFIX}`;
    while (taken.has(name)) name += "_";
    taken.add(name);
    out.set(q.id, name);
  }
  return out;
}

function describe(q: Question): string {
  const lines = [q.prompt];
  const described = q.options.filter((o) => o.description.trim());
  if (isChoice(q) && described.length) lines.push(...described.map((o) => `- ${o.label}: ${o.description}`));
  if (q.secret)
    lines.push("Secret: the answer is hidden from the model, logs and history; mask it while typing.");
  return lines.join("\n");
}

function questionSchema(q: Question): PrimitiveSchemaDefinition {
  const base = { title: q.header || q.id, description: describe(q) };
  const def = q.default;
  switch (q.kind) {
    case "single":
      return {
        type: "string",
        ...base,
        oneOf: q.options.map((o) => ({ const: o.label, title: o.label })),
        ...(typeof def === "string" ? { default: def } : {}),
      };
    case "multi":
      return {
        type: "array",
        ...base,
        items: { anyOf: q.options.map((o) => ({ const: o.label, title: o.label })) },
        ...(q.min_items !== undefined ? { minItems: q.min_items } : {}),
        ...(q.max_items !== undefined ? { maxItems: q.max_items } : {}),
        ...(Array.isArray(def) ? { default: def } : {}),
      };
    case "boolean":
      return { type: "boolean", ...base, ...(typeof def === "boolean" ? { default: def } : {}) };
    case "number":
      return {
        type: q.integer ? "integer" : "number",
        ...base,
        ...(q.minimum !== undefined ? { minimum: q.minimum } : {}),
        ...(q.maximum !== undefined ? { maximum: q.maximum } : {}),
        ...(typeof def === "number" ? { default: def } : {}),
      };
    default:
      return {
        type: "string",
        ...base,
        ...(q.format ? { format: q.format } : {}),
        ...(q.min_length !== undefined ? { minLength: q.min_length } : {}),
        ...(q.max_length !== undefined ? { maxLength: q.max_length } : {}),
        ...(typeof def === "string" ? { default: def } : {}),
      };
  }
}

const DECISIONS = Object.keys(APPROVAL_LABELS) as ApprovalDecisionName[];

/** Decision names an approval request offers, in the order of its options. */
export function offeredDecisions(request: QuestionRequest): ApprovalDecisionName[] {
  const labels = new Set(request.questions[0]?.options.map((o) => o.label));
  return DECISIONS.filter((d) => labels.has(APPROVAL_LABELS[d]));
}

/** Who asks, for the form's message: the thread, and an MCP server when it relays one. */
function heading(request: QuestionRequest): string {
  if (request.approval) return `Tandem asks for approval (thread ${request.thread_id})`;
  if (request.elicitation)
    return `${elicitationLabel(request.elicitation)} (Through Tandem, thread ${request.thread_id}.)`;
  return `Tandem asks (thread ${request.thread_id})`;
}

export function elicitationFor(request: QuestionRequest): ElicitRequestFormParams {
  const head = heading(request);
  if (request.approval) {
    const q = request.questions[0];
    const offered = offeredDecisions(request);
    const options = new Map(q.options.map((o) => [o.label, o.description]));
    const lines = offered.map((d) => `- ${APPROVAL_LABELS[d]}: ${options.get(APPROVAL_LABELS[d]) ?? ""}`);
    return {
      mode: "form",
      message: `${head}\n${q.prompt}\nin ${request.approval.cwd}`,
      requestedSchema: {
        type: "object",
        properties: {
          [DECISION_FIELD]: {
            type: "string",
            title: "Decision",
            description: lines.join("\n"),
            oneOf: offered.map((d) => ({ const: d, title: APPROVAL_LABELS[d] })),
          },
        },
        required: [DECISION_FIELD],
      },
    };
  }
  const others = otherFields(request.questions);
  const properties: Record<string, PrimitiveSchemaDefinition> = {};
  const required: string[] = [];
  for (const q of request.questions) {
    properties[q.id] = questionSchema(q);
    const other = others.get(q.id);
    if (other)
      properties[other] = {
        type: "string",
        title: `${q.header || q.id}: other`,
        description: `Your own answer to "${q.header || q.id}" instead of (or besides) the options`,
      };
    else if (q.required) required.push(q.id);
  }
  const message =
    request.elicitation?.message ??
    (request.questions.length === 1
      ? request.questions[0].prompt
      : request.questions.map((q) => `- ${q.prompt}`).join("\n"));
  const url = request.elicitation?.url ? `\nOpen: ${request.elicitation.url}` : "";
  const secret = request.questions.filter((q) => q.secret).map((q) => q.id);
  return {
    mode: "form",
    message: `${head}\n${message}${url}`,
    requestedSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
    ...(secret.length ? { _meta: { [SECRET_META]: secret } } : {}),
  };
}

const typeName = (v: unknown) => (Array.isArray(v) ? "an array" : v === null ? "null" : `a ${typeof v}`);

/** One question's value from the form → its answer, or why the value does not fit. */
function answerFor(q: Question, value: unknown): QuestionAnswer | string {
  switch (q.kind) {
    case "single":
      return typeof value === "string"
        ? { selected: [value] }
        : `expected an option label (a string), got ${typeName(value)}`;
    case "multi":
      return Array.isArray(value) && value.every((v) => typeof v === "string")
        ? { selected: value }
        : `expected an array of option labels, got ${typeName(value)}`;
    case "boolean":
      return typeof value === "boolean"
        ? { selected: [value ? BOOLEAN_LABELS.yes : BOOLEAN_LABELS.no] }
        : `expected true or false, got ${typeName(value)}`;
    case "number":
      if (typeof value === "number") return { selected: [], other: String(value) };
      return typeof value === "string"
        ? { selected: [], other: value }
        : `expected a number, got ${typeName(value)}`;
    default:
      return typeof value === "string"
        ? { selected: [], other: value }
        : `expected text, got ${typeName(value)}`;
  }
}

export function elicitationReply(request: QuestionRequest, result: ElicitResult): ElicitationAnswer {
  if (result.action === "decline") return { kind: "decline", reason: "the MCP host's user declined" };
  if (result.action === "cancel") return { kind: "cancel", reason: "the MCP host's user cancelled" };
  const content: Record<string, unknown> = result.content ?? {};
  if (request.approval) {
    const offered = offeredDecisions(request);
    const decision = content[DECISION_FIELD];
    const name = offered.find((d) => d === decision);
    if (!name)
      return {
        kind: "invalid",
        message: `"${DECISION_FIELD}" must be one of ${offered.map((d) => `"${d}"`).join(", ")}; got ${JSON.stringify(decision ?? null)}`,
      };
    return { kind: "reply", reply: { answers: { [DECISION_FIELD]: { selected: [APPROVAL_LABELS[name]] } } } };
  }
  const others = otherFields(request.questions);
  const answers: Record<string, QuestionAnswer> = {};
  for (const q of request.questions) {
    const otherName = others.get(q.id);
    const other = otherName !== undefined ? content[otherName] : undefined;
    if (other !== undefined && typeof other !== "string")
      return { kind: "invalid", message: `"${otherName}": expected text, got ${typeName(other)}` };
    const value = content[q.id];
    // Empty text or an empty selection leaves the question out (a default, if any, then applies).
    const hasValue =
      value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0);
    const hasOther = typeof other === "string" && other.trim() !== "";
    if (!hasValue && !hasOther) continue;
    const answer: QuestionAnswer = { selected: [] };
    if (hasValue) {
      const mapped = answerFor(q, value);
      if (typeof mapped === "string") return { kind: "invalid", message: `"${q.id}": ${mapped}` };
      Object.assign(answer, mapped);
    }
    if (hasOther) answer.other = other as string;
    answers[q.id] = answer;
  }
  return { kind: "reply", reply: { answers } };
}
