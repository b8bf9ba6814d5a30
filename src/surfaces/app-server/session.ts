/**
 * One client connection's state: initialization, the threads it is attached to (as a question
 * responder, SPEC Q3), the notifications it opted out of, and the bridge between the broker's
 * requests and Codex server requests: questions go out as `item/tool/requestUserInput`, approvals
 * (requests with `approval`, SPEC A2/A3) as `item/commandExecution/requestApproval` or
 * `item/fileChange/requestApproval`.
 *
 * Contract:
 * - Attaching to a thread registers this connection as a responder for it; `unsubscribe` (the
 *   `thread/unsubscribe` method) removes one registration and `dispose()` (on disconnect) all of
 *   them. Neither settles a question: its server requests are dropped and the question stays
 *   pending in the broker for the next client (Q11).
 * - Each pending request is sent at most once per connection (JSON-RPC id = the broker's request
 *   id), whichever way it arrives (live event, resume, attach); approvals go first (broker order).
 *   If the client's result is invalid (malformed, or refused by the broker as invalid), the request
 *   is sent again with a new id (`<request id>.<attempt>`).
 * - A client result becomes a typed reply (questions.ts) or a decision label (approvals.ts); a
 *   JSON-RPC error becomes a decline — for an approval, the command or patch does not run. The
 *   broker decides; a refusal is logged and reported as `tandem/question/replyRefused` and `warning`.
 * - When the question settles (here or anywhere), every connection that got it receives
 *   `serverRequest/resolved` with the id it was sent under. A late result for it is passed to the
 *   broker, which acknowledges an identical duplicate and refuses anything else; it never revives it.
 */

import type { CollaborationMode } from "../../protocol/events.js";
import type { QuestionRequest, ReplyResult, Responder } from "../../protocol/questions.js";
import type { Runtime } from "../../runtime/core.js";
import { approvalReply, approvalRequest } from "./approvals.js";
import { ELICITATION_REQUEST, elicitationAnswer, elicitationParams } from "./elicitation.js";
import {
  type CodexAnswerResult,
  REQUEST_USER_INPUT,
  requestUserInputParams,
  userInputReply,
} from "./questions.js";
import { ConnectionClosedError, RemoteError, RequestCancelledError, RpcConnection } from "./rpc.js";
import type { Transport } from "./transport.js";

export type SessionRequestHandler = (session: ClientSession, method: string, params: unknown) => unknown;

interface Asked {
  rpcId: string;
  method: string;
  request: QuestionRequest;
  attempt: number;
}

/** How many settled questions a connection remembers for late results. */
const LATE_CAPACITY = 256;

export class ClientSession {
  readonly rpc: RpcConnection;
  readonly responder: Responder;
  initialized = false;
  clientName = "";
  /** Opted into `tandem/*` notifications at initialize (Codex clients do not get them). */
  tandemNotifications = false;
  private optOut = new Set<string>();
  private attachments = new Map<string, () => void>();
  private asked = new Map<string, Asked>();
  private announced = new Set<string>();
  /** rpc id → settled question, for late results. */
  private late = new Map<string, QuestionRequest>();

  constructor(
    readonly id: string,
    transport: Transport,
    private readonly runtime: Runtime,
    onRequest: SessionRequestHandler,
    private readonly log: (line: string) => void,
  ) {
    this.responder = { kind: "app-server", id };
    this.rpc = new RpcConnection(transport, {
      onRequest: (method, params) => onRequest(this, method, params),
      onNotification: (method) => {
        if (method !== "initialized") this.log(`${id}: ignored notification ${method}`);
      },
      onStrayResponse: (rpcId, response) => this.onStrayResponse(rpcId, response),
      log: (line) => this.log(`${id}: ${line}`),
    });
  }

  setOptOut(methods: string[]): void {
    this.optOut = new Set(methods);
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (this.optOut.has(method) || !this.rpc.isOpen) return;
    if (!this.tandemNotifications && method.startsWith("tandem/")) return;
    this.rpc.notify(method, params);
  }

  /** True the first time for `threadId`: a sub-agent thread this connection was not told of yet. */
  announce(threadId: string): boolean {
    if (this.announced.has(threadId)) return false;
    this.announced.add(threadId);
    return true;
  }

  isAttached(threadId: string): boolean {
    return this.attachments.has(threadId);
  }

  /** Attaches as a responder for the thread. Returns false when already attached. */
  attach(threadId: string): boolean {
    if (this.attachments.has(threadId)) return false;
    this.attachments.set(threadId, this.runtime.questions.attach({ threadId }, this.responder));
    return true;
  }

  detach(threadId: string): void {
    this.attachments.get(threadId)?.();
    this.attachments.delete(threadId);
  }

  /**
   * Stops being a responder for the thread and drops the server requests this connection holds for
   * it; the questions stay pending in the broker for the other responders, and a later attach sends
   * them again. Returns false when the connection was not attached.
   */
  unsubscribe(threadId: string): boolean {
    if (!this.attachments.has(threadId)) return false;
    this.detach(threadId);
    for (const [requestId, entry] of this.asked) {
      if (entry.request.thread_id !== threadId) continue;
      this.asked.delete(requestId);
      this.rpc.forget(entry.rpcId, "the client unsubscribed from the thread");
    }
    return true;
  }

  /**
   * Sends the request (`tandem/question/requested`, then its server request) unless this
   * connection already has it.
   */
  ask(request: QuestionRequest): void {
    if (this.asked.has(request.request_id) || !this.rpc.isOpen) return;
    this.notify("tandem/question/requested", { request });
    this.send(request, 1);
  }

