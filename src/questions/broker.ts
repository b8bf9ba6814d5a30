/**
 * The question broker (requirements Q4, Q5, Q7, Q8, Q9, Q11): the one place in the core that owns pending
 * questions. Surfaces and tools never keep their own bookkeeping; they call this and render events.
 *
 * Contract:
 * - Waiters are keyed by request id (`requestIdFor(thread, call)`), so any number may be pending in
 *   one turn and across threads. A reply names the thread and the request id.
 * - `ask` registers the waiter, persists the request, THEN publishes `question.requested` (Q5).
 *   It never rejects: every ask resolves with exactly one outcome.
 * - Settling is remove-then-resolve: the waiter leaves the map (and its timer and abort listener are
 *   dropped) before anything is published or resolved, so exactly one of reply / decline / timeout /
 *   abort / cancelAll wins a race; the losers get `already_settled` or nothing.
 * - Settled ids are remembered in a bounded LRU (falling back to the store) and never revive: a late
 *   reply is refused, except an identical one, which is acknowledged as a duplicate (Q11 idempotence).
 * - Secrets (Q10): for `secret:true` questions, `other`/`note` are replaced by REDACTED in every event,
 *   store row and reply result, and secret values typed into other answers are masked (reply.ts).
 *   Only the promise returned by `ask` carries the real value.
 * - Nothing is retained per request after settling except the LRU entry (no timers, no listeners).
 * - Sub-agents (Q14, with `lineage`): a request stays its own thread's (the answer goes back to the
 *   asker), but it is listed under every ancestor thread too, and a reply naming an ancestor is
 *   the asker's reply; `attribute` stamps who asks (`request.agent`) before it is stored.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Event } from "../protocol/events.js";
import {
  type QuestionAnswer,
  type QuestionOutcome,
  QuestionReply,
  type QuestionRequest,
  queueOrder,
  type ReplyErrorCode,
  type ReplyFailure,
  type ReplyResult,
  type Responder,
  type TouchResult,
} from "../protocol/questions.js";
import { StoreError } from "../store/errors.js";
import type { Store } from "../store/types.js";
import type { Bus } from "../util/bus.js";
import { allowanceOf, type PendingCounts, type QuestionLimits, refusal } from "./limits.js";
import * as QuestionLog from "./question-log.js";
import { normalizeAnswers, redactOutcome, timeoutOutcome, validateReply } from "./reply.js";

export { type CheckedReply, redactOutcome, timeoutOutcome, validateReply } from "./reply.js";

export type BrokerStore = Pick<
  Store,
  "saveQuestion" | "settleQuestion" | "updateQuestionDeadline" | "pendingQuestions" | "getQuestion"
>;

export interface BrokerDeps {
  bus: Bus;
  /** Durability (Q11). Without it questions live only as long as the process. */
  store?: BrokerStore;
  /** Clock for deadlines (epoch ms). Timers still run on real (or faked) time. */
  now?: () => number;
  /** Called whenever a thread's pending count changes (Q9: `waiting_on_user`, pause clocks). */
  onPendingChange?: (threadId: string, pendingCount: number) => void;
  /** How many settled request ids to remember in memory (default 10,000). */
  settledCapacity?: number;
  /** Store or hook failures that must not break settling (default: process warning). */
  onError?: (err: unknown) => void;
  /**
   * Masks secrets the thread already holds (from earlier answers) in the free text and notes of
   * an outcome before it is published or stored (Q10). The reply's own secrets are always masked.
   */
  maskSecrets?: (threadId: string, text: string) => string;
  /** The thread and its ancestors, itself first (sub-agents); default: the thread alone. */
  lineage?: (threadId: string) => string[];
  /** Attribution of a sub-agent thread's requests (`request.agent`); undefined for a root thread. */
  attribute?: (threadId: string) => QuestionRequest["agent"];
  /** Caps on pending and oversized requests (limits.ts); none without. */
  limits?: QuestionLimits;
}

export type { ReplyErrorCode, ReplyFailure, ReplyResult, TouchResult } from "../protocol/questions.js";

