/**
 * MCP elicitation ↔ Tandem questions (requirements S6, README "MCP servers"), pure functions. An MCP server's
 * `elicitation/create` becomes ONE question request (source internal, `elicitation` info set)
 * and its outcome becomes the `ElicitResult` the server gets back.
 *
 * Form mode: one question per schema property, id = property name, header = `title` (else the
 * name), prompt = `description` (else the header):
 *   string                          → text (`format` email|uri|date|date-time, minLength, maxLength;
 *                                     another format is asked as plain text)
 *   number | integer                → number (`integer`, minimum, maximum)
 *   boolean                         → boolean (Yes / No)
 *   string + enum (+ enumNames)     → single; labels are enumNames (legacy) or the values
 *   string + oneOf [{const,title}]  → single; labels are titles, option `value` the const
 *   array + items.enum | items.anyOf→ multi (minItems, maxItems)
 * `default` is pre-selected (a value outside the options is dropped), `required` lists the
 * questions a reply must answer; the others are `required: false`. Any other shape throws
 * ElicitationSchemaError naming the property: answer the server with an error or decline.
 * A form without properties is one confirm question (CONFIRM_ID): Submit → accept `{}`.
 *
 * URL mode: one single-choice question `url` with options "Done" / "Decline" (ELICITATION_URL_LABELS);
 * its prompt shows the message, the URL and its host. Done → accept (no content), Decline →
 * decline. Only a URL `checkElicitationUrl` accepts is asked (https:, or http: to loopback), in its
 * normalised form; any other throws ElicitationSchemaError (the server gets an error, the user
 * sees nothing).
 *
 * Outcome → result: answered → accept with typed content (numbers as numbers, booleans as
 * booleans, multi as arrays, option values — the const — not labels; unanswered optional fields
 * are left out); declined → decline; timed out with every required field answered (by a
 * default or a recommended option) → accept, otherwise cancel; cancelled or unavailable → cancel.
 * A required field without a value (absent, "" or no items) is never sent as an accept: cancel.
 */
import type { ElicitRequestParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import {
  BOOLEAN_LABELS,
  BOOLEAN_OPTIONS,
  ELICITATION_URL_LABELS,
  type ElicitationInfo,
  type Question,
  type QuestionAnswer,
  type QuestionOption,
  type QuestionOutcome,
  TextFormat,
} from "../../protocol/questions.js";
import { checkElicitationUrl } from "./elicitation-url.js";

export class ElicitationSchemaError extends Error {
  override name = "ElicitationSchemaError";
}

/** Id of the one question an elicitation form without fields is asked as. */
export const CONFIRM_ID = "confirm";
const CONFIRM_LABELS = { submit: "Submit", decline: "Decline" } as const;
export const URL_QUESTION_ID = "url";

/** The questions and request info for one `elicitation/create` from server `server`. Throws ElicitationSchemaError. */
export function elicitationRequest(
  server: string,
  params: ElicitRequestParams,
): { questions: Question[]; elicitation: ElicitationInfo } {
  if (params.mode === "url") {
    const p = params as { message: string; url: string; elicitationId: string };
    const checked = checkElicitationUrl(String(p.url));
    if (!checked.ok) throw new ElicitationSchemaError(`URL refused: ${checked.reason}`);
    return {
      questions: urlQuestions(server, p.message, checked.url, checked.host),
      elicitation: {
        server,
        mode: "url",
        message: p.message,
        url: checked.url,
        elicitation_id: p.elicitationId,
      },
    };
  }
  const p = params as { message: string; requestedSchema: unknown };
  return {
    questions: elicitationToQuestions(p.requestedSchema),
    elicitation: { server, mode: "form", message: p.message },
  };
}

/** The single Done / Decline question of a URL-mode elicitation (`url` already checked). */
export function urlQuestions(server: string, message: string, url: string, host: string): Question[] {
  return [
    {
      id: URL_QUESTION_ID,
      header: "Open URL",
      prompt: `${message}\nOpen ${url} (host ${host}) and choose Done when finished (MCP server "${server}").`,
      kind: "single",
      options: [
        { label: ELICITATION_URL_LABELS.done, description: "I finished in the browser" },
        { label: ELICITATION_URL_LABELS.decline, description: "Do not open the URL" },
      ],
      allow_other: false,
      secret: false,
    },
  ];
}

/** One question per property of an MCP `requestedSchema`. Throws ElicitationSchemaError. */
export function elicitationToQuestions(requestedSchema: unknown): Question[] {
  const schema = requestedSchema as { type?: unknown; properties?: unknown; required?: unknown };
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== "object"))
    throw new ElicitationSchemaError('requestedSchema must be an object schema ({"type": "object", ...})');
  const properties = schema.properties ?? {};
  if (!isObject(properties)) throw new ElicitationSchemaError("requestedSchema.properties must be an object");
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [];
  const names = Object.keys(properties);
  const unknownRequired = required.find((r) => !names.includes(r));
  if (unknownRequired !== undefined)
    throw new ElicitationSchemaError(
      `requestedSchema.required names "${unknownRequired}", which is not a property`,
    );
  if (names.length === 0) return [confirmQuestion()];
  return names.map((name) => toQuestion(name, properties[name], required.includes(name)));
}

