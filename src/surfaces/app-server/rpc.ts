/**
 * One JSON-RPC connection over a Transport. The single owner of request/response bookkeeping for
 * the app server: incoming requests → handler → exactly one response; outgoing server→client
 * requests → a pending entry (id, optional timeout) until the client's result or error, a local
 * `forget`, or close.
 *
 * Contract:
 * - Every incoming request gets exactly one response. Handlers throw `RpcError` for wire errors;
 *   anything else becomes -32603 with the error's message (the stack goes to the log, never the wire).
 * - Malformed input never breaks the connection: bad JSON → -32700 with id null; not a request,
 *   notification or response → -32600; a framing error from the transport (oversized, binary) → -32600.
 * - Ordering: a response is written before any notification or server request produced while its
 *   handler ran synchronously (e.g. `turn/start` responds before `turn/started`). Messages are held
 *   only during that synchronous part, never across an `await`.
 * - `"jsonrpc":"2.0"` is mirrored: omitted (Codex style) until the client sends it once, then
 *   included in everything this connection writes, so strict JSON-RPC 2.0 clients and Codex clients
 *   both get what they expect. Any other `jsonrpc` value is refused.
 * - Outgoing requests settle exactly once: the client's `result` resolves, its `error` rejects with
 *   `RemoteError`, `forget` rejects with `RequestCancelledError`, a timeout with `RequestTimeoutError`,
 *   close with `ConnectionClosedError`. A response to an id that is not pending goes to
 *   `onStrayResponse` (it never resolves anything else).
 */
import type { RequestId } from "../../protocol/app-server.js";
import { FramingError, type Transport } from "./transport.js";

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Server-defined range (-32000…-32099). */
  ThreadNotFound: -32001,
  NotInitialized: -32002,
  TurnConflict: -32003,
  AlreadyInitialized: -32004,
  /** Another process drives the thread (its lease; the message names pid, host, since). */
  ThreadInUse: -32005,
  /** Question broker refusals, one code per broker reason. */
  UnknownRequest: -32010,
  AlreadySettled: -32011,
  Cancelled: -32012,
  WrongThread: -32013,
  InvalidReply: -32014,
  /** Another node runs the thread now (cluster); nothing was recorded: send it again. */
  LeaseLost: -32015,
} as const;

/** A wire error (code, message, optional data). Serialisable; never carries a stack to the peer. */
export class RpcError extends Error {
  override name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The client answered one of our requests with a JSON-RPC error. */
export class RemoteError extends Error {
  override name = "RemoteError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export class ConnectionClosedError extends Error {
  override name = "ConnectionClosedError";
}
export class RequestCancelledError extends Error {
  override name = "RequestCancelledError";
}
export class RequestTimeoutError extends Error {
  override name = "RequestTimeoutError";
}

/** Returns the result, or a Promise of it. Throws `RpcError` for wire errors. */
export type RequestHandler = (method: string, params: unknown, id: RequestId) => unknown;

export interface ConnectionOptions {
  onRequest: RequestHandler;
  onNotification?: (method: string, params: unknown) => void;
  /** A response whose id is not pending here (late, duplicate or unknown). */
  onStrayResponse?: (id: RequestId | null, response: { result?: unknown; error?: unknown }) => void;
  log?: (line: string) => void;
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | undefined;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId =>
  typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));

export class RpcConnection {
  private readonly pending = new Map<RequestId, Pending>();
  private nextId = 1;
  private holding = 0;
  private held: Json[] = [];
  private withVersion = false;
  private isClosed = false;
  private resolveClosed!: () => void;
  /** Resolves once the transport closed and every pending request was rejected. */
  readonly closed = new Promise<void>((r) => {
    this.resolveClosed = r;
  });

  constructor(
    private readonly transport: Transport,
    private readonly opts: ConnectionOptions,
  ) {
    transport.onmessage = (text) => this.receive(text);
    transport.onerror = (err) => this.transportError(err);
    transport.onclose = () => this.onTransportClosed();
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /**
   * Sends a server→client request. `id` may be chosen by the caller (e.g. a question's request id,
   * unique per connection); otherwise an integer is allocated.
   */
  request(
    method: string,
    params: unknown,
    opts: { id?: RequestId; timeoutMs?: number } = {},
  ): { id: RequestId; result: Promise<unknown> } {
    const id = opts.id ?? this.nextId++;
    if (this.pending.has(id))
      throw new Error(`request id ${String(id)} is already pending on this connection`);
    if (this.isClosed) return { id, result: Promise.reject(new ConnectionClosedError("connection closed")) };
    const result = new Promise<unknown>((resolve, reject) => {
      const entry: Pending = { method, resolve, reject, timer: undefined };
      if (opts.timeoutMs !== undefined) {
        entry.timer = setTimeout(() => {
          if (this.pending.get(id) !== entry) return;
          this.pending.delete(id);
          reject(new RequestTimeoutError(`${method} got no response within ${opts.timeoutMs} ms`));
        }, opts.timeoutMs);
        entry.timer.unref?.();
      }
      this.pending.set(id, entry);
    });
    this.write({ id, method, params });
    return { id, result };
  }

  isPending(id: RequestId): boolean {
    return this.pending.has(id);
  }

  /** Drops a pending request without a response (resolved elsewhere). Returns whether it was pending. */
  forget(id: RequestId, reason = "resolved elsewhere"): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.reject(new RequestCancelledError(reason));
    return true;
  }

