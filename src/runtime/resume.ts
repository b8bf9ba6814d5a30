/**
 * Resume and repair of a thread opened from the store (requirements Q11; sub-agents; a cluster taking a
 * thread over): what a crash or a stopped process left behind, and how the opened thread goes on.
 *
 * `planResume` is the pure core: from the stored history, the questions stored as pending and
 * which calls run again on resume, it says which calls to record as aborted and which to run
 * again, in which turn. `resumeThread` applies a plan to the opened thread.
 *
 * Contract of `planResume`:
 * - A call with no output (cut off by the crash) and no pending question is recorded as aborted —
 *   unless `rerun(call)` says it runs again (`wait_agent`: the sub-agents it waited on work
 *   again), in which case it is dispatched again.
 * - A pending question whose call is in the history is asked again as stored, once per call (the
 *   first question stored for it). A pending approval re-runs its call from the start instead: the
 *   gate asks the same approval (same request id) and, once decided, runs — or not — what it guards.
 *   A question whose call is not in the history is left alone.
 * - Order: re-asks and approvals in `pending`'s order, then the calls run again in history order.
 * - The turn they continue: the first pending question's, else the turn that stored the first
 *   call run again. Without a turn nothing is continued.
 * - `settled`: nothing was pending and nothing runs again — a thread that was working may then go
 *   on with its last turn from its history (`resumeThread`'s `goOn`).
 * - `reviews`: the turns whose prompt is a review's (protocol/review.ts): a continued review is
 *   continued with `REVIEW_TURN`, never with the thread's own sandbox, approvals and tools.
 */
