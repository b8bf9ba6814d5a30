/**
 * Tandem → Codex v2 shapes: threads, turns, items, statuses, usage and errors, and the live event
 * stream as Codex notifications. Pure functions plus one small stateful mapper (`EventMapper`).
 *
 * Contract:
 * - Every object returned validates against the matching Codex definition (tested with ajv).
 * - Codex clients expect `item/started` before `item/completed`; Tandem emits only `item.completed`
 *   for items that are complete on arrival (user input, reasoning, non-streamed messages), so the
 *   mapper emits the missing `item/started` first.
 * - Tandem has no Codex item for `request_user_input` calls (Codex shows none either: the question
 *   travels as the `item/tool/requestUserInput` server request whose itemId is the call id), nor for
 *   display `error` items (the `error` event already becomes an `error` notification).
 * - `apply_patch` calls are `fileChange` items from start to end (file-change.ts); other tools
 *   without a Codex item are `dynamicToolCall`s.
 * - A thread waiting on the user is `waitingOnApproval` and/or `waitingOnUserInput`, from what the
 *   broker holds for it (the `waitingOf` callback); when that changes while it keeps waiting (an
 *   approval joins a pending question), `thread/status/changed` reports the new flags.
 * - A loaded thread whose last turn failed is `systemError` until its next turn starts; a thread not
 *   loaded is `notLoaded` whatever its last turn did (its turns say how they ended).
 * - Question and approval events are not mapped here; the session turns them into server requests
 *   (see session.ts).
 */

import type {
  CodexThread,
  CodexThreadItem,
  CodexThreadStatus,
  CodexTurn,
  CodexTurnError,
  TokenUsageBreakdown,
} from "../../protocol/app-server.js";
import type { ErrorInfo, Event, ThreadStatus, TurnItem, Usage } from "../../protocol/events.js";
import { parseReview, reviewText } from "../../protocol/review.js";
import type { ThreadRecord, TurnRecord } from "../../protocol/threads.js";
import { codexCommand, commandActions } from "./codex-command.js";
import { collabItem, subAgentFields } from "./collab.js";
import { fileChangeItem, PATCH_TOOL, patchCallItem } from "./file-change.js";
import { agentMessageItems, PLAN_TOOL, PlanTurns, planUpdated } from "./plan.js";

export const QUESTION_TOOL = "request_user_input";

export interface Notification {
  method: string;
  params: Record<string, unknown>;
}

export const seconds = (ms: number): number => Math.floor(ms / 1000);

/** What a thread waiting on the user waits for: approvals, questions, or both. */
export interface Waiting {
  approval: boolean;
  question: boolean;
}

export type WaitingFlag = "waitingOnApproval" | "waitingOnUserInput";

/** `waiting` names what is pending; without it (or when nothing is) a question is assumed. */
export function threadStatus(status: ThreadStatus | undefined, waiting?: Waiting): CodexThreadStatus {
  switch (status) {
    case "idle":
      return { type: "idle" };
    case "running":
      return { type: "active", activeFlags: [] };
    case "failed":
      return { type: "systemError" };
    case "waiting_on_user": {
      const flags: WaitingFlag[] = [];
      if (waiting?.approval) flags.push("waitingOnApproval");
      if (waiting?.question) flags.push("waitingOnUserInput");
      return { type: "active", activeFlags: flags.length ? flags : ["waitingOnUserInput"] };
    }
    default:
      return { type: "notLoaded" };
  }
}

export interface ThreadView {
  record: ThreadRecord;
  /** Live status when the thread is loaded in this process; undefined = not loaded. */
  status?: ThreadStatus;
  waiting?: Waiting;
  preview: string;
  turns?: CodexTurn[];
}

export function codexThread(
  view: ThreadView,
  env: { version: string; provider: string; effort?: string | null },
): CodexThread {
  const r = view.record;
  return {
    id: r.id,
    sessionId: r.session_id,
    parentThreadId: r.parent_id,
    cliVersion: env.version,
    createdAt: seconds(r.created_at),
    updatedAt: seconds(r.updated_at),
    cwd: r.cwd,
    ephemeral: r.settings.ephemeral === true,
    model: r.model,
    reasoningEffort: typeof r.settings.effort === "string" ? r.settings.effort : (env.effort ?? null),
    modelProvider: env.provider,
    name: r.title || null,
    preview: view.preview,
    projectId: null,
    path: null,
    source: "appServer",
    ...subAgentFields(r),
    status: threadStatus(view.status, view.waiting),
    turns: view.turns ?? [],
  };
}

