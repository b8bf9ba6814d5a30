/**
 * The queue of things waiting on the user (requirements Q16): approvals before questions, FIFO within
 * each kind. Only the head is shown; the composer stays locked while the queue is non-empty.
 * Both arrive as broker requests (`question.requested`); an approval is a request carrying
 * `approval` (one single-choice `decision` question), so both share the overlay, timeouts and
 * "answered elsewhere" handling.
 */
import type { QuestionRequest } from "../../protocol/questions.js";

export interface Pending {
  kind: "question" | "approval";
  request: QuestionRequest;
}

/** Lower shows first. */
const PRIORITY: Record<Pending["kind"], number> = { approval: 0, question: 1 };

export const pendingOf = (request: QuestionRequest): Pending => ({
  kind: request.approval ? "approval" : "question",
  request,
});

/** Returns a new queue with `item` after every entry of the same or higher priority (stable FIFO). */
export function enqueue(queue: readonly Pending[], item: Pending): Pending[] {
  const p = PRIORITY[item.kind];
  const at = queue.findIndex((q) => PRIORITY[q.kind] > p);
  const out = queue.slice();
  out.splice(at < 0 ? out.length : at, 0, item);
  return out;
}

export const pendingId = (p: Pending) => p.request.request_id;
