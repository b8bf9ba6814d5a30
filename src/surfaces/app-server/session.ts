/**
 * One client connection's state: initialization, the threads it is attached to (as a question
 * responder, requirements Q3), the notifications it opted out of, and the bridge between the broker's
 * requests and Codex server requests: questions go out as `item/tool/requestUserInput`, approvals
 * (requests with `approval`, requirements A2/A3) as `item/commandExecution/requestApproval` or
 * `item/fileChange/requestApproval`.
 *
 * Contract:
 * - Attaching to a thread registers this connection as a responder for it; `unsubscribe` (the
 *   `thread/unsubscribe` method) removes one registration and `dispose()` (on disconnect) all of
 *   them. Neither settles a question: its server requests are dropped and the question stays
 *   pending in the broker for the next client (Q11).
 * - Pending requests are asked under the one asking policy (questions/asker.ts): one at a time per
 *   request, whichever way it arrives (live event, resume, attach; approvals first, broker order),
 *   JSON-RPC id = the broker's request id. An invalid result (malformed, or refused by the broker
 *   as invalid) is asked again with a new id (`<request id>.<attempt>`), up to the policy's limit.
 * - A client result becomes a typed reply (questions.ts), a decision label (approvals.ts) or an MCP
 *   server's form answer (elicitation.ts); a JSON-RPC error reply is the client's decline (how
 *   Codex clients refuse a server request) — for an approval, the command or patch does not run.
 *   The broker decides; a refusal is logged and reported as `tandem/question/replyRefused` and
 *   `warning`.
 * - When the question settles (here or anywhere), every connection that got it receives
 *   `serverRequest/resolved` with the id it was sent under. A late result for it is passed to the
 *   broker, which acknowledges an identical duplicate and refuses anything else; it never revives it.
 */

import type { CollaborationMode } from "../../protocol/events.js";
import type { QuestionRequest, Responder } from "../../protocol/questions.js";
import { Asker, type ClientError } from "../../questions/asker.js";
import type { Runtime } from "../../runtime/core.js";
import { askHost } from "../shared/ask-host.js";
import { approvalReply, approvalRequest, patchPreview } from "./approvals.js";
import { ELICITATION_REQUEST, elicitationAnswer, elicitationParams } from "./elicitation.js";
import { REQUEST_USER_INPUT, requestUserInputParams, userInputReply } from "./questions.js";
import { ConnectionClosedError, RemoteError, RequestCancelledError, RpcConnection } from "./rpc.js";
import type { Transport } from "./transport.js";

export type SessionRequestHandler = (session: ClientSession, method: string, params: unknown) => unknown;