const CODEX_ERROR_INFO: Record<ErrorInfo["kind"], CodexTurnError["codexErrorInfo"]> = {
  context_length: "contextWindowExceeded",
  quota: "usageLimitExceeded",
  rate_limit: "rateLimitExceeded",
  overloaded: "serverOverloaded",
  server: "internalServerError",
  stream: { responseStreamDisconnected: { httpStatusCode: null } },
  timeout: "other",
  auth: "unauthorized",
  bad_request: "badRequest",
  interrupted: null,
  other: "other",
};

export function turnError(error: ErrorInfo | string): CodexTurnError {
  if (typeof error === "string") return { message: error, codexErrorInfo: null, additionalDetails: null };
  return { message: error.message, codexErrorInfo: CODEX_ERROR_INFO[error.kind], additionalDetails: null };
}

export function tokenUsage(u: Usage): TokenUsageBreakdown {
  return {
    inputTokens: u.input_tokens,
    cachedInputTokens: u.cached_input_tokens,
    outputTokens: u.output_tokens,
    reasoningOutputTokens: u.reasoning_output_tokens,
    totalTokens: u.total_tokens,
  };
}

/** A stored turn as a Codex Turn (items supplied by the caller). */
export function codexTurn(t: TurnRecord, items: CodexThreadItem[]): CodexTurn {
  const status = t.status === "running" ? "inProgress" : t.status;
  return {
    id: t.id,
    items,
    status,
    error: t.error && status !== "inProgress" ? turnError(t.error) : null,
    startedAt: seconds(t.started_at),
    completedAt: t.ended_at === null ? null : seconds(t.ended_at),
    durationMs: t.ended_at === null ? null : Math.max(0, t.ended_at - t.started_at),
  };
}

const COMMAND_STATUS = {
  in_progress: "inProgress",
  completed: "completed",
  failed: "failed",
  declined: "declined",
} as const;

/** A live display item as a Codex ThreadItem; undefined when Codex has no equivalent. */
/** `threadId` (the item's thread) lets sub-agent tool calls name their sender (collab.ts). */
export function codexItem(item: TurnItem, cwd: string, threadId?: string): CodexThreadItem | undefined {
  switch (item.type) {
    case "user_message":
      return {
        type: "userMessage",
        id: item.id,
        content: [{ type: "text", text: item.text, text_elements: [] }],
      };
    case "agent_message":
      return { type: "agentMessage", id: item.id, text: item.text };
    case "reasoning":
      return { type: "reasoning", id: item.id, summary: item.text ? [item.text] : [], content: [] };
    case "command_execution":
      return {
        type: "commandExecution",
        id: item.id,
        command: codexCommand(item.command),
        commandActions: commandActions(item.command, cwd),
        cwd,
        processId: item.session_id === undefined ? null : String(item.session_id),
        status: COMMAND_STATUS[item.status],
        aggregatedOutput:
          item.status === "in_progress" && !item.aggregated_output ? null : item.aggregated_output,
        exitCode: item.exit_code,
        durationMs: null,
      };
    case "tool_call":
      // update_plan is `turn/plan/updated` (plan.ts), not an item.
      if (item.tool === QUESTION_TOOL || item.tool === PLAN_TOOL) return undefined;
      if (item.tool === PATCH_TOOL) return patchCallItem(item.id, item.arguments, item.status);
      return (
        (threadId && collabItem(item.id, item.tool, item.arguments, item.status, item.output, threadId)) ||
        dynamicToolCall(item.id, item.tool, item.arguments, item.status, item.output)
      );
    case "file_change":
      return fileChangeItem(item);
    default:
      return undefined;
  }
}

export function dynamicToolCall(
  id: string,
  tool: string,
  args: string,
  status: "in_progress" | "completed" | "failed",
  output: string | undefined,
): CodexThreadItem {
  let parsed: unknown = args;
  try {
    parsed = JSON.parse(args);
  } catch {
    /* custom tools take free-form input: keep the text */
  }
  return {
    type: "dynamicToolCall",
    id,
    tool,
    namespace: null,
    arguments: parsed,
    status: COMMAND_STATUS[status],
    contentItems: output === undefined ? null : [{ type: "inputText", text: output }],
    success: status === "in_progress" ? null : status === "completed",
    durationMs: null,
  };
}

