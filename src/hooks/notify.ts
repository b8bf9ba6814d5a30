/**
 * Notifications (README "Hooks", "Notifications"): when a question or approval starts waiting,
 * when a turn ends and when one fails, Tandem fires the `Notification` hook event and runs the
 * `notify` program of config.toml (Codex's setting: `notify = ["program", "arg"…]`), which gets
 * the payload as JSON in its last argument (as Codex passes it) and on stdin.
 *
 * The payload has Codex's fields where they apply (`type`, `thread-id`, `turn-id`, `cwd`,
 * `input-messages`, `last-assistant-message`) and Tandem's: `message`, `question-id` for a
 * waiting question, and `url` — a deep link `http://HOST:PORT/#thread=ID&question=RID` into
 * `tandem serve`'s web page when this process serves one (absent otherwise; the server's token
 * is never part of it). For a waiting question also `question-text` (the question as plain text
 * with its numbered options) and, when serving, `reply-url` (`http://HOST:PORT/reply/TOKEN`, a
 * link that answers that one question: runtime/reply-links.ts); neither for a secret question.
 * The link is a credential: the program gets it on stdin and in $TANDEM_REPLY_URL, never in its
 * arguments, which every local user can read (runtime/hooks.ts).
 */
import type { Event } from "../protocol/events.js";

export type NotificationKind =
  | "approval-requested"
  | "question-requested"
  | "agent-turn-complete"
  | "turn-failed";

export interface Notification {
  kind: NotificationKind;
  /** Claude Code's `notification_type` for the Notification hook event. */
  notificationType: string;
  message: string;
  threadId: string;
  turnId: string;
  questionId?: string;
}

/** The notification `event` stands for, if any. */
export function notificationFor(event: Event): Notification | undefined {
  if (event.type === "question.requested") {
    const r = event.request;
    const approval = !!r.approval;
    const elicitation = !!r.elicitation;
    const first = r.questions[0];
    const what = approval
      ? `approval needed: ${r.approval?.command ? `run ${r.approval.command}` : (r.approval?.paths?.join(", ") ?? "a change")}`
      : `question: ${first?.prompt ?? first?.header ?? "input needed"}`;
    return {
      kind: approval ? "approval-requested" : "question-requested",
      notificationType: approval
        ? "permission_prompt"
        : elicitation
          ? "elicitation_dialog"
          : "question_prompt",
      message: `Tandem is waiting for you — ${what}`.slice(0, 500),
      threadId: event.thread_id,
      turnId: event.turn_id,
      questionId: r.request_id,
    };
  }
  if (event.type === "turn.completed" && event.status !== "interrupted") {
    const failed = event.status === "failed";
    return {
      kind: failed ? "turn-failed" : "agent-turn-complete",
      notificationType: failed ? "turn_failed" : "turn_complete",
      message: failed ? `Turn failed: ${event.error?.message ?? "unknown error"}` : "Turn complete",
      threadId: event.thread_id,
      turnId: event.turn_id,
    };
  }
  return undefined;
}

/** The deep link into a serving web page (no token: the page asks for it). */
export function deepLink(
  base: string | undefined,
  threadId: string,
  questionId?: string,
): string | undefined {
  if (!base) return undefined;
  const q = questionId ? `&question=${encodeURIComponent(questionId)}` : "";
  return `${base.replace(/\/+$/, "")}/#thread=${encodeURIComponent(threadId)}${q}`;
}

/** The `notify` program's payload (Codex's field names, plus Tandem's). */
export function notifyPayload(
  n: Notification,
  extra: {
    cwd: string;
    inputMessages: string[];
    lastAssistantMessage: string | null;
    url?: string;
    /** The waiting request as text with its numbered options (never for a secret question). */
    "question-text"?: string;
    /** Its reply link (runtime/reply-links.ts): answers or declines that one request. */
    "reply-url"?: string;
  },
): Record<string, unknown> {
  return {
    type: n.kind,
    "thread-id": n.threadId,
    "turn-id": n.turnId,
    cwd: extra.cwd,
    "input-messages": extra.inputMessages,
    "last-assistant-message": extra.lastAssistantMessage,
    message: n.message,
    ...(n.questionId ? { "question-id": n.questionId } : {}),
    ...(extra.url ? { url: extra.url } : {}),
    ...(extra["question-text"] ? { "question-text": extra["question-text"] } : {}),
    ...(extra["reply-url"] ? { "reply-url": extra["reply-url"] } : {}),
  };
}