/** A server request this connection sent for a broker request (its latest attempt). */
interface Sent {
  rpcId: string;
  request: QuestionRequest;
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
  private disposers: Array<() => void> = [];
  private optOut = new Set<string>();
  private attachments = new Map<string, () => void>();
  private readonly asker: Asker<undefined>;
  /** broker request id → the server request it was last sent as, until it settles. */
  private sent = new Map<string, Sent>();
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
    this.asker = new Asker(askHost(runtime), {
      responder: this.responder,
      log: (line) => this.log(`${id}: ${line}`),
      classify: (err) => this.classify(err),
      refused: (request, code, message) => this.tellRefused(request, code, message),
      exchange: (request, { signal, attempt }) => this.exchange(request, signal, attempt),
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
    for (const [requestId, entry] of this.sent)
      if (entry.request.thread_id === threadId) this.sent.delete(requestId);
    this.asker.withdraw((r) => r.thread_id === threadId, "the client unsubscribed from the thread");
    return true;
  }

  /**
   * Sends the request (`tandem/question/requested`, then its server request) unless this
   * connection already has it.
   */
  ask(request: QuestionRequest): void {
    if (this.sent.has(request.request_id) || this.asker.has(request.request_id) || !this.rpc.isOpen) return;
    this.notify("tandem/question/requested", { request });
    this.asker.ask(request, undefined);
  }

  /** Every pending request of the thread that this connection has not been sent yet, approvals first. */
  askPending(threadId: string): void {
    for (const request of this.runtime.questions.list({ threadId })) this.ask(request);
  }

  /** The question settled (anywhere): drop our request and tell the client. */
  onSettled(threadId: string, requestId: string): void {
    const entry = this.sent.get(requestId);
    this.asker.settled(requestId);
    if (!entry) return;
    this.sent.delete(requestId);
    this.late.set(entry.rpcId, entry.request);
    if (this.late.size > LATE_CAPACITY) this.late.delete(this.late.keys().next().value!);
    this.notify("serverRequest/resolved", { threadId, requestId: entry.rpcId });
  }

  /** Runs `fn` when the connection goes (what it started must end with it, e.g. command/exec). */
  onDispose(fn: () => void): void {
    this.disposers.push(fn);
  }

  dispose(): void {
    for (const fn of this.disposers.splice(0)) fn();
    for (const detach of this.attachments.values()) detach();
    this.attachments.clear();
    this.asker.close();
    this.sent.clear();
    this.late.clear();
  }

  // -------------------------------------------------------------------------------------------

  /** The Codex server request for a broker request: an approval or questions. */
  private serverRequest(request: QuestionRequest): { method: string; params: unknown } {
    if (request.approval) return approvalRequest(request, request.approval);
    if (request.elicitation) return { method: ELICITATION_REQUEST, params: elicitationParams(request) };
    return { method: REQUEST_USER_INPUT, params: requestUserInputParams(request, this.modeOf(request)) };
  }

  /** One attempt: the server request, under a fresh id after the first; withdrawn when `signal` aborts. */
  private async exchange(request: QuestionRequest, signal: AbortSignal, attempt: number) {
    const rpcId = attempt === 1 ? request.request_id : `${request.request_id}.${attempt}`;
    const { method, params } = this.serverRequest(request);
    const preview = request.approval && patchPreview(request, request.approval);
    if (preview) this.notify("item/fileChange/patchUpdated", preview);
    this.sent.set(request.request_id, { rpcId, request });
    const { result } = this.rpc.request(method, params, { id: rpcId });
    const withdraw = () => this.rpc.forget(rpcId, (signal.reason as Error)?.message);
    signal.addEventListener("abort", withdraw, { once: true });
    try {
      return this.mapped(request, await result);
    } finally {
      signal.removeEventListener("abort", withdraw);
    }
  }

  /** A client result → the answer it gives (questions.ts, approvals.ts, elicitation.ts). */
  private mapped(request: QuestionRequest, result: unknown) {
    return request.approval
      ? approvalReply(request, request.approval, result)
      : request.elicitation
        ? elicitationAnswer(request, result)
        : userInputReply(request, result);
  }

  private modeOf(request: QuestionRequest): CollaborationMode {
    const thread = this.runtime.threads.get(request.thread_id);
    if (thread?.active?.id === request.turn_id) return thread.active.mode;
    return thread?.record.mode ?? "default";
  }

  /** A JSON-RPC error reply is the client's decline; a closed connection or withdrawal, nothing. */
  private classify(err: unknown): ClientError {
    if (err instanceof RemoteError) return { kind: "declined", reason: err.message };
    if (!(err instanceof ConnectionClosedError || err instanceof RequestCancelledError))
      this.log(`${this.id}: a server request failed: ${String(err)}`);
    return { kind: "gone" };
  }

  private refused(request: QuestionRequest, code: string, message: string): void {
    this.log(`${this.id}: answer to ${request.request_id} refused (${code}): ${message}`);
    this.tellRefused(request, code, message);
  }

  /** Tells the client its answer was not used (the asker has logged it). */
  private tellRefused(request: QuestionRequest, code: string, message: string): void {
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
        : this.asker.settle(request, this.mapped(request, response.result));
    if (!r.ok) this.refused(request, r.code, r.message);
    else if (r.duplicate) this.log(`${this.id}: duplicate answer to ${request.request_id} acknowledged`);
  }
}
