/**
 * The one parser for text channels (requirements Q13): a TTY prompt, `tandem resume --answer id=value`,
 * a chat-style reply. Every text surface turns a line into a `QuestionAnswer` here, so "2" means
 * the same thing everywhere.
 *
 * Grammar for a question with options (whitespace around the answer is ignored):
 *   2                      option number, 1-based
 *   1,3   or   1 3         several numbers (multi-select questions only)
 *   Postgres               a label: exact, case-insensitive, with or without " (Recommended)"
 *   Postgres, SQLite       several labels separated by "," (multi-select questions only)
 *   other: my own answer   explicit free text (the question must allow "Other")
 *   anything else          free text, when the question allows "Other"; otherwise an error
 *   <answer> -- <note>     a note after " -- " (whitespace around the dashes) goes in `note`
 * A number always means an option; to answer the literal text "2", write "other: 2".
 *
 * Typed questions: a `boolean` takes yes/no, y/n, true/false or 1/2 (any case); a `number`
 * takes the number ("42", "-1.5", "1e3"); a text with a `format` takes that format. The typed
 * rules (typed.ts) are checked here too, with the same messages `validateReply` gives.
 *
 * Free-text questions take any non-empty text (trimmed); a " -- " splits off a note there too. Secret questions
 * take the text exactly as typed (only a trailing line break is removed) and never echo it in errors.
 *
 * A whole request answered by one text (a chat reply, `parseRequestText`): with one question the
 * text is its answer; with several, each non-empty line answers the next question in order.
 * `questionText` renders a request for such a channel, with its numbered options and that rule.
 */
import {
  BOOLEAN_LABELS,
  elicitationLabel,
  type Question,
  type QuestionAnswer,
  type QuestionRequest,
} from "../protocol/questions.js";
import { printable } from "../util/printable.js";
import { stripRecommended } from "./model.js";
import { checkTyped, typedHint } from "./typed.js";

export type ParsedReply = { ok: true; answer: QuestionAnswer } | { ok: false; error: string };

const NOTE_RE = /(?:^|\s+)--(?:\s+|$)/;
const OTHER_RE = /^other\s*:\s*/i;
const NUMBERS_RE = /^\d+[.)]?(?:\s*[,\s]\s*\d+[.)]?)*$/;

/** What a reply to `question` may look like, for prompts and error messages. */
export function expectedInput(question: Question): string {
  if (question.secret) return "the secret value";
  if (question.kind === "boolean") return `"yes" or "no"`;
  const typed = typedHint(question);
  if (typed) return typed;
  const n = question.options.length;
  if (question.kind === "text" || n === 0) return "any non-empty text";
  const range = n === 1 ? "1" : `1-${n}`;
  if (question.kind === "multi")
    return question.allow_other
      ? `numbers ${range} (e.g. "1,3"), labels separated by ",", or "other: <text>"`
      : `numbers ${range} (e.g. "1,3") or labels separated by ","`;
  return question.allow_other
    ? `a number ${range}, a label, or "other: <text>"`
    : `a number ${range} or a label`;
}

/** Parses one text reply to `question`. Never throws; errors say what was expected. */
export function parseTextReply(question: Question, text: string): ParsedReply {
  const parsed = parseUntyped(question, text);
  if (!parsed.ok) return parsed;
  const problem = checkTyped(question, parsed.answer);
  return problem ? { ok: false, error: `question "${question.id}": ${problem}` } : parsed;
}

const YES = new Set(["yes", "y", "true", "1"]);
const NO = new Set(["no", "n", "false", "2"]);

function parseUntyped(question: Question, text: string): ParsedReply {
  const q = question;
  const fail = (why: string): ParsedReply => ({ ok: false, error: `question "${q.id}": ${why}` });

  if (q.secret) {
    const value = text.replace(/\r?\n$/, "");
    if (value.trim() === "") return fail("needs an answer; expected the secret value");
    return { ok: true, answer: { selected: [], other: value } };
  }
  const trimmed = text.trim();
  if (trimmed === "") return fail(`needs an answer; expected ${expectedInput(q)}`);
  let body = trimmed;
  let note: string | undefined;
  const m = NOTE_RE.exec(trimmed);
  if (m) {
    body = trimmed.slice(0, m.index).trim();
    note = trimmed.slice(m.index + m[0].length).trim() || undefined;
  }
  if (body === "") return fail(`the answer before " -- " is empty; expected ${expectedInput(q)}`);
  const answer = (selected: string[], other?: string): ParsedReply => {
    const a: QuestionAnswer = { selected };
    if (other !== undefined) a.other = other;
    if (note !== undefined) a.note = note;
    return { ok: true, answer: a };
  };
  if (q.kind === "boolean") {
    const word = body.toLowerCase();
    if (YES.has(word)) return answer([BOOLEAN_LABELS.yes]);
    if (NO.has(word)) return answer([BOOLEAN_LABELS.no]);
    return fail(`"${body}" is neither yes nor no; expected ${expectedInput(q)}`);
  }
  if (q.kind === "text" || q.kind === "number" || q.options.length === 0) return answer([], body);

  const other = OTHER_RE.exec(body);
  if (other) {
    if (!q.allow_other) return fail(`does not accept free text; expected ${expectedInput(q)}`);
    const rest = body.slice(other[0].length).trim();
    if (rest === "") return fail('"other:" needs text after it, e.g. "other: use MySQL"');
    return answer([], rest);
  }

  if (NUMBERS_RE.test(body)) {
    const numbers = body.split(/[\s,]+/).map((s) => Number.parseInt(s, 10));
    const missing = numbers.find((n) => n < 1 || n > q.options.length);
    if (missing !== undefined) return fail(`there is no option ${missing}; expected ${expectedInput(q)}`);
    const picked = inOptionOrder(q, new Set(numbers.map((n) => n - 1)));
    if (q.kind === "single" && picked.length > 1) return fail(`takes one option; got ${picked.length}`);
    return answer(picked);
  }

  const label = matchLabel(q, body);
  if (label !== undefined) return answer([q.options[label].label]);

  if (q.kind === "multi" && body.includes(",")) {
    const parts = body
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const indexes = parts.map((p) => (/^\d+$/.test(p) ? Number(p) - 1 : matchLabel(q, p)));
    if (indexes.every((i) => i !== undefined && i >= 0 && i < q.options.length))
      return answer(inOptionOrder(q, new Set(indexes as number[])));
  }

  if (q.allow_other) return answer([], body);
  return fail(`"${body}" matches no option; expected ${expectedInput(q)}`);
}

