/**
 * Responses over WebSocket (requirements L13; wire = "responses_websocket"). One socket per thread
 * (keyed by the prompt's thread id) carries `response.create` frames: the Responses body with
 * `type: "response.create"` in front; the answer arrives as JSON frames with the SSE event types.
 *
 * Continuation: when this socket's previous response completed, the new body's fields other
 * than `input` and `client_metadata` are unchanged, and the new input starts with the previous
 * request's input followed by that response's output items, the frame carries
 * `previous_response_id` (right before `input`) and only the new tail of input. Otherwise the
 * frame is a full request. Either way the logical request is the body buildResponsesBody makes.
 *
 * Contract (model/types.ts): `stream()` never throws; it ends with exactly one `completed` or
 * `failed`. A `previous_response_not_found` error is answered by resending the full request
 * once on the same socket. A socket that drops loses its chain: the failure is retryable and
 * the retry connects again and sends a full request. No frame for `idleTimeoutMs` fails as
 * `timeout`. An abort closes the socket (the protocol has no cancel frame), so the server
 * stops the response; the next request reconnects. A request for a thread whose socket is
 * busy (a compaction alongside a turn, say) goes on a one-off socket as a full request.
 * Idle sockets do not keep the process alive and close after `socketIdleMs`.
 */
import type WebSocket from "ws";
import type { ResponseItem } from "../protocol/items.js";
import { classifyCode, classifyThrown, retryAfterFromHeaders } from "./errors.js";
import { bodyJson, buildResponsesBody } from "./request.js";
import { translateEvent } from "./responses.js";
import type { ModelClient, ModelError, ModelEvent, Prompt } from "./types.js";
import * as WireLog from "./wire-log.js";

export interface ResponsesWsClientOptions {
  baseUrl: string;
  apiKey: string;
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
  /** Closes a socket unused for this long (default 5 minutes). */
  socketIdleMs?: number;
  /** Observes each logical body and the frame actually sent (benchmarks, debugging). */
  onRequest?: (body: Record<string, unknown>, frame: Record<string, unknown>) => void;
  /** Runs once each frame is written to the socket (benchmarks: where the model's time starts). */
  onSent?: () => void;
  /** Runs when each answer's first frame arrives, before it is parsed (benchmarks). */
  onResponse?: () => void;
}

export interface ResponsesWsClient extends ModelClient {
  /** Closes every socket. */
  close(): void;
}

type Body = Record<string, unknown>;
type Next = { msg: any } | "idle" | "closed" | "aborted";

/** The last completed exchange on a socket: what a continuation may extend. */
interface Chain {
  responseId: string;
  body: Body;
  output: ResponseItem[];
}

class Conn {
  private inbox: any[] = [];
  private wake?: () => void;
  closed = false;
  busy = false;
  chain?: Chain;
  idleTimer?: NodeJS.Timeout;

  /** Called once, at the next frame's arrival (a request's answer starting; benchmarks). */
  onFrame?: () => void;

  constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const first = this.onFrame;
      this.onFrame = undefined;
      first?.();
      let msg: unknown;
      try {
        msg = JSON.parse(String(data));
      } catch {
        msg = {
          type: "error",
          error: { code: "invalid_frame", message: "model sent a frame that is not JSON" },
        };
      }
      WireLog.event(msg);
      this.inbox.push(msg);
      this.wake?.();
    });
    const onClose = () => {
      this.closed = true;
      this.chain = undefined;
      this.wake?.();
    };
    ws.on("close", onClose);
    ws.on("error", onClose);
  }

  /** Keeps the process alive only while a response is in flight. */
  hold(on: boolean): void {
    const socket = (this.ws as unknown as { _socket?: { ref(): void; unref(): void } })._socket;
    if (on) socket?.ref();
    else socket?.unref();
  }

  clear(): void {
    this.inbox = [];
  }

  next(ms: number, signal: AbortSignal): Promise<Next> {
    const ready = (): Next | undefined => {
      if (signal.aborted) return "aborted";
      if (this.inbox.length) return { msg: this.inbox.shift() };
      if (this.closed) return "closed";
      return undefined;
    };
    const now = ready();
    if (now) return Promise.resolve(now);
    return new Promise<Next>((resolve) => {
      const done = (r: Next) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.wake = undefined;
        resolve(r);
      };
      const onAbort = () => done("aborted");
      const timer = setTimeout(() => done("idle"), ms);
      signal.addEventListener("abort", onAbort, { once: true });
      this.wake = () => {
        const r = ready();
        if (r) done(r);
      };
    });
  }

  close(): void {
    this.closed = true;
    this.chain = undefined;
    clearTimeout(this.idleTimer);
    this.ws.terminate();
  }
}

