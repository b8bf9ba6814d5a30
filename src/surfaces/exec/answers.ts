/**
 * Answers given to `tandem exec resume` for deferred questions (requirements Q12, Q10; README "Sandbox and approvals").
 *
 * Sources, and which may carry a secret answer:
 * - `--answer ID=VALUE` and `--answer-json JSON` are on the command line, which every local user
 *   can read (`ps`, /proc/PID/cmdline) and shells keep in history: never for a secret question.
 *   Such an answer is refused with a message saying how to give it (exit 2, nothing recorded).
 * - `--answer ID=-` reads the value from stdin: a prompt with echo off when stdin is a terminal,
 *   else the next line of stdin (several `=-` answers take one line each, in argument order).
 * - `--answer-file FILE` (`-` reads stdin): a JSON object `{"ID": "text", "ID": {"selected":
 *   [...], "other": "...", "note": "..."}}` (a string is parsed like `--answer`), or, when the file
 *   does not start with "{", `ID=VALUE` lines (VALUE verbatim to the end of the line; blank lines
 *   and lines starting with "#" are skipped).
 * Errors never echo a value (it may be a secret).
 */
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import {
  type QuestionAnswer,
  type QuestionReply,
  QuestionReply as QuestionReplySchema,
  type QuestionRequest,
} from "../../protocol/questions.js";
import { parseAnswerArg, parseTextReply } from "../../questions/text-reply.js";

/** One answer as text, with where it came from (argv answers may not be secret). */
export interface TextAnswer {
  id: string;
  text: string;
  fromArgv: boolean;
}

/** Everything the run was given to answer with. */
export interface GivenAnswers {
  texts: TextAnswer[];
  /** Typed answers: from `--answer-json` (argv) and/or a JSON `--answer-file`. */
  typed: Array<{ answers: Record<string, QuestionAnswer>; fromArgv: boolean; source: string }>;
}

export type Collected = { ok: true; given: GivenAnswers } | { ok: false; error: string };

/** Options as parsed by args.ts. */
export interface AnswerOptions {
  answers: string[];
  answerJson?: string;
  answerFile?: string;
}

/**
 * Gathers the answers of a run: parses `--answer` / `--answer-json`, reads `--answer-file`, and
 * reads stdin for `--answer ID=-` (hidden prompt on a terminal). Nothing is checked against the
 * questions yet (see `replyFromAnswers`).
 */
export async function collectAnswers(opts: AnswerOptions, input = process.stdin): Promise<Collected> {
  const given: GivenAnswers = { texts: [], typed: [] };
  if (opts.answerJson) {
    const typed = parseTyped(opts.answerJson, "--answer-json");
    if (!typed.ok) return typed;
    given.typed.push({ answers: typed.answers, fromArgv: true, source: "--answer-json" });
  }
  const fromStdin: string[] = [];
  for (const spec of opts.answers) {
    const arg = parseAnswerArg(spec);
    if (!arg.ok) return { ok: false, error: arg.error };
    if (arg.text === "-") fromStdin.push(arg.id);
    else given.texts.push({ id: arg.id, text: arg.text, fromArgv: true });
  }
  if (opts.answerFile !== undefined) {
    if (opts.answerFile === "-" && fromStdin.length)
      return { ok: false, error: "--answer-file - and --answer ID=- both read stdin; use one of them" };
    let content: string;
    try {
      content = opts.answerFile === "-" ? await readAll(input) : readFileSync(opts.answerFile, "utf8");
    } catch (err) {
      return { ok: false, error: `cannot read --answer-file ${opts.answerFile}: ${(err as Error).message}` };
    }
    const file = parseAnswerFile(content);
    if (!file.ok) return { ok: false, error: `--answer-file ${opts.answerFile}: ${file.error}` };
    given.texts.push(...file.texts);
    if (file.typed) given.typed.push({ answers: file.typed, fromArgv: false, source: "--answer-file" });
  }
  if (fromStdin.length) {
    const lines = await readStdinValues(fromStdin, input);
    if (!lines.ok) return lines;
    fromStdin.forEach((id, i) => {
      given.texts.push({ id, text: lines.values[i], fromArgv: false });
    });
  }
  return { ok: true, given };
}

type ParsedFile =
  | { ok: true; texts: TextAnswer[]; typed?: Record<string, QuestionAnswer> }
  | { ok: false; error: string };

/** The contents of an `--answer-file`: a JSON object, or `ID=VALUE` lines. */
export function parseAnswerFile(content: string): ParsedFile {
  if (content.trimStart().startsWith("{")) {
    let raw: unknown;
    try {
      raw = JSON.parse(content);
    } catch (err) {
      return { ok: false, error: `not valid JSON: ${(err as Error).message.replace(/"[^"]*"/g, "…")}` };
    }
    const texts: TextAnswer[] = [];
    const objects: Record<string, unknown> = {};
    for (const [id, v] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof v === "string") texts.push({ id, text: v, fromArgv: false });
      else objects[id] = v;
    }
    if (!Object.keys(objects).length) return { ok: true, texts };
    const typed = checkTyped(objects, "the JSON answers");
    return typed.ok ? { ok: true, texts, typed: typed.answers } : typed;
  }
  const texts: TextAnswer[] = [];
  for (const [i, raw] of content.split("\n").entries()) {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const arg = parseAnswerArg(line);
    if (!arg.ok) return { ok: false, error: `line ${i + 1}: expected ID=VALUE (or a JSON object)` };
    texts.push({ id: arg.id, text: arg.text, fromArgv: false });
  }
  return { ok: true, texts };
}