export interface Broker {
  /**
   * Asks and waits. Resolves with the outcome (secret values included); never rejects.
   * - `signal` aborted before or while pending → `cancelled` ("interrupted").
   * - A request id already pending in this broker → `unavailable` (ask each id once at a time).
   * - A request id already settled (memory or store) → that recorded (redacted) outcome, no events.
   * - A request pending in the store (re-ask after restart) keeps its created_at and deadline.
   * - The store failing to persist → `unavailable`, nothing published.
   * - A new request over a cap (`limits`) → `unavailable` with `limit` set and a reason naming the
   *   cap and its value; nothing stored or published. A request re-asked from the store is
   *   never refused (it was admitted by the process that first asked it).
   */
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
  /** Answers a pending request. Invalid or late replies change nothing. */
  reply(threadId: string, requestId: string, reply: QuestionReply, responder: Responder): ReplyResult;
  /** The user chose not to answer. A second decline is an idempotent duplicate. */
  decline(threadId: string, requestId: string, responder: Responder, reason?: string): ReplyResult;
  /**
   * Nobody can answer: the surface that was asking cannot get an answer and no other responder
   * can (questions/asker.ts). Settles `unavailable` with `reason`, persisted and published
   * (`question.cancelled`); a second one is an idempotent duplicate.
   */
  unavailable(threadId: string, requestId: string, reason: string): ReplyResult;
  /** Any interaction on a surface: a `timeout` request's deadline becomes now + policy.ms (Q7). */
  touch(requestId: string, responder?: Responder): TouchResult;
  /**
   * Pending requests, FIFO by created_at. Requests never carry answers, so they are secret-free.
   * `threadId` lists that thread's requests and its sub-agents' (relayed, Q14).
   */
  list(filter?: { threadId?: string }): QuestionRequest[];
  /** The pending request `requestId` waiting in this broker (a copy, secret-free), if any. */
  pending(requestId: string): QuestionRequest | undefined;
  /**
   * Settles every pending request in scope as `cancelled` (Q8); `{}` matches all. Returns how many.
   * `persist: false` (process shutdown) leaves the store rows pending so the next process re-asks
   * them (Q11); the asks still resolve and `question.cancelled` is still published.
   */
  cancelAll(
    scope: { threadId?: string; turnId?: string } | "all",
    reason: string,
    opts?: { persist?: boolean },
  ): number;
  pendingCount(threadId?: string): number;
  /**
   * Settles a request that nobody can answer any more as `cancelled` with `reason`, without
   * asking it: an MCP elicitation stored as pending by an earlier process (its server request
   * died with that process). Persisted and published (`question.cancelled`) like any cancel; a
   * live waiter for the id is settled too. Returns the outcome (the recorded one if already settled).
   */
  expire(request: QuestionRequest, reason: string): QuestionOutcome;
  /** Live waiters (leak tests: returns to 0 once everything settled). */
  readonly size: number;
}

/** Deterministic, URL-safe request id for a call, so a persisted question keeps its id after restart. */
export function requestIdFor(threadId: string, callId: string): string {
  return `q_${createHash("sha256").update(`${threadId}\0${callId}`).digest("hex").slice(0, 20)}`;
}

interface Waiter {
  request: QuestionRequest;
  resolve(outcome: QuestionOutcome): void;
  signal: AbortSignal;
  onAbort(): void;
  timer: NodeJS.Timeout | undefined;
}

/** What is remembered of a settled request: its owner, its redacted outcome, the accepted reply's key. */
interface Settled {
  threadId: string;
  outcome: QuestionOutcome;
  replyKey?: string;
}

/** setTimeout's largest delay; longer deadlines are re-checked when it fires. */
const MAX_DELAY = 2_147_483_647;