  /** Every pending request of the thread that this connection has not been sent yet, approvals first. */
  askPending(threadId: string): void {
    for (const request of this.runtime.questions.list({ threadId })) this.ask(request);
  }

  /** The question settled (anywhere): drop our request and tell the client. */
  onSettled(threadId: string, requestId: string): void {
    const entry = this.asked.get(requestId);
    if (!entry) return;
    this.asked.delete(requestId);
    this.rpc.forget(entry.rpcId, "the question was settled");
    this.late.set(entry.rpcId, entry.request);
    if (this.late.size > LATE_CAPACITY) this.late.delete(this.late.keys().next().value!);
    this.notify("serverRequest/resolved", { threadId, requestId: entry.rpcId });
  }

  dispose(): void {
    for (const detach of this.attachments.values()) detach();
    this.attachments.clear();
    this.asked.clear();
    this.late.clear();
  }

  // -------------------------------------------------------------------------------------------

  /** The Codex server request for a broker request: an approval or questions. */
  private serverRequest(request: QuestionRequest): { method: string; params: unknown } {
    if (request.approval) return approvalRequest(request, request.approval);
    if (request.elicitation) return { method: ELICITATION_REQUEST, params: elicitationParams(request) };
    return { method: REQUEST_USER_INPUT, params: requestUserInputParams(request, this.modeOf(request)) };
  }

  private send(request: QuestionRequest, attempt: number): void {
    const rpcId = attempt === 1 ? request.request_id : `${request.request_id}.${attempt}`;
    const { method, params } = this.serverRequest(request);
    const entry: Asked = { rpcId, method, request, attempt };
    this.asked.set(request.request_id, entry);
    this.rpc.request(method, params, { id: rpcId }).result.then(
      (result) => this.onResult(entry, result),
      (err) => this.onError(entry, err),
    );
  }

  private modeOf(request: QuestionRequest): CollaborationMode {
    const thread = this.runtime.threads.get(request.thread_id);
    if (thread?.active?.id === request.turn_id) return thread.active.mode;
    return thread?.record.mode ?? "default";
  }

  private current(entry: Asked): boolean {
    return this.asked.get(entry.request.request_id) === entry;
  }

  private onResult(entry: Asked, result: unknown): void {
    if (!this.current(entry)) return;
    const r = this.answer(entry.request, result);
    if (r.ok) return;
    this.refused(entry.request, r.code, r.message);
    if (r.code === "invalid_reply" && this.current(entry)) this.retry(entry);
  }

  private onError(entry: Asked, err: unknown): void {
    if (err instanceof ConnectionClosedError || err instanceof RequestCancelledError) return;
    if (!(err instanceof RemoteError)) {
      this.log(`${this.id}: ${entry.method} request ${entry.rpcId} failed: ${String(err)}`);
      return;
    }
    if (!this.current(entry)) return;
    const { request } = entry;
    const r = this.runtime.questions.decline(
      request.thread_id,
      request.request_id,
      this.responder,
      err.message,
    );
    if (!r.ok) this.refused(request, r.code, r.message);
  }

  /** Maps a client result to a reply (or a decline) and hands it to the broker. */
  private answer(request: QuestionRequest, result: unknown): ReplyResult {
    const mapped: CodexAnswerResult = request.approval
      ? approvalReply(request, request.approval, result)
      : request.elicitation
        ? elicitationAnswer(request, result)
        : userInputReply(request, result);
    const { thread_id, request_id } = request;
    switch (mapped.kind) {
      case "invalid":
        return { ok: false, code: "invalid_reply", message: mapped.message };
      case "reply":
        return this.runtime.questions.reply(thread_id, request_id, mapped.reply, this.responder);
      case "decline":
        return this.runtime.questions.decline(thread_id, request_id, this.responder, mapped.reason);
      case "cancel":
        if (!request.elicitation)
          return this.runtime.questions.decline(thread_id, request_id, this.responder, mapped.reason);
        return { ok: true, outcome: this.runtime.questions.expire(request, mapped.reason) };
    }
  }

  /** Asks again after an invalid answer, if the question is still pending. */
  private retry(entry: Asked): void {
    const { thread_id, request_id } = entry.request;
    const fresh = this.runtime.questions
      .list({ threadId: thread_id })
      .find((q) => q.request_id === request_id);
    if (!fresh) return;
    this.send(fresh, entry.attempt + 1);
  }

  private refused(request: QuestionRequest, code: string, message: string): void {
    this.log(`${this.id}: answer to ${request.request_id} refused (${code}): ${message}`);
    const params = { threadId: request.thread_id, requestId: request.request_id, code, message };
    this.notify("tandem/question/replyRefused", params);
    this.notify("warning", { threadId: request.thread_id, message: `answer not used: ${message}` });
  }

  private onStrayResponse(
    rpcId: string | number | null,
    response: { result?: unknown; error?: unknown },
  ): void {
    const request = typeof rpcId === "string" ? this.late.get(rpcId) : undefined;
    if (!request) {
      const shown = rpcId === null ? "null" : JSON.stringify(rpcId);
      this.log(`${this.id}: response to unknown request id ${shown} ignored`);
      this.notify("warning", { message: `response to unknown request id ${shown} was ignored` });
      return;
    }
    const r =
      "error" in response
        ? this.runtime.questions.decline(
            request.thread_id,
            request.request_id,
            this.responder,
            "late error reply",
          )
        : this.answer(request, response.result);
    if (!r.ok) this.refused(request, r.code, r.message);
    else if (r.duplicate) this.log(`${this.id}: duplicate answer to ${request.request_id} acknowledged`);
  }
}