/**
 * Maps bus events to Codex notifications. Keeps per-turn state (start times, items already
 * announced) so it must see every event of every thread, in order; state of a turn is dropped when
 * it completes.
 */
/**
 * An item of a review turn as Codex shows it: its request is `enteredReviewMode`; other items as
 * usual (the answer is mapped in `EventMapper.item`).
 */
function reviewItem(
  event: Extract<Event, { type: "item.started" | "item.completed" }>,
  label: string,
  cwd: string,
): CodexThreadItem | undefined {
  const it = event.item;
  if (it.type === "user_message")
    return { type: "enteredReviewMode", id: it.id, review: label } as unknown as CodexThreadItem;
  return codexItem(it, cwd, event.thread_id);
}

/** A review's final message as the text people read: its findings, or the message itself. */
export function reviewAnswerText(text: string, cwd: string): string {
  const r = parseReview(text);
  return r.ok ? reviewText(r.result, cwd) : text;
}

export class EventMapper {
  private turnStarts = new Map<string, number>();
  private announced = new Map<string, Set<string>>();
  /** Threads waiting on the user → the activeFlags last reported for them. */
  private waitingFlags = new Map<string, string>();
  private plans = new PlanTurns();
  /**
   * Patch items whose `item/started` waits for their diffs: a patch starts before Tandem knows
   * what it would change, and Codex's TUI draws the approval (and the cell) from `item/started`'s
   * changes. Announced by the patch approval (its would-be diffs) or by the result, whichever
   * comes first.
   */
  private heldPatches = new Map<string, Notification>();
  /** review/start (review.ts): the thread's next turn is a review of this; then turn → label. */
  private nextReview = new Map<string, string>();
  private reviews = new Map<string, string>();

  /** The thread's next turn is a review of `label` (undefined: it is not after all). */
  reviewNext(threadId: string, label: string | undefined): void {
    if (label === undefined) this.nextReview.delete(threadId);
    else this.nextReview.set(threadId, label);
  }

  constructor(
    private readonly cwdOf: (threadId: string) => string,
    private readonly waitingOf: (threadId: string) => Waiting | undefined = () => undefined,
    /** The context window of the thread's model, when known (Codex's `modelContextWindow`). */
    private readonly windowOf: (threadId: string) => number | undefined = () => undefined,
  ) {}

