/**
 * Replies and outcomes, pure functions (requirements Q6, Q7, Q10): validating a reply against its
 * questions (exported so surfaces can pre-check input with the same messages), the outcome a
 * timeout policy produces, and redaction of secret answers for events and storage.
 */
import {
  type Question,
  type QuestionAnswer,
  type QuestionOutcome,
  QuestionReply,
  type QuestionRequest,
  REDACTED,
} from "../protocol/questions.js";
import { MIN_MASK_LENGTH } from "./secrets.js";
import { checkTyped, defaultAnswer, normalizeTyped, typedHint } from "./typed.js";

export type CheckedReply =
  | { ok: true; answers: Record<string, QuestionAnswer>; unanswered: string[] }
  | { ok: false; message: string };

/**
 * Checks a reply against its questions and normalises it: `selected` de-duplicated, blank
 * `other`/`note` dropped. Rules: at least one question answered (to give no answer, decline) —
 * unless every question is explicitly `required: false`; only known question ids; every present
 * answer must answer (an option or an "other" text — a note alone does not); labels must be
 * options; `single` takes one option; `text` needs a non-empty `other` and no options; `other`
 * only where `allow_other`. Typed rules (typed.ts): `boolean` takes "Yes" or "No"; `number` a
 * number in `other` within its bounds (normalised to `String(n)`); text `format` and lengths;
 * multi `min_items`/`max_items`. A question left out takes its `default` when it has one; a
 * `required: true` question left out without a default is an error. Others left out are `unanswered`.
 */