export function createBroker(deps: BrokerDeps): Broker {
  const { bus, store } = deps;
  const now = deps.now ?? Date.now;
  const capacity = deps.settledCapacity ?? 10_000;
  const report = deps.onError ?? ((err) => process.emitWarning(`question broker: ${String(err)}`));
  const waiters = new Map<string, Waiter>();
  const perThread = new Map<string, number>();
  const settled = new Map<string, Settled>();
  /** Keys accepted replies so duplicates can be recognised without keeping secret values. */
  const keySalt = randomBytes(32);
  /** Whether `threadId` may act for requests of `owner`: the same thread or one of its ancestors. */
  const owns = (owner: string, threadId: string) =>
    owner === threadId || (deps.lineage?.(owner).includes(threadId) ?? false);

  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      report(err);
      return undefined;
    }
  };

  const replyKey = (answers: Record<string, QuestionAnswer>) => {
    const canonical = Object.keys(answers)
      .sort()
      .map((id) => [id, answers[id].selected, answers[id].other ?? null, answers[id].note ?? null]);
    return createHmac("sha256", keySalt).update(JSON.stringify(canonical)).digest("hex");
  };

  const changeCount = (threadId: string, delta: number) => {
    const n = (perThread.get(threadId) ?? 0) + delta;
    if (n > 0) perThread.set(threadId, n);
    else perThread.delete(threadId);
    attempt(() => deps.onPendingChange?.(threadId, n));
  };

  const remember = (id: string, entry: Settled) => {
    settled.delete(id);
    settled.set(id, entry);
    if (settled.size > capacity) settled.delete(settled.keys().next().value!);
  };

  /** A settled request from memory, else from the store (then cached). */
  const recall = (id: string): Settled | undefined => {
    const hit = settled.get(id);
    if (hit) {
      remember(id, hit);
      return hit;
    }
    const row = store && attempt(() => store.getQuestion(id));
    if (!row?.outcome) return undefined;
    const entry = fromRow(row.request, row.outcome);
    remember(id, entry);
    return entry;
  };

  /**
   * Settles `w` (memory, store, event, the asker). Undefined when it was settled already (lost
   * the race). `FENCED` when `refuseFenced` (a person's answer or decline) and the store refused the write
   * because another process runs the thread now: nothing is settled here, the waiter stays for
   * the thread's stale copy to be given up, and the replier is told to send it again (it reaches
   * the new owner). Other store failures are reported and the settle goes on from memory.
   */
  const settleOrRefuse = (
    w: Waiter,
    outcome: QuestionOutcome,
    key: string | undefined,
    persist: boolean,
    refuseFenced: boolean,
  ): QuestionOutcome | undefined | typeof FENCED => {
    const { request } = w;
    if (waiters.get(request.request_id) !== w) return undefined; // lost the race: already settled
    const { maskSecrets } = deps;
    const shown = redactOutcome(request, outcome, maskSecrets && ((t) => maskSecrets(request.thread_id, t)));
    if (store && persist) {
      try {
        store.settleQuestion(request.request_id, shown);
      } catch (err) {
        if (refuseFenced && StoreError.isInstance(err) && err.code === "fenced") return FENCED;
        report(err);
      }
    }
    waiters.delete(request.request_id);
    if (w.timer) clearTimeout(w.timer);
    w.signal.removeEventListener("abort", w.onAbort);
    QuestionLog.settled(request, outcome, shown);
    remember(request.request_id, { threadId: request.thread_id, outcome: shown, replyKey: key });
    bus.publish(terminalEvent(request, shown));
    changeCount(request.thread_id, -1);
    w.resolve(outcome);
    return shown;
  };
  /** `settleOrRefuse` for settles of Tandem's own (timeouts, cancels): never refused. */
  const settle = (w: Waiter, outcome: QuestionOutcome, key?: string, persist = true) => {
    const shown = settleOrRefuse(w, outcome, key, persist, false);
    return shown === FENCED ? undefined : shown;
  };

  const schedule = (w: Waiter) => {
    if (w.timer) clearTimeout(w.timer);
    w.timer = undefined;
    const { deadline, policy } = w.request;
    if (deadline === null || policy.type !== "timeout") return;
    // A wake-up before the deadline (clamped delay, clock skew) just re-arms the timer.
    const fire = () => (now() < deadline ? schedule(w) : settle(w, timeoutOutcome(w.request)));
    w.timer = setTimeout(fire, Math.min(Math.max(0, deadline - now()), MAX_DELAY));
    w.timer.unref?.();
  };

  /** Pending requests of `r`'s allowance (limits.ts `allowanceOf`): asked by its thread, and in all. */
  const pendingOf = (r: QuestionRequest): PendingCounts => {
    const counts = { thread: 0, all: 0 };
    const allowance = allowanceOf(r);
    for (const w of waiters.values()) {
      if (allowanceOf(w.request) !== allowance) continue;
      counts.all++;
      if (w.request.thread_id === r.thread_id) counts.thread++;
    }
    return counts;
  };

  /** Refusal for a request that is not pending: unknown, wrong thread, cancelled or settled. */
  const refuse = (threadId: string | undefined, id: string, prior: Settled | undefined): ReplyFailure => {
    if (!prior) {
      const row = store && attempt(() => store.getQuestion(id));
      if (row && !row.outcome)
        return fail(
          "unknown_request",
          `request ${id} is saved but no turn is waiting for it yet; resume thread ${row.request.thread_id} and reply again`,
        );
      return fail(
        "unknown_request",
        `no question with request id ${id} is pending; list pending questions for current ids`,
      );
    }
    if (threadId !== undefined && !owns(prior.threadId, threadId)) return wrongThread(id, threadId);
    if (prior.outcome.status === "cancelled")
      return fail(
        "cancelled",
        `request ${id} was cancelled (${prior.outcome.reason}); nothing can answer it now`,
      );
    return fail(
      "already_settled",
      `request ${id} was already ${describe(prior.outcome)}; this reply was not used`,
    );
  };

  /** Settles a pending request with an outcome that carries no answer (a decline, unavailable). */
  const settleWithout = (threadId: string, requestId: string, outcome: QuestionOutcome): ReplyResult => {
    const w = waiters.get(requestId);
    if (!w) {
      const prior = recall(requestId);
      if (prior && owns(prior.threadId, threadId) && prior.outcome.status === outcome.status)
        return { ok: true, outcome: prior.outcome, duplicate: true };
      return refuse(threadId, requestId, prior);
    }
    if (!owns(w.request.thread_id, threadId)) return wrongThread(requestId, threadId);
    const shown = settleOrRefuse(w, outcome, undefined, true, outcome.status === "declined");
    return shown === FENCED ? leaseLost(w.request) : { ok: true, outcome: shown! };
  };

  return {
    get size() {
      return waiters.size;
    },

    ask(request, signal) {
      return new Promise<QuestionOutcome>((resolve) => {
        const id = request.request_id;
        if (waiters.has(id))
          return resolve({
            status: "unavailable",
            reason: `request ${id} is already pending; ask it once at a time`,
          });
        const prior = settled.get(id);
        if (prior) return resolve(prior.outcome); // a settled id never revives
        const row = store && attempt(() => store.getQuestion(id));
        if (row?.outcome) {
          remember(id, fromRow(row.request, row.outcome));
          return resolve(row.outcome);
        }
        const stored = row?.request;
        const created_at = stored?.created_at ?? request.created_at;
        const policy = request.policy;
        const deadline = policy.type === "timeout" ? (stored?.deadline ?? created_at + policy.ms) : null;
        const agent = request.agent ?? stored?.agent ?? attempt(() => deps.attribute?.(request.thread_id));
        const live: QuestionRequest = { ...request, created_at, deadline, ...(agent ? { agent } : {}) };

        if (signal.aborted) {
          const outcome: QuestionOutcome = { status: "cancelled", reason: "interrupted" };
          remember(id, { threadId: request.thread_id, outcome });
          if (stored && store) attempt(() => store.settleQuestion(id, outcome));
          return resolve(outcome);
        }

        const refused = !stored && deps.limits && refusal(live, pendingOf(live), deps.limits);
        if (refused) QuestionLog.refused(live, refused);
        if (refused) return resolve({ status: "unavailable", ...refused });

        const w: Waiter = { request: live, resolve, signal, timer: undefined, onAbort: () => {} };
        w.onAbort = () => settle(w, { status: "cancelled", reason: "interrupted" });
        waiters.set(id, w);
        if (store && !stored) {
          try {
            store.saveQuestion(live);
          } catch (err) {
            waiters.delete(id);
            return resolve({
              status: "unavailable",
              reason: `could not save the question: ${errorText(err)}`,
            });
          }
        }
        changeCount(request.thread_id, +1);
        signal.addEventListener("abort", w.onAbort, { once: true });
        schedule(w);
        QuestionLog.asked(live);
        bus.publish({
          type: "question.requested",
          thread_id: live.thread_id,
          turn_id: live.turn_id,
          request: live,
        });
      });
    },

    reply(threadId, requestId, reply, responder) {
      const w = waiters.get(requestId);
      if (!w) {
        const prior = recall(requestId);
        if (
          prior &&
          owns(prior.threadId, threadId) &&
          prior.outcome.status === "answered" &&
          prior.replyKey
        ) {
          const parsed = QuestionReply.safeParse(reply);
          if (parsed.success && replyKey(normalizeAnswers(parsed.data.answers)) === prior.replyKey)
            return { ok: true, outcome: prior.outcome, duplicate: true };
        }
        return refuse(threadId, requestId, prior);
      }
      if (!owns(w.request.thread_id, threadId)) return wrongThread(requestId, threadId);
      const checked = validateReply(w.request.questions, reply);
      if (!checked.ok) return fail("invalid_reply", checked.message);
      const outcome: QuestionOutcome = {
        status: "answered",
        answers: checked.answers,
        unanswered: checked.unanswered,
        responder,
      };
      const shown = settleOrRefuse(w, outcome, replyKey(checked.answers), true, true);
      return shown === FENCED ? leaseLost(w.request) : { ok: true, outcome: shown! };
    },

    decline(threadId, requestId, responder, reason) {
      const outcome: QuestionOutcome =
        reason === undefined ? { status: "declined", responder } : { status: "declined", responder, reason };
      return settleWithout(threadId, requestId, outcome);
    },

    unavailable(threadId, requestId, reason) {
      return settleWithout(threadId, requestId, { status: "unavailable", reason });
    },

    touch(requestId) {
      const w = waiters.get(requestId);
      if (!w) return refuse(undefined, requestId, recall(requestId));
      const { policy } = w.request;
      if (policy.type !== "timeout") return { ok: true, deadline: null };
      const deadline = now() + policy.ms;
      w.request = { ...w.request, deadline };
      if (store) attempt(() => store.updateQuestionDeadline(requestId, deadline));
      schedule(w);
      const { thread_id, turn_id } = w.request;
      bus.publish({ type: "question.deadline_changed", thread_id, turn_id, request_id: requestId, deadline });
      return { ok: true, deadline };
    },

    pending(requestId) {
      const w = waiters.get(requestId);
      return w && { ...w.request };
    },

    list(filter = {}) {
      return (
        [...waiters.values()]
          .filter((w) => filter.threadId === undefined || owns(w.request.thread_id, filter.threadId))
          .map((w) => ({ ...w.request }))
          // One FIFO queue, approvals first (Q16).
          .sort(queueOrder)
      );
    },

    cancelAll(scope, reason, opts = {}) {
      const match = (r: QuestionRequest) =>
        scope === "all" ||
        ((scope.threadId === undefined || r.thread_id === scope.threadId) &&
          (scope.turnId === undefined || r.turn_id === scope.turnId));
      const doomed = [...waiters.values()].filter((w) => match(w.request));
      let n = 0;
      for (const w of doomed)
        if (settle(w, { status: "cancelled", reason }, undefined, opts.persist ?? true)) n++;
      return n;
    },

    expire(request, reason) {
      const outcome: QuestionOutcome = { status: "cancelled", reason };
      const w = waiters.get(request.request_id);
      if (w) return settle(w, outcome) ?? outcome;
      const prior = recall(request.request_id);
      if (prior) return prior.outcome;
      remember(request.request_id, { threadId: request.thread_id, outcome });
      if (store) attempt(() => store.settleQuestion(request.request_id, outcome));
      QuestionLog.settled(request, outcome, outcome);
      bus.publish(terminalEvent(request, outcome));
      return outcome;
    },

    pendingCount(threadId) {
      return threadId === undefined ? waiters.size : (perThread.get(threadId) ?? 0);
    },
  };

  /** A store row as an LRU entry; duplicates are recognisable only when no answer was redacted. */
  function fromRow(request: QuestionRequest, outcome: QuestionOutcome): Settled {
    const clear = !request.questions.some((q) => q.secret);
    const key = outcome.status === "answered" && clear ? replyKey(outcome.answers) : undefined;
    return { threadId: request.thread_id, outcome, replyKey: key };
  }
}