/** The WebSocket URL of `<base>/responses`. */
export function wsUrl(baseUrl: string): string {
  const u = new URL(baseUrl.replace(/\/+$/, "") + "/responses");
  u.protocol = u.protocol === "https:" ? "wss:" : u.protocol === "http:" ? "ws:" : u.protocol;
  return u.toString();
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** Arrays (the tool list) element by element, so unchanged tool objects cost no serialising. */
function sameField(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  return same(a, b);
}

/** The continuation frame for `body` after `chain`, or undefined when a full request is needed. */
export function continuationFrame(body: Body, chain: Chain | undefined): Body | undefined {
  if (!chain) return undefined;
  const prev = chain.body;
  const keys = Object.keys(body);
  const prevKeys = Object.keys(prev);
  if (keys.length !== prevKeys.length) return undefined;
  for (const [i, k] of keys.entries()) {
    if (k !== prevKeys[i]) return undefined;
    if (k === "input" || k === "client_metadata") continue;
    if (!sameField(body[k], prev[k])) return undefined;
  }
  const input = body.input as unknown[];
  const prevInput = prev.input as unknown[];
  const prefix = prevInput.length + chain.output.length;
  if (input.length <= prefix) return undefined;
  for (let i = 0; i < prevInput.length; i++) if (!same(input[i], prevInput[i])) return undefined;
  for (let i = 0; i < chain.output.length; i++) {
    if (!same(input[prevInput.length + i], chain.output[i])) return undefined;
  }
  const frame: Body = { type: "response.create" };
  for (const k of keys) {
    if (k === "input") {
      frame.previous_response_id = chain.responseId;
      frame.input = input.slice(prefix);
    } else frame[k] = body[k];
  }
  return frame;
}

export function createResponsesWsClient(opts: ResponsesWsClientOptions): ResponsesWsClient {
  const idleMs = opts.idleTimeoutMs ?? 300_000;
  const socketIdleMs = opts.socketIdleMs ?? 300_000;
  const url = wsUrl(opts.baseUrl);
  const conns = new Map<string, Conn>();
  const interrupted: ModelError = { kind: "interrupted", message: "interrupted", retryable: false };

  async function connect(signal: AbortSignal): Promise<Conn> {
    const { default: WS } = await import("ws");
    const started = WireLog.request("GET", url);
    const ws = new WS(url, {
      headers: { Authorization: `Bearer ${opts.apiKey}`, ...opts.headers },
      perMessageDeflate: false,
      handshakeTimeout: idleMs,
    });
    return new Promise<Conn>((resolve, reject) => {
      const onAbort = () => {
        ws.terminate();
        reject(new Error("aborted"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const settle = () => signal.removeEventListener("abort", onAbort);
      ws.once("open", () => {
        WireLog.status(url, 101, started);
        settle();
        resolve(new Conn(ws));
      });
      ws.once("error", (err) => {
        WireLog.failed(url, err, started);
        settle();
        reject(err);
      });
      ws.once("unexpected-response", (_req, res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          settle();
          ws.terminate();
          WireLog.status(url, res.statusCode ?? 0, started, Buffer.concat(chunks).toString("utf8"));
          let parsed: any;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {}
          const error = Object.assign(new Error(parsed?.error?.message ?? `HTTP ${res.statusCode}`), {
            status: res.statusCode,
            error: parsed?.error,
            headers: res.headers as Record<string, string>,
          });
          reject(error);
        });
      });
    });
  }

  function release(key: string, conn: Conn, oneOff: boolean): void {
    conn.busy = false;
    if (oneOff || conn.closed) {
      conn.close();
      if (conns.get(key) === conn) conns.delete(key);
      return;
    }
    conn.hold(false);
    conn.idleTimer = setTimeout(() => {
      conn.close();
      if (conns.get(key) === conn) conns.delete(key);
    }, socketIdleMs);
    conn.idleTimer.unref();
  }

  return WireLog.loggedClient("responses_websocket", opts, {
    close() {
      for (const conn of conns.values()) conn.close();
      conns.clear();
    },
    async *stream(prompt: Prompt, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const body = buildResponsesBody(prompt);
      const key = prompt.clientMetadata.thread_id ?? prompt.promptCacheKey;
      if (signal.aborted) {
        yield { type: "failed", error: interrupted };
        return;
      }
      let conn = conns.get(key);
      const oneOff = conn?.busy === true;
      if (!conn || conn.closed || oneOff) {
        if (conn && !oneOff) conns.delete(key);
        try {
          conn = await connect(signal);
        } catch (err) {
          yield { type: "failed", error: signal.aborted ? interrupted : classifyThrown(err, opts.baseUrl) };
          return;
        }
        if (!oneOff) conns.set(key, conn);
      }
      clearTimeout(conn.idleTimer);
      // Set once a final event is yielded; a consumer that stops early leaves frames in flight.
      let settled = false;
      conn.busy = true;
      conn.hold(true);
      try {
        let frame = oneOff ? undefined : continuationFrame(body, conn.chain);
        while (true) {
          const continued = frame !== undefined;
          frame ??= { type: "response.create", ...body };
          conn.chain = undefined;
          conn.clear();
          opts.onRequest?.(body, frame);
          conn.onFrame = opts.onResponse;
          const text = bodyJson(frame);
          WireLog.sent(url, frame, text);
          conn.ws.send(text, opts.onSent && (() => opts.onSent?.()));
          const output: ResponseItem[] = [];
          let retryFull = false;
          while (true) {
            const r = await conn.next(idleMs, signal);
            if (r === "aborted") {
              conn.close();
              yield { type: "failed", error: interrupted };
              return;
            }
            if (r === "idle") {
              conn.close();
              yield {
                type: "failed",
                error: { kind: "timeout", message: `stream idle for ${idleMs} ms`, retryable: true },
              };
              return;
            }
            if (r === "closed") {
              yield {
                type: "failed",
                error: {
                  kind: "stream",
                  message: "websocket closed before response.completed",
                  retryable: true,
                },
              };
              return;
            }
            const msg = r.msg;
            if (msg?.type === "error" && continued && errorCode(msg) === "previous_response_not_found") {
              retryFull = true;
              break;
            }
            const ev = translateEvent(msg);
            if (!ev) continue;
            if (ev.type === "failed" && msg?.type === "error") {
              const ra = retryAfterFromHeaders((n) => msg.headers?.[n]);
              const error = classifyCode(errorCode(msg), ev.error.message, msg.status);
              if (ra !== undefined) error.retryAfterMs = ra;
              settled = true;
              yield { type: "failed", error };
              return;
            }
            if (ev.type === "item_done") output.push(ev.item);
            if (ev.type === "completed" && ev.responseId) {
              conn.chain = { responseId: ev.responseId, body, output };
            }
            if (ev.type === "completed" || ev.type === "failed") {
              settled = true;
              yield ev;
              return;
            }
            yield ev;
          }
          if (!retryFull) return;
          frame = undefined;
        }
      } finally {
        if ((signal.aborted || !settled) && !conn.closed) conn.close();
        release(key, conn, oneOff);
      }
    },
  });
}

function errorCode(msg: any): string | undefined {
  return msg?.error?.code ?? msg?.code ?? undefined;
}