/** Index of the option whose label matches `text`: exact, then case-insensitive, then without "(Recommended)". */
function matchLabel(q: Question, text: string): number | undefined {
  const exact = q.options.findIndex((o) => o.label === text);
  if (exact >= 0) return exact;
  const lower = text.toLowerCase();
  const loose = q.options.findIndex((o) => o.label.toLowerCase() === lower);
  if (loose >= 0) return loose;
  const bare = stripRecommended(lower).trim();
  const stripped = q.options.findIndex((o) => stripRecommended(o.label).trim().toLowerCase() === bare);
  return stripped >= 0 ? stripped : undefined;
}

function inOptionOrder(q: Question, indexes: Set<number>): string[] {
  return q.options.filter((_, i) => indexes.has(i)).map((o) => o.label);
}

export type ParsedAnswerArg = { ok: true; id: string; text: string } | { ok: false; error: string };

/**
 * Splits a CLI `--answer id=value` on the first "=". The value is returned verbatim (it may
 * contain "=" and may be a secret); feed it to `parseTextReply` for that question.
 */
export function parseAnswerArg(arg: string): ParsedAnswerArg {
  // Errors never echo the argument: without "=" it may be a bare secret value.
  const i = arg.indexOf("=");
  if (i < 0) return { ok: false, error: 'expected --answer <question_id>=<answer>; the "=" is missing' };
  const id = arg.slice(0, i).trim();
  if (id === "")
    return { ok: false, error: 'expected --answer <question_id>=<answer>; the id before "=" is empty' };
  return { ok: true, id, text: arg.slice(i + 1) };
}

export type ParsedRequestReply =
  | { ok: true; answers: Record<string, QuestionAnswer> }
  | { ok: false; error: string };

/**
 * Parses one text reply to a whole request (see the file comment): one question takes the whole
 * text, several take one non-empty line each, in order (fewer lines leave the last ones out: the
 * broker decides whether that is enough). Never throws; errors say what was expected.
 */
export function parseRequestText(
  request: Pick<QuestionRequest, "questions">,
  text: string,
): ParsedRequestReply {
  const qs = request.questions;
  const parts =
    qs.length === 1
      ? [text]
      : text
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l !== "");
  if (qs.length > 1 && parts.length > qs.length)
    return {
      ok: false,
      error: `got ${parts.length} lines for ${qs.length} questions; reply with one line per question, in order`,
    };
  if (parts.length === 0) return { ok: false, error: "the reply is empty; reply with one line per question" };
  const answers: Record<string, QuestionAnswer> = {};
  for (const [i, part] of parts.entries()) {
    const r = parseTextReply(qs[i], part);
    if (!r.ok) return r;
    answers[qs[i].id] = r.answer;
  }
  return { ok: true, answers };
}

/**
 * A request as plain text for a chat (a notification, a reply link): who asks, each question with
 * its numbered options, and how to reply. Text from the model or a server is made printable
 * (util/printable.ts: no control or bidi characters act). A secret question shows its prompt only
 * (it has no values to show); callers that must not offer secrets leave such requests out.
 */
export function questionText(request: Pick<QuestionRequest, "questions" | "elicitation" | "agent">): string {
  const lines: string[] = [];
  if (request.elicitation)
    lines.push(printable(elicitationLabel(request.elicitation)), printable(request.elicitation.message), "");
  else if (request.agent) lines.push(`Sub-agent ${printable(request.agent.nickname)} asks:`, "");
  const many = request.questions.length > 1;
  for (const [i, q] of request.questions.entries()) {
    const head = q.header && q.header !== q.prompt ? `${printable(q.header)}: ` : "";
    lines.push(`${many ? `${i + 1}) ` : ""}${head}${printable(q.prompt)}`);
    for (const [n, o] of q.options.entries())
      lines.push(`  ${n + 1}. ${printable(o.label)}${o.description ? ` — ${printable(o.description)}` : ""}`);
    lines.push(`  Reply: ${expectedInput(q)}${q.secret ? "" : ' (add " -- note" for a note)'}`);
    if (many) lines.push("");
  }
  if (many) lines.push("Reply with one line per question, in order.");
  return `${lines.join("\n").trimEnd()}\n`;
}
