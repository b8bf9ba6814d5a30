/**
 * Debug-log hooks for the wires Tandem speaks (log.ts, README "Debugging"): JSON-RPC frames
 * (app-server, ACP, MCP client and server), HTTP requests served, and helpers that keep
 * credentials out of what is logged.
 *
 * Contract:
 * - Each hook costs one call and a level check while the log is off; the `watch*` helpers leave
 *   their argument untouched then (they must be called after `startLog`).
 * - `frame`: at debug, requests and responses as `{dir, via, method?, id, error?}` (notifications
 *   are left to trace); at trace, every frame whole (parsed when it is JSON), as log.ts masks it.
 * - `watchHttpServer`: one record per request when its response closes: method, path (query
 *   values of credential-like names REDACTED, see `safePath`), status, duration, and whether the
 *   response finished; at trace also the request's headers (log.ts redacts Authorization, Cookie…).
 * - `watchTransport` patches an MCP SDK transport in place (`send` and `onmessage`), so frames
 *   both ways are logged whoever sets `onmessage` later; `watchStreams` wraps an ACP message
 *   stream pair. Neither changes, drops or delays a message.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { log, maskRequestPath, REDACTED } from "./log.js";

type Json = Record<string, unknown>;
const CREDENTIAL_PARAM = /token|key|secret|passw|auth|sig|code/i;

let connections = 0;
/** A label for the `via` field of one connection's frames: `ws-1`, `ws-2`, … */
export function connectionLabel(kind: string): string {
  connections += 1;
  return `${kind}-${connections}`;
}

/** Logs one frame (see the contract). `message` is its JSON text or the parsed message. */
export function frame(area: string, dir: "in" | "out", via: string, message: string | object): void {
  if (!log.enabled("debug")) return;
  let parsed: unknown = message;
  if (typeof message === "string") {
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = undefined;
    }
  }
  if (log.enabled("trace")) {
    log.trace(area, `frame ${dir}`, { dir, via, frame: parsed ?? message });
    return;
  }
  const m = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Json;
  if (m.id === undefined) return; // a notification (or not JSON-RPC): trace only
  const kind = typeof m.method === "string" ? "request" : "response";
  const error = m.error as Json | undefined;
  log.debug(area, `${kind} ${dir}`, {
    dir,
    via,
    method: m.method,
    id: m.id,
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  });
}

/**
 * `url` (a request target) with the values of credential-like query parameters REDACTED, and a
 * reply link's token REDACTED in any spelling of its path (log.ts `maskRequestPath`).
 */
export function safePath(url: string | undefined): string {
  const target = url ?? "/";
  const q = target.indexOf("?");
  if (q < 0) return maskRequestPath(target);
  const params = new URLSearchParams(target.slice(q + 1));
  for (const key of [...params.keys()]) if (CREDENTIAL_PARAM.test(key)) params.set(key, REDACTED);
  return `${maskRequestPath(target.slice(0, q))}?${params.toString().replace(/%5Bredacted%5D/gi, REDACTED)}`;
}

/** Logs every request `server` answers (see the contract); nothing while the log is off. */
export function watchHttpServer(server: Server, area: string): void {
  if (!log.enabled("debug")) return;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const path = safePath(req.url);
    if (log.enabled("trace"))
      log.trace(area, "http request", { method: req.method, path, headers: req.headers });
    res.once("close", () =>
      log.debug(area, "http", {
        method: req.method,
        path,
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ...(res.writableFinished ? {} : { finished: false }),
      }),
    );
  });
}

interface SdkTransport {
  send(message: any, options?: any): Promise<void>;
  onmessage?: (message: any, extra?: any) => void;
}

/** Logs an MCP SDK transport's frames both ways (see the contract); returns it. */
export function watchTransport<T extends SdkTransport>(transport: T, area: string, via: string): T {
  if (!log.enabled("debug")) return transport;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    frame(area, "out", via, message);
    return send(message, options);
  };
  let handler: SdkTransport["onmessage"] = transport.onmessage;
  const logged = (message: unknown, extra?: unknown) => {
    frame(area, "in", via, message as object);
    handler?.(message, extra);
  };
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => (handler ? logged : undefined),
    set: (fn: SdkTransport["onmessage"]) => {
      handler = fn;
    },
  });
  return transport;
}

/** Logs the messages of a web-stream pair (the ACP SDK's `Stream`) both ways; returns an equivalent pair. */
export function watchStreams<
  M extends object,
  S extends { readable: ReadableStream<M>; writable: WritableStream<M> },
>(stream: S, area: string, via: string): S {
  if (!log.enabled("debug")) return stream;
  const tap = (dir: "in" | "out") =>
    new TransformStream<M, M>({
      transform(message, controller) {
        frame(area, dir, via, message);
        controller.enqueue(message);
      },
    });
  const incoming = tap("in");
  const outgoing = tap("out");
  void outgoing.readable.pipeTo(stream.writable).catch(() => {});
  return { ...stream, readable: stream.readable.pipeThrough(incoming), writable: outgoing.writable };
}

type UpgradeDone = (ok: boolean, status?: number, message?: string, headers?: Record<string, string>) => void;

/** Wraps a `ws` verifyClient callback so each upgrade's outcome is logged (path, status); `done` itself unchanged. */
export function upgrade(area: string, req: IncomingMessage, done: UpgradeDone): UpgradeDone {
  if (!log.enabled("debug")) return done;
  return (ok, status, message, headers) => {
    log.debug(area, "websocket upgrade", {
      path: safePath(req.url),
      status: ok ? 101 : status,
      ...(ok ? {} : { refused: message }),
      ...(log.enabled("trace") ? { headers: req.headers } : {}),
    });
    done(ok, status, message, headers);
  };
}