import { ABORTED_OUTPUT, orphanCalls } from "../agent/history.js";
import type { ResumedCall } from "../agent/turn.js";
import {
  isToolCall,
  messageText,
  outputFor,
  type ResponseItem,
  type ToolCallItem,
} from "../protocol/items.js";
import type { TurnOptions } from "../protocol/ops.js";
import type { QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import { REVIEW_TURN, reviewRequestOf } from "../protocol/review.js";
import type { StoredItem, TurnRecord } from "../protocol/threads.js";
import { toModelResult } from "../questions/model.js";
import { elicitationLostReason } from "../tools/mcp/elicitation.js";
import type { DispatchResult } from "../tools/registry.js";

export type ResumeStep =
  | { call: ToolCallItem; how: "reask"; question: QuestionRequest }
  | { call: ToolCallItem; how: "redispatch" };

export interface ResumePlan {
  /** Calls cut off without output, to record as aborted (history order). */
  aborted: ToolCallItem[];
  /** Calls to run again in the continued turn, in order (see the contract). */
  steps: ResumeStep[];
  /** The turn `steps` continue; undefined when there is none to continue. */
  turnId: string | undefined;
  /** Nothing was pending and nothing runs again. */
  settled: boolean;
  /** Turns whose prompt is a review's: they go on as reviews (read-only, see the contract). */
  reviews: string[];
}

export function planResume(input: {
  stored: readonly StoredItem[];
  pending: readonly QuestionRequest[];
  rerun: (call: ToolCallItem) => boolean;
}): ResumePlan {
  const history = input.stored.map((s) => s.item);
  const pendingCalls = new Set(input.pending.map((q) => q.call_id));
  const orphans = orphanCalls(history).filter((c) => !pendingCalls.has(c.call_id));
  const again = orphans.filter((c) => input.rerun(c));
  const aborted = orphans.filter((c) => !again.includes(c));
  const calls = new Map(history.filter(isToolCall).map((c) => [c.call_id, c]));
  const seen = new Set<string>();
  const steps: ResumeStep[] = [];
  for (const q of input.pending) {
    const call = calls.get(q.call_id);
    if (!call || seen.has(q.call_id)) continue;
    seen.add(q.call_id);
    steps.push(q.approval ? { call, how: "redispatch" } : { call, how: "reask", question: q });
  }
  for (const call of again) steps.push({ call, how: "redispatch" });
  const first = again[0];
  const turnId =
    input.pending[0]?.turn_id ??
    (first && input.stored.find((s) => callIdOf(s.item) === first.call_id)?.turn_id) ??
    undefined;
  // The turn's options are not stored; a review's prompt says what it was (a user's message that
  // copies the marker only makes its turn go on read-only).
  const reviews = [
    ...new Set(
      input.stored
        .filter(
          (s) =>
            s.turn_id !== null &&
            s.item.type === "message" &&
            s.item.role === "user" &&
            reviewRequestOf(messageText(s.item)) !== undefined,
        )
        .map((s) => s.turn_id as string),
    ),
  ];
  return { aborted, steps, turnId, settled: input.pending.length === 0 && again.length === 0, reviews };
}

const callIdOf = (item: ResponseItem) => ("call_id" in item ? item.call_id : undefined);

/** What resuming needs of a thread opened from the store. */
export interface ResumedThread {
  readonly id: string;
  recordItem(item: ResponseItem, turnId: string | null): void;
  /** Continues `turnId` with `calls` run first, under `options` (Thread.resumeTurn). */
  resumeTurn(turnId: string, calls: ResumedCall[], options?: TurnOptions): unknown;
  /** Runs a stored call again in the thread's active turn (Thread.redispatch). */
  redispatch(call: ToolCallItem, signal: AbortSignal): Promise<DispatchResult>;
}

/** What resuming needs of the runtime: the broker's asking, the thread's secrets, its turns. */
export interface ResumeHost {
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
  expire(request: QuestionRequest, reason: string): QuestionOutcome;
  /** Keeps a secret answer for the thread; returns the handle the model sees (questions/secrets.ts). */
  putSecret(threadId: string, questionId: string, value: string): string;
  lastTurn(threadId: string): TurnRecord | undefined;
}

/**
 * Applies `plan` to `thread`: records the aborted calls, then continues the plan's turn with its
 * steps — or, when the plan is settled and `goOn` (a sub-agent, a parent whose sub-agents worked,
 * a taken-over thread, each stopped mid-request), continues the last stored turn if it is still
 * running (a turn recorded as ended is never run again).
 */
export function resumeThread(host: ResumeHost, thread: ResumedThread, plan: ResumePlan, goOn: boolean): void {
  for (const call of plan.aborted) thread.recordItem(outputFor(call, ABORTED_OUTPUT), null);
  const options = (turnId: string): TurnOptions => (plan.reviews.includes(turnId) ? REVIEW_TURN : {});
  if (!plan.settled) {
    const calls: ResumedCall[] = plan.steps.map((step) => ({
      call: step.call,
      run: (signal) =>
        step.how === "reask"
          ? reask(host, thread.id, step.question, signal)
          : thread.redispatch(step.call, signal),
    }));
    if (calls.length && plan.turnId) thread.resumeTurn(plan.turnId, calls, options(plan.turnId));
    return;
  }
  if (!goOn) return;
  const last = host.lastTurn(thread.id);
  if (last && last.status === "running") thread.resumeTurn(last.id, [], options(last.id));
}

/** Re-asks a question persisted by an earlier process and maps its outcome for the model. */
async function reask(
  host: ResumeHost,
  threadId: string,
  request: QuestionRequest,
  signal: AbortSignal,
): Promise<DispatchResult> {
  if (request.elicitation) {
    // The MCP server's request died with the process that asked: settle it, never re-ask.
    const reason = elicitationLostReason(request.elicitation);
    host.expire(request, reason);
    return { aborted: false, args: undefined, result: { output: reason, success: false } };
  }
  const outcome = await host.ask(request, signal);
  if (outcome.status === "cancelled") return { aborted: true };
  const output = toModelResult(outcome, request, (qid: string) => {
    const answer =
      outcome.status === "answered" || outcome.status === "timed_out" ? outcome.answers[qid] : undefined;
    return host.putSecret(threadId, qid, answer?.other ?? "");
  });
  return { aborted: false, args: undefined, result: { output, success: true } };
}