function terminalEvent(request: QuestionRequest, outcome: QuestionOutcome): Event {
  const base = { thread_id: request.thread_id, turn_id: request.turn_id, request_id: request.request_id };
  switch (outcome.status) {
    case "answered":
      return { type: "question.answered", ...base, outcome, responder: outcome.responder };
    case "declined":
      return { type: "question.declined", ...base, outcome, responder: outcome.responder };
    case "timed_out":
      return { type: "question.timed_out", ...base, outcome };
    default:
      return { type: "question.cancelled", ...base, outcome };
  }
}

function describe(outcome: QuestionOutcome): string {
  switch (outcome.status) {
    case "answered":
      return `answered (by ${outcome.responder.kind})`;
    case "declined":
      return `declined (by ${outcome.responder.kind})`;
    case "timed_out":
      return "timed out";
    default:
      return outcome.status;
  }
}

/** `settle`'s answer when the store refused a person's answer: another process runs the thread. */
const FENCED = Symbol("fenced");

function leaseLost(request: QuestionRequest): ReplyFailure {
  return fail(
    "lease_lost",
    `thread ${request.thread_id} is run by another Tandem process now (its lease moved); nothing was recorded: send the answer again`,
  );
}

function fail(code: ReplyErrorCode, message: string): ReplyFailure {
  return { ok: false, code, message };
}

function wrongThread(id: string, threadId: string): ReplyFailure {
  return fail(
    "wrong_thread",
    `request ${id} does not belong to thread ${threadId}; reply on the thread that asked it`,
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