  map(event: Event, time: number): Notification[] {
    switch (event.type) {
      case "thread.status_changed": {
        const status = threadStatus(event.status, this.waitingOf(event.thread_id));
        if (event.status === "waiting_on_user" && status.type === "active")
          this.waitingFlags.set(event.thread_id, status.activeFlags.join());
        else this.waitingFlags.delete(event.thread_id);
        return [{ method: "thread/status/changed", params: { threadId: event.thread_id, status } }];
      }
      case "question.requested":
        return [...this.releasePatch(event), ...this.waitingChanged(event.thread_id)];
      case "question.answered":
      case "question.declined":
      case "question.timed_out":
      case "question.cancelled":
        return this.waitingChanged(event.thread_id);
      case "turn.started": {
        this.turnStarts.set(event.turn_id, time);
        const review = this.nextReview.get(event.thread_id);
        if (review !== undefined) {
          this.nextReview.delete(event.thread_id);
          this.reviews.set(event.turn_id, review);
        }
        this.plans.started(event.turn_id, event.mode);
        return [
          {
            method: "turn/started",
            params: { threadId: event.thread_id, turn: this.liveTurn(event.turn_id) },
          },
        ];
      }
      case "turn.completed": {
        const started = this.turnStarts.get(event.turn_id);
        this.turnStarts.delete(event.turn_id);
        this.announced.delete(event.turn_id);
        this.reviews.delete(event.turn_id);
        this.plans.completed(event.turn_id);
        for (const [id, n] of this.heldPatches)
          if ((n.params as { turnId?: string }).turnId === event.turn_id) this.heldPatches.delete(id);
        const turn: CodexTurn = {
          id: event.turn_id,
          items: [],
          status: event.status,
          error: event.error && event.status !== "completed" ? turnError(event.error) : null,
          startedAt: started === undefined ? null : seconds(started),
          completedAt: seconds(time),
          durationMs: started === undefined ? null : time - started,
        };
        return [{ method: "turn/completed", params: { threadId: event.thread_id, turn } }];
      }
      case "item.started":
      case "item.completed":
        return this.item(event, time);
      case "agent_message.delta":
        // A review's answer is JSON: it arrives whole as exitedReviewMode.
        if (this.reviews.has(event.turn_id)) return [];
        return this.plans.delta(
          { threadId: event.thread_id, turnId: event.turn_id, itemId: event.item_id },
          event.delta,
          time,
        );
      case "plan.updated":
        return [
          {
            method: "turn/plan/updated",
            params: planUpdated(event.thread_id, event.turn_id, event.explanation, event.plan),
          },
        ];
      case "hook.warning":
        // A user hook that failed or was skipped (README "Hooks"): Codex's own `warning` notification.
        return [
          { method: "warning", params: { threadId: event.thread_id, message: `hook: ${event.message}` } },
        ];
      case "turn.diff":
        return [
          {
            method: "turn/diff/updated",
            params: { threadId: event.thread_id, turnId: event.turn_id, diff: event.diff },
          },
        ];
      case "reasoning.delta": {
        // Tandem announces reasoning only when complete; Codex clients expect item/started first.
        const seen = this.seen(event.turn_id);
        const out: Notification[] = [];
        if (!seen.has(event.item_id)) {
          seen.add(event.item_id);
          const item: CodexThreadItem = { type: "reasoning", id: event.item_id, summary: [], content: [] };
          const params = { threadId: event.thread_id, turnId: event.turn_id, item, startedAtMs: time };
          out.push({ method: "item/started", params });
        }
        out.push({
          method: "item/reasoning/summaryTextDelta",
          params: { ...deltaParams(event, event.delta), summaryIndex: 0 },
        });
        return out;
      }
      case "exec.output_delta":
        return [{ method: "item/commandExecution/outputDelta", params: deltaParams(event, event.chunk) }];
      // A compaction is Codex's `contextCompaction` item, plus the older `thread/compacted`.
      case "context.compacting":
      case "context.compacted":
      case "context.compaction_failed": {
        const ids = { threadId: event.thread_id, turnId: event.turn_id };
        const item = { type: "contextCompaction", id: event.item_id };
        if (event.type === "context.compacting")
          return [{ method: "item/started", params: { ...ids, item, startedAtMs: time } }];
        const done = { method: "item/completed", params: { ...ids, item, completedAtMs: time } };
        return event.type === "context.compacted"
          ? [done, { method: "thread/compacted", params: ids }]
          : [done];
      }
      case "token.usage":
        return [
          {
            method: "thread/tokenUsage/updated",
            params: {
              threadId: event.thread_id,
              turnId: event.turn_id,
              tokenUsage: {
                last: tokenUsage(event.last),
                total: tokenUsage(event.total),
                modelContextWindow: this.windowOf(event.thread_id) ?? null,
              },
            },
          },
        ];
      case "error":
        if (event.thread_id === undefined || event.turn_id === undefined) return [];
        return [
          {
            method: "error",
            params: {
              threadId: event.thread_id,
              turnId: event.turn_id,
              error: turnError(event.error),
              willRetry: event.will_retry,
            },
          },
        ];
      default:
        return [];
    }
  }

  /** The in-progress Turn object for `turn/started` (and for resumes of a running turn). */
  liveTurn(turnId: string): CodexTurn {
    const started = this.turnStarts.get(turnId);
    return {
      id: turnId,
      items: [],
      status: "inProgress",
      error: null,
      startedAt: started === undefined ? null : seconds(started),
      completedAt: null,
      durationMs: null,
    };
  }

  /**
   * While a thread waits on the user, what it waits for may change without a status change (an
   * approval joins a pending question, or settles first): report the new flags.
   */
  private waitingChanged(threadId: string): Notification[] {
    const last = this.waitingFlags.get(threadId);
    const waiting = this.waitingOf(threadId);
    // Nothing pending: the status change to running or idle follows.
    if (last === undefined || !waiting || (!waiting.approval && !waiting.question)) return [];
    const status = threadStatus("waiting_on_user", waiting);
    if (status.type !== "active" || status.activeFlags.join() === last) return [];
    this.waitingFlags.set(threadId, status.activeFlags.join());
    return [{ method: "thread/status/changed", params: { threadId, status } }];
  }

  /** A held patch item's `item/started`, with the diffs its approval request carries. */
  private releasePatch(event: Extract<Event, { type: "question.requested" }>): Notification[] {
    const { approval, call_id: callId } = event.request;
    const held = this.heldPatches.get(callId);
    if (!held || approval?.kind !== "file_change" || !approval.changes?.length) return [];
    this.heldPatches.delete(callId);
    this.seen(event.turn_id).add(callId);
    const withDiffs = fileChangeItem({
      id: callId,
      type: "file_change",
      changes: approval.changes,
      status: "in_progress",
    });
    return [{ method: "item/started", params: { ...held.params, item: withDiffs } }];
  }

