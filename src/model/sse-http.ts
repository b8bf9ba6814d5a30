/**
 * Streaming POST over `node:http`/`node:https` with a keep-alive pool, and the SSE parser for
 * its answer: the Responses client's transport (responses.ts). It replaces the openai SDK on
 * this path because the SDK plus `fetch` cost ~11 MiB and ~100 ms of CPU to load and more per
 * request than the loop's budget (bench/speed.ts prints the figures).
 *
 * Contract of `post()`: resolves with the 2xx response, or rejects with
 * - `HttpStatusError` (status, parsed `error` body, headers with `get`) for a 4xx/5xx answer;
 * - an error named `APIConnectionError` (cause attached) when the server cannot be reached;
 * - the abort error when `signal` fires.
 * A request on a reused keep-alive socket that the server closed meanwhile is sent again once.
 * `sseEvents()` yields each `data:` JSON payload until `[DONE]` or the end of the body; a body
 * cut off mid-stream throws an error whose message starts with "terminated" (a stream failure).
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import * as WireLog from "./wire-log.js";

export class HttpStatusError extends Error {
  override name = "HttpStatusError";
  constructor(
    readonly status: number,
    readonly error: { code?: string; message?: string; type?: string } | undefined,
    readonly headers: { get(name: string): string | null },
    message: string,
  ) {
    super(message);
  }
}

class ConnectionError extends Error {
  override name = "APIConnectionError";
}

export interface SsePost {
  /** `onSent` runs once the body is handed to the kernel (benchmarks: the model's time starts). */
  post(body: string, signal: AbortSignal, onSent?: () => void): Promise<IncomingMessage>;
}

/** A poster for `<baseUrl><path>` with its own keep-alive pool. */
export function ssePoster(baseUrl: string, path: string, headers: Record<string, string>): SsePost {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl.replace(/\/+$/, "") + path);
  } catch {}
  const mod = url?.protocol === "https:" ? https : http;
  const agent = new mod.Agent({ keepAlive: true, maxSockets: 256 });
  const send = (
    body: string,
    signal: AbortSignal,
    again: boolean,
    onSent?: () => void,
  ): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      if (!url || !/^https?:$/.test(url.protocol)) {
        return reject(new ConnectionError("invalid base URL (expected http:// or https://)"));
      }
      if (signal.aborted) return reject(abortError());
      const started = WireLog.request("POST", url, body);
      const req = mod.request(url, {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          "content-length": String(Buffer.byteLength(body)),
          ...headers,
        },
      });
      req.on("socket", (s) => s.setNoDelay(true));
      // Abort destroys the request (and its socket) until the answer's body has ended.
      const onAbort = () => req.destroy(abortError());
      signal.addEventListener("abort", onAbort, { once: true });
      const settle = () => signal.removeEventListener("abort", onAbort);
      req.on("error", (err: NodeJS.ErrnoException) => {
        settle();
        WireLog.failed(url!, err, started);
        if (signal.aborted) return reject(err);
        // The server closed an idle pooled socket just as we reused it: send once more.
        if (again && req.reusedSocket && err.code === "ECONNRESET") {
          return resolve(send(body, signal, false, onSent));
        }
        reject(new ConnectionError(err.message, { cause: err }));
      });
      req.on("response", (res) => {
        res.on("error", () => {}); // reported to the reader (sseEvents) or ignored after it stopped
        res.on("close", settle);
        const status = res.statusCode ?? 0;
        WireLog.status(url!, status, started);
        if (status < 400) return resolve(res);
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (err) => reject(new ConnectionError(err.message, { cause: err })));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let error: HttpStatusError["error"];
          try {
            const parsed = JSON.parse(text);
            error = typeof parsed?.error === "object" && parsed.error ? parsed.error : undefined;
          } catch {}
          const get = (n: string) => {
            const v = res.headers[n.toLowerCase()];
            return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
          };
          const message = `${status} ${error?.message ?? (text.trim() || "status code (no body)")}`;
          WireLog.status(url!, status, started, text);
          reject(new HttpStatusError(status, error, { get }, message));
        });
      });
      req.end(body, onSent);
    });
  return { post: (body, signal, onSent) => send(body, signal, true, onSent) };
}

function abortError(): Error {
  return Object.assign(new Error("The operation was aborted"), { name: "AbortError" });
}

/**
 * The JSON payloads of an SSE body (`event:` lines are ignored; the payload carries `type`).
 * A reader that stops early leaves the rest of the body to drain, so the socket goes back to
 * the pool (the caller aborts the request instead when it must not wait for the end).
 */
export async function* sseEvents(res: IncomingMessage): AsyncGenerator<any> {
  res.setEncoding("utf8");
  const chunks: string[] = [];
  let ended = false;
  let failure: NodeJS.ErrnoException | undefined;
  let wake: (() => void) | undefined;
  const onData = (c: string) => {
    chunks.push(c);
    wake?.();
  };
  const onEnd = () => {
    ended = true;
    wake?.();
  };
  const onError = (err: Error) => {
    failure = err;
    wake?.();
  };
  res.on("data", onData);
  res.on("end", onEnd);
  res.on("error", onError);
  let buf = "";
  try {
    while (true) {
      const chunk = chunks.shift();
      if (chunk === undefined) {
        if (failure) {
          if (failure.name === "AbortError") throw failure;
          const e = failure;
          throw Object.assign(new Error(`terminated: ${e.message}`, { cause: e }), { code: e.code });
        }
        // A body that ends before its last event is cut off too (no blank line after it).
        if (ended) {
          if (buf.trim()) throw new Error("terminated: the stream ended mid-event");
          return;
        }
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = undefined;
        continue;
      }
      buf += chunk.includes("\r") ? chunk.replace(/\r\n?/g, "\n") : chunk;
      let end = buf.indexOf("\n\n");
      while (end >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        end = buf.indexOf("\n\n");
        let data = "";
        for (const line of block.split("\n")) {
          if (!line.startsWith("data:")) continue;
          const v = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
          data = data ? `${data}\n${v}` : v;
        }
        if (!data) continue;
        if (data === "[DONE]") return;
        const event = JSON.parse(data);
        WireLog.event(event);
        yield event;
      }
    }
  } finally {
    res.off("data", onData);
    res.off("end", onEnd);
    res.off("error", onError);
    if (!ended && !failure) res.resume();
  }
}