function confirmQuestion(): Question {
  return {
    id: CONFIRM_ID,
    header: "Confirm",
    prompt: "Submit to the MCP server?",
    kind: "single",
    options: [
      { label: CONFIRM_LABELS.submit, description: "Send the (empty) form" },
      { label: CONFIRM_LABELS.decline, description: "Refuse the request" },
    ],
    allow_other: false,
    secret: false,
    required: true,
  };
}

function toQuestion(name: string, raw: unknown, required: boolean): Question {
  const fail = (why: string): never => {
    throw new ElicitationSchemaError(`field "${name}": ${why}`);
  };
  if (name === "") fail("a property name must not be empty");
  if (!isObject(raw)) return fail("the schema must be an object");
  const p = raw as Record<string, unknown>;
  const title = str(p.title);
  const header = title ?? name;
  const base = {
    id: name,
    header,
    prompt: str(p.description) ?? header,
    allow_other: false,
    secret: false,
    required,
  };
  const num = (key: string) => {
    const v = p[key];
    if (v === undefined) return undefined;
    return typeof v === "number" && Number.isFinite(v) ? v : fail(`"${key}" must be a number`);
  };
  const count = (key: string) => {
    const v = num(key);
    return v === undefined
      ? undefined
      : Number.isInteger(v) && v >= 0
        ? v
        : fail(`"${key}" must be a whole number ≥ 0`);
  };

  if (p.type === "boolean") {
    const d = typeof p.default === "boolean" ? p.default : undefined;
    return { ...base, kind: "boolean", options: BOOLEAN_OPTIONS.map((o) => ({ ...o })), ...def(d) };
  }
  if (p.type === "number" || p.type === "integer") {
    const [minimum, maximum] = [num("minimum"), num("maximum")];
    if (minimum !== undefined && maximum !== undefined && minimum > maximum)
      fail(`minimum ${minimum} is greater than maximum ${maximum}`);
    const d = typeof p.default === "number" ? p.default : undefined;
    return {
      ...base,
      kind: "number",
      options: [],
      ...(p.type === "integer" && { integer: true }),
      ...(minimum !== undefined && { minimum }),
      ...(maximum !== undefined && { maximum }),
      ...def(d),
    };
  }
  if (p.type === "string" && (p.enum !== undefined || p.oneOf !== undefined)) {
    const options = p.oneOf !== undefined ? titledOptions(p.oneOf, "oneOf", fail) : enumOptions(p, fail);
    const d = typeof p.default === "string" ? labelOf(options, p.default) : undefined;
    return { ...base, kind: "single", options, ...def(d) };
  }
  if (p.type === "string") {
    const format = TextFormat.safeParse(p.format);
    const [min_length, max_length] = [count("minLength"), count("maxLength")];
    const d = typeof p.default === "string" ? p.default : undefined;
    return {
      ...base,
      kind: "text",
      options: [],
      ...(format.success && { format: format.data }),
      ...(min_length !== undefined && { min_length }),
      ...(max_length !== undefined && { max_length }),
      ...def(d),
    };
  }
  if (p.type === "array") {
    const items = p.items;
    if (!isObject(items)) return fail('an array needs "items" with "enum" or "anyOf"');
    const it = items as Record<string, unknown>;
    const options =
      it.anyOf !== undefined
        ? titledOptions(it.anyOf, "items.anyOf", fail)
        : it.enum !== undefined
          ? enumOptions(it, fail)
          : fail('an array needs "items" with "enum" or "anyOf"');
    const [min_items, max_items] = [count("minItems"), count("maxItems")];
    if (min_items !== undefined && min_items > options.length)
      fail(`minItems ${min_items} is more than the ${options.length} options`);
    const labels = Array.isArray(p.default) ? p.default.map((v) => labelOf(options, v)) : undefined;
    const d = labels?.every((l) => l !== undefined) ? (labels as string[]) : undefined;
    return {
      ...base,
      kind: "multi",
      options,
      ...(min_items !== undefined && { min_items }),
      ...(max_items !== undefined && { max_items }),
      ...def(d),
    };
  }
  return fail(
    `unsupported schema (type ${JSON.stringify(p.type)}); expected string, number, integer, boolean, or an array of enum strings`,
  );
}

function def<T>(value: T | undefined): { default?: T } {
  return value === undefined ? {} : { default: value };
}

/** `enum` (with the legacy `enumNames` as labels) → options; a label that differs keeps the value. */
function enumOptions(p: Record<string, unknown>, fail: (why: string) => never): QuestionOption[] {
  const values = p.enum;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === "string"))
    return fail('"enum" must be a non-empty array of strings');
  const names = Array.isArray(p.enumNames) ? p.enumNames : undefined;
  if (names && (names.length !== values.length || !names.every((n) => typeof n === "string")))
    fail('"enumNames" must hold one string per "enum" value');
  return options(
    values.map((v, i) => ({ value: v, title: (names?.[i] as string | undefined) ?? v })),
    fail,
  );
}

