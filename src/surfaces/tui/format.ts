/** Small pure formatting helpers shared by the views (tested directly). */
import type { QuestionAnswer, QuestionOutcome, QuestionRequest } from "../../protocol/questions.js";
import { REDACTED } from "../../protocol/questions.js";

export const MASK = "••••";

/** Long output folded to its head and tail with a marker saying how much is hidden. */
export function fold(text: string, head = 4, tail = 4): string[] {
  const lines = text.replace(/\n+$/, "").split("\n");
  if (text.trim() === "") return [];
  if (lines.length <= head + tail + 1) return lines;
  return [...lines.slice(0, head), `… ${lines.length - head - tail} more lines`, ...lines.slice(-tail)];
}

/** The last `n` lines of text (live output). */
export function tailLines(text: string, n: number): string[] {
  const lines = text.replace(/\n+$/, "").split("\n");
  return text === "" ? [] : lines.slice(-n);
}

/** 1234 → "1.2k", 2_500_000 → "2.5M". */
export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s`;
}

/** Seconds left until `deadline`, never negative. */
export const secondsLeft = (deadline: number, now: number) => Math.max(0, Math.ceil((deadline - now) / 1000));

/** `~/x` for paths under home, and the tail of long paths. */
export function shortPath(path: string, home = process.env.HOME ?? "", max = 40): string {
  const p = home && path.startsWith(home) ? `~${path.slice(home.length)}` : path;
  return p.length > max ? `…${p.slice(-(max - 1))}` : p;
}

/** One question's answer as shown in history; secrets (or redacted values) as ••••. */
export function answerText(answer: QuestionAnswer | undefined, secret: boolean): string {
  if (!answer) return "(unanswered)";
  const hide = (s: string) => (secret || s === REDACTED ? MASK : s);
  const parts: string[] = [...answer.selected];
  if (answer.other !== undefined)
    parts.push(secret || answer.other === REDACTED ? MASK : `“${answer.other}”`);
  let text = parts.join(", ") || "(no choice)";
  if (answer.note !== undefined) text += ` · note: ${hide(answer.note)}`;
  return text;
}

/** Headline of a settled question entry. */
export function outcomeTitle(outcome: QuestionOutcome): string {
  switch (outcome.status) {
    case "answered":
      return `answered by ${outcome.responder.kind}`;
    case "declined":
      return `declined by ${outcome.responder.kind}${outcome.reason ? ` (${outcome.reason})` : ""}`;
    case "timed_out":
      return `timed out (policy: ${outcome.policy.type === "timeout" ? outcome.policy.on_timeout : "wait"})`;
    case "cancelled":
      return `cancelled (${outcome.reason})`;
    default:
      return `unavailable (${outcome.reason})`;
  }
}

/** Per question: header, prompt and shown answer, for a settled request. */
export function answerRows(
  request: QuestionRequest,
  outcome: QuestionOutcome,
): Array<{ id: string; header: string; prompt: string; answer: string | null }> {
  const answers =
    outcome.status === "answered" || outcome.status === "timed_out" ? outcome.answers : undefined;
  return request.questions.map((q) => ({
    id: q.id,
    header: q.header || q.id,
    prompt: q.prompt,
    answer: answers ? answerText(answers[q.id], q.secret) : null,
  }));
}

/** What the overlay says when someone else settled the question on screen. */
export function settledText(outcome: QuestionOutcome): string {
  switch (outcome.status) {
    case "answered":
      return `Answered elsewhere (by ${outcome.responder.kind}${outcome.responder.id ? ` ${outcome.responder.id}` : ""}).`;
    case "declined":
      return `Declined elsewhere (by ${outcome.responder.kind}).`;
    case "timed_out":
      return `Timed out: the "${outcome.policy.type === "timeout" ? outcome.policy.on_timeout : "wait"}" policy settled it.`;
    default:
      return `No longer pending (${outcome.status}).`;
  }
}