  /** Item ids already announced with item/started in this turn. */
  private seen(turnId: string): Set<string> {
    const seen = this.announced.get(turnId) ?? new Set<string>();
    this.announced.set(turnId, seen);
    return seen;
  }

  /** A completed Plan-mode agent message: its plan item (plan.ts) completes, then the message. */
  private planMessage(event: Extract<Event, { type: "item.completed" }>, time: number): Notification[] {
    const msg = event.item as Extract<TurnItem, { type: "agent_message" }>;
    const items = agentMessageItems(msg.id, msg.text, true);
    const seen = this.seen(event.turn_id);
    const ids = { threadId: event.thread_id, turnId: event.turn_id };
    const out: Notification[] = [];
    for (const item of items) {
      const announced =
        item.type === "plan" ? this.plans.planAnnounced(event.turn_id, msg.id) : seen.has(item.id);
      if (!announced) out.push({ method: "item/started", params: { ...ids, item, startedAtMs: time } });
      seen.add(item.id);
      out.push({ method: "item/completed", params: { ...ids, item, completedAtMs: time } });
    }
    // A started message whose text was all plan still completes (empty).
    if (seen.has(msg.id) && !items.some((i) => i.id === msg.id))
      out.push({
        method: "item/completed",
        params: { ...ids, item: { type: "agentMessage", id: msg.id, text: "" }, completedAtMs: time },
      });
    return out;
  }

  private item(
    event: Extract<Event, { type: "item.started" | "item.completed" }>,
    time: number,
  ): Notification[] {
    if (
      event.item.type === "agent_message" &&
      event.type === "item.completed" &&
      this.plans.isPlan(event.turn_id)
    )
      return this.planMessage(event, time);
    const review = this.reviews.get(event.turn_id);
    // A review's answer: the findings as an agentMessage (Codex's TUI draws the review from the
    // answer stream), then exitedReviewMode carrying the same text.
    if (review !== undefined && event.item.type === "agent_message") {
      if (event.type === "item.started") return [];
      const text = reviewAnswerText(event.item.text, this.cwdOf(event.thread_id));
      const base = { threadId: event.thread_id, turnId: event.turn_id };
      const message = { type: "agentMessage", id: event.item.id, text } as CodexThreadItem;
      const exited = {
        type: "exitedReviewMode",
        id: `${event.item.id}-review`,
        review: text,
      } as unknown as CodexThreadItem;
      return [message, exited].flatMap((item) => [
        { method: "item/started", params: { ...base, item, startedAtMs: time } },
        { method: "item/completed", params: { ...base, item, completedAtMs: time } },
      ]);
    }
    const item =
      review !== undefined
        ? reviewItem(event, review, this.cwdOf(event.thread_id))
        : codexItem(event.item, this.cwdOf(event.thread_id), event.thread_id);
    if (!item) return [];
    const base = { threadId: event.thread_id, turnId: event.turn_id, item };
    const seen = this.seen(event.turn_id);
    if (event.type === "item.started") {
      if (item.type === "fileChange" && item.changes.every((c) => c.diff === "")) {
        this.heldPatches.set(item.id, { method: "item/started", params: { ...base, startedAtMs: time } });
        return [];
      }
      seen.add(item.id);
      return [{ method: "item/started", params: { ...base, startedAtMs: time } }];
    }
    const out: Notification[] = [];
    this.heldPatches.delete(item.id);
    if (!seen.has(item.id)) {
      seen.add(item.id);
      out.push({ method: "item/started", params: { ...base, startedAtMs: time } });
    }
    // Why a patch failed, as Codex streams apply_patch output: a fileChange output delta.
    if (event.item.type === "file_change" && event.item.error)
      out.push({
        method: "item/fileChange/outputDelta",
        params: {
          threadId: event.thread_id,
          turnId: event.turn_id,
          itemId: item.id,
          delta: event.item.error,
        },
      });
    out.push({ method: "item/completed", params: { ...base, completedAtMs: time } });
    return out;
  }
}

function deltaParams(event: { thread_id: string; turn_id: string; item_id: string }, delta: string) {
  return { threadId: event.thread_id, turnId: event.turn_id, itemId: event.item_id, delta };
}