function titledOptions(list: unknown, key: string, fail: (why: string) => never): QuestionOption[] {
  if (!Array.isArray(list) || list.length === 0) return fail(`"${key}" must be a non-empty array`);
  return options(
    list.map((o) => {
      if (!isObject(o) || typeof (o as { const?: unknown }).const !== "string")
        return fail(`every "${key}" entry needs a string "const"`);
      const { const: value, title } = o as { const: string; title?: unknown };
      return { value, title: typeof title === "string" && title !== "" ? title : value };
    }),
    fail,
  );
}

/** Options with unique non-empty labels; a label that differs from its value keeps the value. */
function options(
  entries: { value: string; title: string }[],
  fail: (why: string) => never,
): QuestionOption[] {
  const values = entries.map((e) => e.value);
  const dup = values.find((v, i) => values.indexOf(v) !== i);
  if (dup !== undefined) fail(`the value "${dup}" is listed twice`);
  const titles = entries.map((e) => e.title || "(empty)");
  return entries.map((e, i) => {
    const clash = titles.filter((t) => t === titles[i]).length > 1;
    const label = clash ? `${titles[i]} (${e.value})` : titles[i];
    return label === e.value ? { label, description: "" } : { label, description: "", value: e.value };
  });
}

function labelOf(options: QuestionOption[], value: unknown): string | undefined {
  return options.find((o) => (o.value ?? o.label) === value)?.label;
}

/**
 * Why a pending elicitation settles as cancelled when its thread resumes after a restart; also
 * the failed tool output the model gets for the call that was waiting on it.
 */
export function elicitationLostReason(info: ElicitationInfo): string {
  return `MCP server "${info.server}" asked for input (elicitation) but Tandem restarted before it was answered; the server's request did not survive the restart, so this tool call did not finish. Call the tool again if it is still needed.`;
}

/** What to answer the MCP server for a request asked as `questions` in `mode`. */
export function outcomeToElicitResult(
  questions: Question[],
  outcome: QuestionOutcome,
  mode: ElicitationInfo["mode"] = "form",
): ElicitResult {
  if (outcome.status === "declined") return { action: "decline" };
  if (outcome.status !== "answered" && outcome.status !== "timed_out") return { action: "cancel" };
  const answers = outcome.answers;
  const confirm = questions.length === 1 && isConfirm(questions[0]);
  if (mode === "url" || confirm) {
    const picked = answers[questions[0]?.id]?.selected[0];
    if (picked === ELICITATION_URL_LABELS.done && mode === "url") return { action: "accept" };
    if (picked === CONFIRM_LABELS.submit && confirm) return { action: "accept", content: {} };
    if (picked === ELICITATION_URL_LABELS.decline) return { action: "decline" };
    return { action: "cancel" };
  }
  const content: NonNullable<ElicitResult["content"]> = {};
  for (const q of questions) {
    if (!Object.hasOwn(answers, q.id)) continue;
    const v = contentValue(q, answers[q.id]);
    if (v !== undefined) content[q.id] = v;
  }
  // Never an accept the server would read as a filled-in form when it is not: a required field
  // without a value, or a timeout that filled in nothing, is a cancel. (The broker's timeout policy,
  // questions/reply.ts timeoutOutcome, fills in only recommended options and valid defaults.)
  const empty = (v: unknown) => v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
  if (questions.some((q) => q.required === true && empty(content[q.id]))) return { action: "cancel" };
  if (outcome.status === "timed_out" && Object.keys(content).length === 0) return { action: "cancel" };
  return { action: "accept", content };
}

function isConfirm(q: Question): boolean {
  return (
    q.id === CONFIRM_ID &&
    q.kind === "single" &&
    q.options.map((o) => o.label).join("\n") === `${CONFIRM_LABELS.submit}\n${CONFIRM_LABELS.decline}`
  );
}

/** One answer as the JSON value the schema asked for; undefined when it does not fit. */
function contentValue(q: Question, a: QuestionAnswer): string | number | boolean | string[] | undefined {
  const optionValue = (label: string) => q.options.find((o) => o.label === label)?.value ?? label;
  switch (q.kind) {
    case "boolean":
      return a.selected[0] === BOOLEAN_LABELS.yes
        ? true
        : a.selected[0] === BOOLEAN_LABELS.no
          ? false
          : undefined;
    case "number": {
      const n = a.other === undefined ? Number.NaN : Number(a.other);
      return Number.isFinite(n) ? n : undefined;
    }
    case "text":
      return a.other;
    case "single":
      return a.selected.length ? optionValue(a.selected[0]) : a.other;
    case "multi":
      return [...a.selected.map(optionValue), ...(a.other !== undefined ? [a.other] : [])];
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}
