/**
 * Helpers for the `tandem serve` tests: a real runtime (test/helpers/index.ts harness: real SQLite,
 * scripted model over real HTTP) behind a real HTTP server on port 0, a fetch wrapper with the
 * token, and an SSE reader over fetch that parses frames exactly as a browser would.
 */
import type { EventLog } from "../../src/cluster/events.js";
import type { Script } from "../../src/mock-model/index.js";
import type { HttpServer } from "../../src/surfaces/http/server.js";
import { startHttpServer } from "../../src/surfaces/http/server.js";
import { type Harness, harness } from "./index.js";

export const TOKEN = "test-token-0123456789";

export interface Served {
  h: Harness;
  server: HttpServer;
  url: string;
  /** fetch with the bearer token; `body` objects are sent as JSON. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res>;
  close(): Promise<void>;
}

export interface Res {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

export async function serve(opts: {
  script: Script;
  overrides?: string[];
  home?: string;
  heartbeatMs?: number;
  maxQueuedBytes?: number;
  eventLog?: EventLog;
}): Promise<Served> {
  const h = await harness({ script: opts.script, overrides: opts.overrides, home: opts.home });
  const server = await startHttpServer(h.runtime, {
    token: TOKEN,
    port: 0,
    heartbeatMs: opts.heartbeatMs,
    maxQueuedBytes: opts.maxQueuedBytes,
    eventLog: opts.eventLog,
    defaultCwd: h.cwd,
  });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${TOKEN}`, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    const res = await fetch(server.url + path, init);
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
  return {
    h,
    server,
    url: server.url,
    call,
    async close() {
      await server.close();
      await h.close();
    },
  };
}

export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
  comment?: string;
}

export interface SseClient {
  status: number;
  frames: SseFrame[];
  /** Parsed `data` of unnamed frames (bus events). */
  events(): Array<{ seq: number; time: number; event: any }>;
  next(pred: (f: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  close(): void;
  closed: Promise<void>;
}

/** Opens `GET /event…` and parses frames as they arrive. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers, signal: ctrl.signal });
  const frames: SseFrame[] = [];
  const waiters: Array<{ pred: (f: SseFrame) => boolean; resolve: (f: SseFrame) => void }> = [];
  const push = (f: SseFrame) => {
    frames.push(f);
    for (const w of [...waiters])
      if (w.pred(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
  };
  const closed = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i = buf.indexOf("\n\n");
        while (i >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          push(parseBlock(block));
          i = buf.indexOf("\n\n");
        }
      }
    } catch {
      /* aborted */
    }
  })();
  return {
    status: res.status,
    frames,
    events: () => frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data)),
    next(pred, timeoutMs = 10_000) {
      const seen = frames.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error("timed out waiting for an SSE frame")), timeoutMs);
        waiters.push({
          pred,
          resolve: (f) => {
            clearTimeout(t);
            resolve(f);
          },
        });
      });
    },
    close: () => ctrl.abort(),
    closed,
  };
}

function parseBlock(block: string): SseFrame {
  const f: SseFrame = { data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) f.comment = line.slice(1).trim();
    else if (line.startsWith("id: ")) f.id = line.slice(4);
    else if (line.startsWith("event: ")) f.event = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
  }
  f.data = data.join("\n");
  return f;
}

/** True when the frame is the bus event `type` (optionally matching more). */
export function isEvent(type: string, more: (e: any) => boolean = () => true) {
  return (f: SseFrame) => {
    if (f.id === undefined) return false;
    const e = JSON.parse(f.data).event;
    return e.type === type && more(e);
  };
}

/**
 * Like `pred`, true only for its `n`-th matching frame (each frame tested once, in order, as
 * `SseClient.next` does): waits for an event to happen again, e.g. a question asked anew.
 */
export function nth(n: number, pred: (f: SseFrame) => boolean) {
  let seen = 0;
  return (f: SseFrame) => pred(f) && ++seen === n;
}

/** Polls until `check` is true (for counts that settle after a socket closes). */
export async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
