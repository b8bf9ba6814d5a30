/**
 * Typed question rules (requirements S6), pure functions used by `validateReply` and the text parser:
 * text formats and lengths, numbers with bounds, boolean Yes/No, multi-select item counts, and
 * the answer a question's `default` stands for. Messages never echo a secret question's value.
 */
import {
  BOOLEAN_LABELS,
  type Question,
  type QuestionAnswer,
  type TextFormat,
} from "../protocol/questions.js";

/** The answer `q.default` stands for, or undefined when there is none or it does not fit `q`. */
export function defaultAnswer(q: Question): QuestionAnswer | undefined {
  const d = q.default;
  if (d === undefined) return undefined;
  let answer: QuestionAnswer | undefined;
  const labels = q.options.map((o) => o.label);
  if (q.kind === "boolean" && typeof d === "boolean")
    answer = { selected: [d ? BOOLEAN_LABELS.yes : BOOLEAN_LABELS.no] };
  else if (q.kind === "number" && typeof d === "number") answer = { selected: [], other: String(d) };
  else if (q.kind === "text" && typeof d === "string" && d.trim() !== "") answer = { selected: [], other: d };
  else if (q.kind === "single" && typeof d === "string" && labels.includes(d)) answer = { selected: [d] };
  else if (q.kind === "multi" && Array.isArray(d) && d.every((l) => labels.includes(l)))
    answer = { selected: labels.filter((l) => d.includes(l)) };
  if (!answer) return undefined;
  // A default the question's own rules refuse (out of range, too few items) is no default.
  return checkTyped(q, answer) === undefined ? normalizeTyped(q, answer) : undefined;
}

/**
 * The problem with `a` under `q`'s typed rules (kinds boolean and number; format and lengths of
 * text; item counts of multi), or undefined. Base rules (known labels, one option for single)
 * are checked by the caller first.
 */
export function checkTyped(q: Question, a: QuestionAnswer): string | undefined {
  const shown = (v: string) => (q.secret ? "the answer" : `"${v}"`);
  if (q.kind === "boolean") {
    const labels = `"${BOOLEAN_LABELS.yes}" or "${BOOLEAN_LABELS.no}"`;
    if (a.other !== undefined) return `takes ${labels} in "selected", not free text`;
    if (a.selected.length !== 1) return `expected exactly one of ${labels}`;
    if (a.selected[0] !== BOOLEAN_LABELS.yes && a.selected[0] !== BOOLEAN_LABELS.no)
      return `"${a.selected[0]}" is not an option; expected ${labels}`;
    return undefined;
  }
  if (q.kind === "number") {
    if (a.selected.length > 0) return `this is a number question; put the number in "other", not "selected"`;
    if (a.other === undefined) return `expected ${numberHint(q)} in "other"`;
    const n = parseNumber(a.other);
    if (n === undefined) return `${shown(a.other.trim())} is not a number; expected ${numberHint(q)}`;
    if (q.integer && !Number.isInteger(n))
      return `${shown(a.other.trim())} is not a whole number; expected ${numberHint(q)}`;
    if ((q.minimum !== undefined && n < q.minimum) || (q.maximum !== undefined && n > q.maximum))
      return `${shown(a.other.trim())} is out of range; expected ${numberHint(q)}`;
    return undefined;
  }
  if (q.kind === "text" && a.other !== undefined) {
    const value = q.format ? a.other.trim() : a.other;
    const length = [...value].length;
    if (q.min_length !== undefined && length < q.min_length)
      return `too short: ${length} characters; expected at least ${q.min_length}`;
    if (q.max_length !== undefined && length > q.max_length)
      return `too long: ${length} characters; expected at most ${q.max_length}`;
    if (q.format && !FORMAT_CHECKS[q.format](value))
      return `${shown(value)} is not ${FORMAT_HINTS[q.format]}`;
    return undefined;
  }
  if (q.kind === "multi") {
    const count = a.selected.length + (a.other !== undefined ? 1 : 0);
    if (q.min_items !== undefined && count < q.min_items)
      return `choose at least ${q.min_items} option${q.min_items === 1 ? "" : "s"}; got ${count}`;
    if (q.max_items !== undefined && count > q.max_items)
      return `choose at most ${q.max_items} option${q.max_items === 1 ? "" : "s"}; got ${count}`;
  }
  return undefined;
}

/** A valid answer in canonical form: numbers as `String(n)`, formatted text trimmed. */
export function normalizeTyped(q: Question, a: QuestionAnswer): QuestionAnswer {
  if (q.kind === "number" && a.other !== undefined) {
    const n = parseNumber(a.other);
    if (n !== undefined) return { ...a, other: String(n) };
  }
  if (q.kind === "text" && q.format && a.other !== undefined) return { ...a, other: a.other.trim() };
  return a;
}

/** What a typed question expects, for prompts and errors ("a whole number from 1 to 10"). */
export function typedHint(q: Question): string | undefined {
  if (q.kind === "number") return numberHint(q);
  if (q.kind === "boolean") return `"${BOOLEAN_LABELS.yes}" or "${BOOLEAN_LABELS.no}"`;
  if (q.kind === "text" && q.format) return FORMAT_HINTS[q.format];
  return undefined;
}

function numberHint(q: Question): string {
  const what = q.integer ? "a whole number" : "a number";
  if (q.minimum !== undefined && q.maximum !== undefined) return `${what} from ${q.minimum} to ${q.maximum}`;
  if (q.minimum !== undefined) return `${what} of at least ${q.minimum}`;
  if (q.maximum !== undefined) return `${what} of at most ${q.maximum}`;
  return what;
}

const NUMBER_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A finite decimal number written in plain JSON-like notation; undefined otherwise ("0x10", "", "1e999"). */
export function parseNumber(text: string): number | undefined {
  const t = text.trim();
  if (!NUMBER_RE.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

const FORMAT_HINTS: Record<TextFormat, string> = {
  email: "an email address (e.g. name@example.com)",
  uri: "a URI with a scheme (e.g. https://example.com)",
  date: "a date YYYY-MM-DD (e.g. 2026-07-14)",
  "date-time": "a date and time with a zone (e.g. 2026-07-14T09:30:00Z)",
};

const EMAIL_RE =
  /^[^\s@"(),:;<>[\\\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const URI_RE = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_RE =
  /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

function isDate(text: string): boolean {
  const m = DATE_RE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

const FORMAT_CHECKS: Record<TextFormat, (text: string) => boolean> = {
  email: (t) => EMAIL_RE.test(t),
  uri: (t) => URI_RE.test(t) && URL.canParse(t),
  date: isDate,
  "date-time": (t) => {
    const m = DATE_TIME_RE.exec(t);
    if (!m || !isDate(m[1])) return false;
    const [h, mi, s] = [Number(m[2]), Number(m[3]), Number(m[4])];
    const zoneOk = m[5] === undefined || (Number(m[6]) <= 23 && Number(m[7]) <= 59);
    return h <= 23 && mi <= 59 && s <= 60 && zoneOk;
  },
};