/** How a secret question must be answered, for refusals and the deferred-question hint. */
export function secretAnswerHelp(id: string): string {
  return `give it with --answer ${id}=- (read from stdin, hidden on a terminal) or --answer-file FILE (a line ${id}=VALUE)`;
}

/**
 * One error per answer whose id names no question of the pending requests, naming the ids that
 * can be answered: a typo (`{"stak": …}`) is refused instead of answering nothing while the run
 * defers again. Call it only when something is pending.
 */
export function unknownAnswerIds(pending: QuestionRequest[], given: GivenAnswers): string[] {
  const known = pending.flatMap((r) => r.questions.map((q) => q.id));
  const ids = new Set(known);
  const list = known.map((id) => `"${id}"`).join(", ");
  const unknown = (source: string, id: string) =>
    `${source}: "${id}" matches no pending question; the pending question ids are ${list}`;
  const errors: string[] = [];
  for (const t of given.typed)
    for (const id of Object.keys(t.answers)) if (!ids.has(id)) errors.push(unknown(t.source, id));
  for (const t of given.texts)
    if (!ids.has(t.id)) errors.push(unknown(t.fromArgv ? "--answer" : "--answer-file", t.id));
  return errors;
}

/**
 * Builds the reply for one pending request. An argv answer to a secret question is an error
 * (never echoing the value); so is an answer that does not fit its question.
 */
export function replyFromAnswers(
  request: QuestionRequest,
  given: GivenAnswers,
): { reply?: QuestionReply; errors: string[] } {
  const errors: string[] = [];
  const out: Record<string, QuestionAnswer> = {};
  const refuse = (flag: string, id: string) =>
    errors.push(
      `${flag} ${id}: "${id}" is a secret question, and a value on the command line is visible to other ` +
        `users (ps) and kept in shell history; ${secretAnswerHelp(id)}`,
    );
  for (const t of given.typed) {
    for (const [id, a] of Object.entries(t.answers)) {
      const q = request.questions.find((x) => x.id === id);
      if (!q) continue;
      if (q.secret && t.fromArgv) refuse(t.source, id);
      else out[id] = a;
    }
  }
  for (const t of given.texts) {
    const q = request.questions.find((x) => x.id === t.id);
    if (!q) continue;
    if (q.secret && t.fromArgv) {
      refuse("--answer", q.id);
      continue;
    }
    const r = parseTextReply(q, t.text);
    if (r.ok) out[q.id] = r.answer;
    else errors.push(`--answer ${q.id}: ${r.error}`);
  }
  if (!Object.keys(out).length && !errors.length) return { errors };
  return { reply: { answers: out }, errors };
}

function parseTyped(json: string, flag: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    return { ok: false as const, error: `${flag} is not valid JSON: ${(err as Error).message}` };
  }
  return checkTyped(raw, flag);
}

function checkTyped(raw: unknown, what: string) {
  const parsed = QuestionReplySchema.safeParse({ answers: raw });
  if (!parsed.success)
    return { ok: false as const, error: `${what}: ${parsed.error.issues.map((i) => i.message).join("; ")}` };
  return { ok: true as const, answers: parsed.data.answers };
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of input) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** One value per id: hidden prompts on a terminal, else one line of stdin each. */
async function readStdinValues(
  ids: string[],
  input: NodeJS.ReadableStream & { isTTY?: boolean },
): Promise<{ ok: true; values: string[] } | { ok: false; error: string }> {
  if (!input.isTTY) {
    const lines = (await readAll(input)).split("\n").map((l) => l.replace(/\r$/, ""));
    if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    if (lines.length < ids.length)
      return {
        ok: false,
        error: `--answer ${ids[lines.length]}=- expects a line on stdin, but stdin has only ${lines.length} line(s)`,
      };
    return { ok: true, values: lines.slice(0, ids.length) };
  }
  // Echo goes through this stream, muted while a value is typed.
  let muted = false;
  const echo = new Writable({
    write(chunk, _enc, cb) {
      if (!muted) process.stderr.write(chunk);
      cb();
    },
  });
  const rl = createInterface({ input, output: echo, terminal: true });
  try {
    const values: string[] = [];
    for (const id of ids) {
      const asking = rl.question(`${id} (hidden)> `);
      muted = true;
      values.push(await asking);
      muted = false;
      process.stderr.write("\n");
    }
    return { ok: true, values };
  } finally {
    rl.close();
  }
}