  async close(): Promise<void> {
    await this.transport.close();
    this.onTransportClosed();
  }

  // -------------------------------------------------------------------------------------------

  private receive(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch (err) {
      this.sendError(null, ErrorCode.ParseError, `parse error: ${(err as Error).message}`);
      return;
    }
    if (Array.isArray(msg)) {
      this.sendError(
        null,
        ErrorCode.InvalidRequest,
        "batches are not supported; send one JSON object per message",
      );
      return;
    }
    if (!isObject(msg)) {
      this.sendError(null, ErrorCode.InvalidRequest, "a message must be a JSON object");
      return;
    }
    const id = isId(msg.id) ? msg.id : null;
    if (msg.jsonrpc !== undefined) {
      if (msg.jsonrpc !== "2.0") {
        this.sendError(
          id,
          ErrorCode.InvalidRequest,
          'unsupported "jsonrpc" version; send "2.0" or omit the field',
        );
        return;
      }
      this.withVersion = true;
    }
    if ("method" in msg) {
      if (typeof msg.method !== "string" || msg.method === "") {
        this.sendError(id, ErrorCode.InvalidRequest, '"method" must be a non-empty string');
        return;
      }
      if (msg.id === undefined) {
        this.dispatchNotification(msg.method, msg.params);
        return;
      }
      if (id === null) {
        this.sendError(null, ErrorCode.InvalidRequest, '"id" must be a string or an integer');
        return;
      }
      this.dispatchRequest(id, msg.method, msg.params);
      return;
    }
    if ("result" in msg || "error" in msg) {
      this.receiveResponse(id, msg);
      return;
    }
    this.sendError(
      id,
      ErrorCode.InvalidRequest,
      'not a request, notification or response: expected "method", or "id" with "result" or "error"',
    );
  }

  private receiveResponse(id: RequestId | null, msg: Json): void {
    const entry = id === null ? undefined : this.pending.get(id);
    if (!entry || id === null) {
      this.opts.onStrayResponse?.(id, msg);
      return;
    }
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    if (!("error" in msg)) {
      entry.resolve(msg.result);
      return;
    }
    const e = msg.error;
    const code = isObject(e) && typeof e.code === "number" ? e.code : ErrorCode.InternalError;
    const message = isObject(e) && typeof e.message === "string" ? e.message : JSON.stringify(e);
    entry.reject(new RemoteError(code, message, isObject(e) ? e.data : undefined));
  }

  private dispatchNotification(method: string, params: unknown): void {
    try {
      this.opts.onNotification?.(method, params);
    } catch (err) {
      this.log(`notification ${method} failed: ${(err as Error)?.stack ?? err}`);
    }
  }

  private dispatchRequest(id: RequestId, method: string, params: unknown): void {
    this.holding++;
    let out: unknown;
    try {
      out = this.opts.onRequest(method, params, id);
    } catch (err) {
      this.respondError(id, method, err);
      this.release();
      return;
    }
    if (out instanceof Promise) {
      this.release();
      out.then(
        (result) => this.respond(id, result),
        (err) => this.respondError(id, method, err),
      );
      return;
    }
    this.respond(id, out);
    this.release();
  }

  private respond(id: RequestId, result: unknown): void {
    this.write({ id, result: result === undefined ? {} : result }, true);
  }

  private respondError(id: RequestId, method: string, err: unknown): void {
    if (err instanceof RpcError) {
      this.sendError(id, err.code, err.message, err.data);
      return;
    }
    this.log(`${method} failed: ${(err as Error)?.stack ?? err}`);
    this.sendError(
      id,
      ErrorCode.InternalError,
      `internal error in ${method}: ${(err as Error)?.message ?? err}`,
    );
  }

  private sendError(id: RequestId | null, code: number, message: string, data?: unknown): void {
    this.write({ id, error: data === undefined ? { code, message } : { code, message, data } }, true);
  }

  private release(): void {
    if (--this.holding > 0) return;
    const queued = this.held;
    this.held = [];
    for (const m of queued) this.send(m);
  }

  private write(message: Json, direct = false): void {
    if (this.holding > 0 && !direct) this.held.push(message);
    else this.send(message);
  }

  private send(message: Json): void {
    if (this.isClosed) return;
    let text: string;
    try {
      text = JSON.stringify(this.withVersion ? { jsonrpc: "2.0", ...message } : message);
    } catch (err) {
      this.log(`cannot serialise ${String(message.method ?? "response")}: ${(err as Error).message}`);
      return;
    }
    this.transport.send(text);
  }

  private transportError(err: Error): void {
    if (err instanceof FramingError) this.sendError(null, ErrorCode.InvalidRequest, err.message);
    else this.log(`transport error: ${err.message}`);
  }

  private onTransportClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const e of entries) {
      if (e.timer) clearTimeout(e.timer);
      e.reject(new ConnectionClosedError(`connection closed before ${e.method} was answered`));
    }
    this.held = [];
    this.resolveClosed();
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }
}
