/**
 * `runtime.questions` and `runtime.approvals`: the one door through which surfaces see and settle
 * questions and approvals (all bookkeeping stays in the broker, STYLE habit 9), declare themselves
 * responders (Q3), and manage the approval rules remembered per project.
 *
 * Contract:
 * - `list` is what the broker holds in this process (FIFO by created_at, approvals first; a
 *   thread's list includes its sub-agents', Q14); `stored` what the store holds as pending, also
 *   for threads no process has open (Q11).
 * - `reply`, `decline`, `unavailable`, `touch` and `expire` are the broker's (questions/broker.ts): refusals are
 *   results (`ok: false` with a code), never throws; outcomes are redacted (Q10).
 * - `attach` registers a responder for a thread (or "all") until the returned function is called.
 */
import type {
  QuestionOutcome,
  QuestionReply,
  QuestionRequest,
  ReplyResult,
  Responder,
  TouchResult,
} from "../protocol/questions.js";
import type { StoredQuestion } from "../protocol/threads.js";
import { requestIdFor } from "../questions/broker.js";
import type { ResponderScope } from "../questions/responders.js";
import { rulesProject, setStoredRules, storedRules } from "./approvals.js";
import type { RuntimeParts } from "./internals.js";

export class QuestionsApi {
  readonly #p: RuntimeParts;

  constructor(parts: RuntimeParts) {
    this.#p = parts;
  }

  /** Pending requests in this process's broker (see the contract). Secret-free. */
  list(filter: { threadId?: string } = {}): QuestionRequest[] {
    return this.#p.broker.list(filter);
  }

  /** The request `requestId` if it waits in this process's broker (its thread runs here). Secret-free. */
  pending(requestId: string): QuestionRequest | undefined {
    return this.#p.broker.pending(requestId);
  }

  /** Requests stored as pending (of one thread, or all), also of threads not open here. */
  stored(threadId?: string): QuestionRequest[] {
    return this.#p.store.pendingQuestions(threadId);
  }

  /** A request and its outcome as stored (redacted), by request id. */
  get(requestId: string): StoredQuestion | undefined {
    return this.#p.store.getQuestion(requestId);
  }

  /** The request a tool call of the thread asked, as stored (history views show its answer). */
  ofCall(threadId: string, callId: string): StoredQuestion | undefined {
    return this.#p.store.getQuestion(requestIdFor(threadId, callId));
  }

  /**
   * The settled approvals a tool call of the thread needed, in order (runtime/approvals.ts keys
   * the n-th as `<call>#approval<n>`; a call asks at most a few, so at most 5 are looked up).
   */
  approvalsOf(
    threadId: string,
    callId: string,
  ): Array<{ request: QuestionRequest; outcome: QuestionOutcome }> {
    const out: Array<{ request: QuestionRequest; outcome: QuestionOutcome }> = [];
    for (let n = 1; n <= 5; n++) {
      const q = this.ofCall(threadId, `${callId}#approval${n}`);
      if (!q) break;
      if (q.outcome) out.push({ request: q.request, outcome: q.outcome });
    }
    return out;
  }

  /** How many requests the broker holds (for one thread and its sub-agents, or all). */
  pendingCount(threadId?: string): number {
    return this.#p.broker.pendingCount(threadId);
  }

  /** Answers a pending request on behalf of `responder` (the broker validates the reply). */
  reply(threadId: string, requestId: string, reply: QuestionReply, responder: Responder): ReplyResult {
    return this.#p.broker.reply(threadId, requestId, reply, responder);
  }

  /** The user chose not to answer; a second decline is an idempotent duplicate. */
  decline(threadId: string, requestId: string, responder: Responder, reason?: string): ReplyResult {
    return this.#p.broker.decline(threadId, requestId, responder, reason);
  }

  /** Settles a pending request nobody can answer any more (its asking client can no longer show it). */
  unavailable(threadId: string, requestId: string, reason: string): ReplyResult {
    return this.#p.broker.unavailable(threadId, requestId, reason);
  }

  /** Any interaction on a surface: a `timeout` request's deadline moves to now + its ms (Q7). */
  touch(requestId: string, responder?: Responder): TouchResult {
    return this.#p.broker.touch(requestId, responder);
  }

  /** Settles a request nobody can answer any more (an MCP elicitation whose client went away). */
  expire(request: QuestionRequest, reason: string): QuestionOutcome {
    return this.#p.broker.expire(request, reason);
  }

  /** Declares `responder` able to answer the scope's questions until the returned function runs. */
  attach(scope: ResponderScope, responder: Responder): () => void {
    return this.#p.responders.attach(scope, responder);
  }

  /** The responders that can answer the thread's questions (its ancestors' too), in attach order. */
  responders(threadId: string): Responder[] {
    return this.#p.responders.list(threadId);
  }

  /**
   * Resolves once every question or approval stored as pending for the thread is asked again in
   * this process (re-asks start as the thread opens; approvals take a few ticks), or after
   * `timeoutMs`. Surfaces that answer right after opening a thread wait on this.
   */
  async reasked(threadId: string, timeoutMs = 5000): Promise<void> {
    const { store, broker } = this.#p;
    const want = store.pendingQuestions(threadId).map((q) => q.request_id);
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const live = new Set(broker.list({ threadId }).map((q) => q.request_id));
      if (want.every((id) => live.has(id) || store.getQuestion(id)?.outcome)) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/** `runtime.approvals`: the rules "Accept and remember" stores per project (approvals.ts). */
export class ApprovalsApi {
  readonly #p: RuntimeParts;

  constructor(parts: RuntimeParts) {
    this.#p = parts;
  }

  /** The project whose rules apply in `cwd`: its git root, else `cwd` itself. */
  project(cwd: string): string {
    return rulesProject(cwd);
  }

  /** The rules remembered for `cwd`'s project (malformed entries ignored). */
  rules(cwd: string): string[][] {
    return storedRules(this.#p.store, cwd);
  }

  /** Replaces the rules remembered for `cwd`'s project. */
  setRules(cwd: string, rules: string[][]): void {
    setStoredRules(this.#p.store, cwd, rules);
  }
}
