/**
 * Debug-log hooks of the model clients (util/log.ts, README "Debugging"), area "model".
 *
 * Contract:
 * - `loggedClient` registers the provider's API key as a secret (masked in every record) and, while
 *   the log is on, wraps `stream`: at debug one record when a stream starts (wire, base URL, model,
 *   thread, input items, tools) and one when it ends (duration, time to the first event, event
 *   count, outcome — completed, failed with the error, or abandoned by the consumer — usage).
 *   While the log is off it returns the client itself.
 * - The transport hooks add what only the transport sees: `request` (debug: URL and size; trace:
 *   the body), `status` (HTTP status and time to the answer's head, an error body's message),
 *   `failed` (the connection error), `event` (trace: each SSE event or WebSocket frame received),
 *   `sent` (trace: each WebSocket frame sent). URLs are logged without credentials or query values
 *   of credential-like names.
 */
import { performance } from "node:perf_hooks";
import { log } from "../util/log.js";
import { safePath } from "../util/log-wire.js";
import type { ModelClient, ModelEvent, Prompt } from "./types.js";

const ms = (since: number) => Math.round((performance.now() - since) * 10) / 10;

/** `url` without user:password and with credential-like query values redacted. */
export function safeUrl(url: string | URL): string {
  try {
    const u = new URL(String(url));
    return `${u.protocol}//${u.host}${safePath(u.pathname + u.search)}`;
  } catch {
    return "(invalid URL)";
  }
}

/** See the contract. */
export function loggedClient<T extends ModelClient>(
  wire: string,
  opts: { baseUrl: string; apiKey?: string },
  client: T,
): T {
  log.secret(opts.apiKey);
  if (!log.enabled("debug")) return client;
  const logged = Object.create(client) as T;
  logged.stream = (prompt, signal) =>
    observe(wire, safeUrl(opts.baseUrl), prompt, client.stream(prompt, signal));
  return logged;
}

async function* observe(
  wire: string,
  baseUrl: string,
  prompt: Prompt,
  events: AsyncIterable<ModelEvent>,
): AsyncGenerator<ModelEvent> {
  const started = performance.now();
  const thread_id = prompt.clientMetadata?.thread_id;
  log.debug("model", "stream started", {
    wire,
    base_url: baseUrl,
    model: prompt.model,
    thread_id,
    input_items: prompt.input.length,
    tools: prompt.tools.length,
  });
  let count = 0;
  let first: number | undefined;
  let final: ModelEvent | undefined;
  try {
    for await (const ev of events) {
      count += 1;
      first ??= ms(started);
      if (ev.type === "completed" || ev.type === "failed") final = ev;
      yield ev;
    }
  } finally {
    log.debug("model", "stream ended", {
      thread_id,
      ms: ms(started),
      first_event_ms: first,
      events: count,
      outcome: final?.type ?? "abandoned",
      ...(final?.type === "failed" ? { error: final.error } : {}),
      ...(final?.type === "completed" ? { response_id: final.responseId, usage: final.usage } : {}),
    });
  }
}

/** A request is being sent: returns its start time for `status`/`failed`, or undefined while off. */
export function request(method: string, url: string | URL, body?: string | object): number | undefined {
  if (!log.enabled("debug")) return undefined;
  const text = typeof body === "string" ? body : undefined;
  if (log.enabled("trace") && body !== undefined) {
    let parsed: unknown = body;
    if (text !== undefined) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    log.trace("model", "request", {
      method,
      url: safeUrl(url),
      bytes: text && Buffer.byteLength(text),
      body: parsed,
    });
  } else log.debug("model", "request", { method, url: safeUrl(url), bytes: text && Buffer.byteLength(text) });
  return performance.now();
}

/** The answer's head arrived (or, with `error`, an error answer's body was read). */
export function status(url: string | URL, code: number, started: number | undefined, error?: string): void {
  if (started === undefined) return;
  const fields = { url: safeUrl(url), status: code, ms: ms(started) };
  if (error === undefined) log.debug("model", "response", fields);
  else log.debug("model", "error body", { ...fields, error });
}

/** The request failed before an answer (connection refused, reset, aborted). */
export function failed(url: string | URL, err: unknown, started: number | undefined): void {
  if (started === undefined) return;
  const e = err as NodeJS.ErrnoException;
  log.debug("model", "request failed", {
    url: safeUrl(url),
    ms: ms(started),
    error: e?.message,
    code: e?.code,
  });
}

/** One SSE event or WebSocket frame received (trace). */
export function event(ev: unknown): void {
  if (log.enabled("trace"))
    log.trace("model", "stream event", { type: (ev as { type?: unknown })?.type, event: ev });
}

/** One WebSocket frame sent (trace; debug: its type, whether it continues a response, its size). */
export function sent(url: string, frame: Record<string, unknown>, text: string): void {
  if (!log.enabled("debug")) return;
  const fields = {
    url: safeUrl(url),
    type: frame.type,
    previous_response_id: frame.previous_response_id,
    bytes: Buffer.byteLength(text),
  };
  if (log.enabled("trace")) log.trace("model", "websocket frame out", { ...fields, frame });
  else log.debug("model", "websocket frame out", fields);
}
