/**
 * `{{answer:ID}}` placeholders: a script step may use what the user answered to an earlier
 * `request_user_input` call (documented in docs/mock-model.md).
 *
 * Contract: `answersIn(body)` reads every tool output in the request (Responses
 * `function_call_output.output`, chat `role: "tool"` content) that is a JSON object with an
 * `answers` record — the shape request_user_input returns — later outputs overriding earlier
 * ones. An answer's value is its free text (`other`) if any, else its first selected label.
 * `fillAnswers` replaces `{{answer:ID}}` with that value ("" when unanswered) and
 * `{{answer:ID|slug}}` with a lowercase `[a-z0-9-]` form of it ("demo" when empty), which is
 * safe inside shell words and package names. Text without placeholders is returned unchanged.
 */

const PLACEHOLDER = /\{\{answer:([^}|]+)(\|slug)?\}\}/g;

export type Answers = Map<string, string>;

export function answersIn(body: Record<string, unknown>): Answers {
  const out: Answers = new Map();
  const items = Array.isArray(body.input) ? body.input : Array.isArray(body.messages) ? body.messages : [];
  for (const raw of items) {
    if (typeof raw !== "object" || raw === null) continue;
    const item = raw as Record<string, unknown>;
    const text =
      item.type === "function_call_output" ? item.output : item.role === "tool" ? item.content : undefined;
    if (typeof text !== "string") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    const answers = (parsed as { answers?: unknown } | null)?.answers;
    if (typeof answers !== "object" || answers === null) continue;
    for (const [id, a] of Object.entries(answers as Record<string, unknown>)) {
      const answer = a as { other?: unknown; selected?: unknown } | null;
      const other = typeof answer?.other === "string" ? answer.other.trim() : "";
      const first = Array.isArray(answer?.selected) ? answer.selected[0] : undefined;
      out.set(id, other || (typeof first === "string" ? first : ""));
    }
  }
  return out;
}

export function slug(value: string): string {
  const s = value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return s || "demo";
}

/** Fills placeholders; `encode` transforms each inserted value (e.g. for JSON string bodies). */
export function fillAnswers(
  text: string,
  answers: Answers,
  encode: (v: string) => string = (v) => v,
): string {
  return text.replace(PLACEHOLDER, (_m, id: string, slugged?: string) => {
    const value = answers.get(id) ?? "";
    return encode(slugged ? slug(value) : value);
  });
}

/** Fills placeholders in every string inside a JSON-like value. */
export function fillDeep(value: unknown, answers: Answers): unknown {
  if (typeof value === "string") return fillAnswers(value, answers);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, answers));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, answers)]));
  return value;
}