export function validateReply(questions: Question[], reply: QuestionReply): CheckedReply {
  const parsed = QuestionReply.safeParse(reply);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "reply"}: ${i.message}`);
    return { ok: false, message: `reply is malformed: ${issues.join("; ")}` };
  }
  const given = normalizeAnswers(parsed.data.answers);
  const ids = questions.map((q) => q.id);
  const answers: Record<string, QuestionAnswer> = {};
  for (const id of Object.keys(given)) {
    const q = questions.find((x) => x.id === id);
    if (!q)
      return { ok: false, message: `unknown question "${id}"; expected one of ${quoteList(ids, "or")}` };
    const problem = checkAnswer(q, given[id]);
    if (problem) return { ok: false, message: `question "${id}": ${problem}` };
    answers[id] = normalizeTyped(q, given[id]);
  }
  for (const q of questions) {
    if (Object.hasOwn(answers, q.id)) continue;
    const d = defaultAnswer(q);
    if (d) answers[q.id] = d;
    else if (q.required === true)
      return { ok: false, message: `question "${q.id}" is required; expected ${expectation(q)}` };
  }
  if (Object.keys(answers).length === 0 && !questions.every((q) => q.required === false))
    return {
      ok: false,
      message: `reply answers no question; expected an answer for ${quoteList(ids, "and/or")} (to give no answer, decline)`,
    };
  return { ok: true, answers, unanswered: ids.filter((id) => !Object.hasOwn(answers, id)) };
}

function checkAnswer(q: Question, a: QuestionAnswer): string | undefined {
  if (q.kind === "boolean" || q.kind === "number") return checkTyped(q, a);
  if (q.kind === "text") {
    if (a.selected.length > 0)
      return `this is a free-text question; put the answer in "other", not "selected"`;
    if (a.other === undefined) return `expected a non-empty "other" text`;
    return checkTyped(q, a);
  }
  const expected = expectation(q);
  const labels = q.options.map((o) => o.label);
  const stray = a.selected.find((label) => !labels.includes(label));
  if (stray !== undefined) return `"${stray}" is not an option; expected ${expected}`;
  if (q.kind === "single" && a.selected.length > 1)
    return `takes one option; got ${a.selected.length} (${quoteList(a.selected, "and")})`;
  if (a.other !== undefined && !q.allow_other) return `does not accept free text; expected ${expected}`;
  if (a.selected.length === 0 && a.other === undefined)
    return `nothing chosen; expected ${expected} (a note alone does not answer; leave the question out to skip it)`;
  return checkTyped(q, a);
}

/** What answers `q`, for messages: its options (and "other"), or the typed hint, or any text. */
function expectation(q: Question): string {
  const hint = typedHint(q);
  if (hint) return hint;
  if (q.kind === "text") return `a non-empty "other" text`;
  const labels = q.options.map((o) => o.label);
  return q.allow_other
    ? `one of ${quoteList(labels, ",")} or an "other" text`
    : `one of ${quoteList(labels, "or")}`;
}

/** Structural normalisation, the same for accepted and duplicate replies. */
export function normalizeAnswers(answers: Record<string, QuestionAnswer>): Record<string, QuestionAnswer> {
  const out: Record<string, QuestionAnswer> = {};
  for (const [id, a] of Object.entries(answers)) {
    const n: QuestionAnswer = { selected: [...new Set(a.selected ?? [])] };
    if (a.other !== undefined && a.other.trim() !== "") n.other = a.other;
    if (a.note !== undefined && a.note.trim() !== "") n.note = a.note;
    out[id] = n;
  }
  return out;
}

/** `"a", "b" or "c"` (joiner "or"/"and"), or `"a", "b", "c"` (joiner ","). */
function quoteList(items: string[], joiner: string): string {
  const q = items.map((s) => `"${s}"`);
  if (joiner === "," || q.length < 2) return q.join(", ");
  return `${q.slice(0, -1).join(", ")} ${joiner} ${q[q.length - 1]}`;
}

// ---------------------------------------------------------------------------------------------
// Outcomes and events
// ---------------------------------------------------------------------------------------------

const RECOMMENDED = /\(recommended\)\s*$/i;

/**
 * Q7: `recommended` picks each question's recommended option, else its `default` when the
 * question's own rules accept it (typed.ts defaultAnswer: not blank, within bounds), else leaves
 * it unanswered; `empty`/`decline` answer none. Nothing else is made up: an MCP form that timed
 * out with a required field unanswered is cancelled (tools/mcp/elicitation.ts), never accepted.
 */
export function timeoutOutcome(request: QuestionRequest): QuestionOutcome {
  const policy = request.policy;
  const answers: Record<string, QuestionAnswer> = {};
  const unanswered: string[] = [];
  const pick = policy.type === "timeout" && policy.on_timeout === "recommended";
  for (const q of request.questions) {
    const rec = pick ? q.options.find((o) => RECOMMENDED.test(o.label)) : undefined;
    const fallback = pick ? defaultAnswer(q) : undefined;
    if (rec) answers[q.id] = { selected: [rec.label] };
    else if (fallback) answers[q.id] = fallback;
    else unanswered.push(q.id);
  }
  return { status: "timed_out", policy, answers, unanswered };
}

/** The outcome as events, the store and repliers see it (Q10): see `redactAnswers`. */
export function redactOutcome(
  request: QuestionRequest,
  outcome: QuestionOutcome,
  maskKnown?: (text: string) => string,
): QuestionOutcome {
  if (outcome.status !== "answered" && outcome.status !== "timed_out") return outcome;
  return { ...outcome, answers: redactAnswers(request.questions, outcome.answers, maskKnown) };
}

/**
 * Answers with `other`/`note` of secret questions replaced by REDACTED, and the values of those
 * secret answers (as typed and trimmed, when at least MIN_MASK_LENGTH long) masked wherever the
 * user also typed them into the free text or note of another question of the same reply.
 * `maskKnown` additionally masks that text against secrets held from earlier answers.
 */
export function redactAnswers(
  questions: Question[],
  given: Record<string, QuestionAnswer>,
  maskKnown?: (text: string) => string,
): Record<string, QuestionAnswer> {
  const secret = new Set(questions.filter((q) => q.secret).map((q) => q.id));
  const values = new Set<string>();
  for (const id of secret) {
    const other = Object.hasOwn(given, id) ? given[id].other : undefined;
    for (const v of other === undefined ? [] : [other, other.trim()])
      if (v.length >= MIN_MASK_LENGTH) values.add(v);
  }
  const longestFirst = [...values].sort((a, b) => b.length - a.length);
  const mask = (text: string) => {
    let out = text;
    for (const v of longestFirst) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return maskKnown ? maskKnown(out) : out;
  };
  const answers: Record<string, QuestionAnswer> = {};
  for (const [id, a] of Object.entries(given)) {
    const replace = secret.has(id) ? () => REDACTED : mask;
    answers[id] = {
      ...a,
      ...(a.other !== undefined && { other: replace(a.other) }),
      ...(a.note !== undefined && { note: replace(a.note) }),
    };
  }
  return answers;
}
