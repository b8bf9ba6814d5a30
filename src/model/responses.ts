/**
 * Responses-wire client over HTTP (requirements L2, L5). We build the body; sse-http.ts posts it on a
 * keep-alive pool and parses the SSE answer (no SDK on this path: it cost memory and time, see
 * bench/speed.ts). There are no transport retries: the turn loop retries itself so that every
 * retry is visible as an event and rebuilt from history (L9).
 *
 * Contract: `stream()` never throws. It yields model events and ends with exactly one
 * `completed` or `failed`. An idle stream (no event for `idleTimeoutMs`) fails as `timeout`.
 */
import { emptyUsage, type Usage } from "../protocol/events.js";
import { ResponseItem } from "../protocol/items.js";
import { classifyCode, classifyThrown } from "./errors.js";
import { bodyJson, buildResponsesBody } from "./request.js";
import { sseEvents, ssePoster } from "./sse-http.js";
import type { ModelClient, ModelError, ModelEvent, Prompt } from "./types.js";
import { loggedClient } from "./wire-log.js";

export interface ResponsesClientOptions {
  baseUrl: string;
  apiKey: string;
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
  /** Observes each body right before it is sent (benchmarks, debugging). */
  onRequest?: (body: Record<string, unknown>) => void;
  /** Runs once each request is written to the socket (benchmarks: where the model's time starts). */
  onSent?: () => void;
  /** Runs when each answer starts arriving, before it is parsed (benchmarks: the model's time ends). */
  onResponse?: () => void;
}

export function toUsage(u: any): Usage | undefined {
  if (!u) return undefined;
  const usage = emptyUsage();
  usage.input_tokens = u.input_tokens ?? u.prompt_tokens ?? 0;
  usage.cached_input_tokens =
    u.input_tokens_details?.cached_tokens ?? u.prompt_tokens_details?.cached_tokens ?? 0;
  usage.output_tokens = u.output_tokens ?? u.completion_tokens ?? 0;
  usage.reasoning_output_tokens =
    u.output_tokens_details?.reasoning_tokens ?? u.completion_tokens_details?.reasoning_tokens ?? 0;
  usage.total_tokens = u.total_tokens ?? usage.input_tokens + usage.output_tokens;
  return usage;
}

/** Pulls the next value of an iterator, or reports idleness after `ms`. */
export async function nextOrIdle<T>(it: AsyncIterator<T>, ms: number): Promise<IteratorResult<T> | "idle"> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<"idle">((resolve) => {
    timer = setTimeout(() => resolve("idle"), ms);
  });
  try {
    return await Promise.race([it.next(), idle]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One Responses stream event (SSE `data:` or WebSocket frame) as a model event; undefined for
 * events Tandem does not use. `completed` and `failed` are final.
 */
export function translateEvent(ev: any): ModelEvent | undefined {
  switch (ev?.type) {
    case "response.created":
      return { type: "created", responseId: ev.response?.id };
    case "response.output_text.delta":
      return { type: "text_delta", itemId: ev.item_id ?? "", delta: ev.delta ?? "" };
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      return { type: "reasoning_delta", itemId: ev.item_id ?? "", delta: ev.delta ?? "" };
    case "response.output_item.done": {
      const parsed = ResponseItem.safeParse(ev.item);
      return parsed.success ? { type: "item_done", item: parsed.data } : undefined;
    }
    case "response.completed":
      return { type: "completed", responseId: ev.response?.id, usage: toUsage(ev.response?.usage) };
    case "response.failed": {
      const e = ev.response?.error ?? {};
      return { type: "failed", error: classifyCode(e.code, e.message ?? "response failed") };
    }
    case "response.incomplete": {
      const reason = ev.response?.incomplete_details?.reason ?? "unknown";
      return {
        type: "failed",
        error: { kind: "other", message: `response incomplete: ${reason}`, retryable: false },
      };
    }
    case "error":
      return {
        type: "failed",
        error: classifyCode(
          ev.code ?? ev.error?.code,
          ev.message ?? ev.error?.message ?? "stream error",
          typeof ev.status === "number" ? ev.status : undefined,
        ),
      };
  }
  return undefined;
}

export function createResponsesClient(opts: ResponsesClientOptions): ModelClient {
  const poster = ssePoster(opts.baseUrl, "/responses", {
    authorization: `Bearer ${opts.apiKey}`,
    ...opts.headers,
  });
  const idleMs = opts.idleTimeoutMs ?? 300_000;

  return loggedClient("responses", opts, {
    async *stream(prompt: Prompt, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const body = buildResponsesBody(prompt);
      opts.onRequest?.(body);
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      let it: AsyncIterator<any> | undefined;
      let finished = false;
      const fail = (error: ModelError): ModelEvent => ({ type: "failed", error });
      try {
        if (signal.aborted) {
          yield fail({ kind: "interrupted", message: "interrupted", retryable: false });
          return;
        }
        let stream: AsyncIterable<any>;
        try {
          const res = await poster.post(bodyJson(body), ctrl.signal, opts.onSent);
          opts.onResponse?.();
          stream = sseEvents(res);
        } catch (err) {
          yield fail(
            signal.aborted
              ? { kind: "interrupted", message: "interrupted", retryable: false }
              : classifyThrown(err, opts.baseUrl),
          );
          return;
        }
        it = stream[Symbol.asyncIterator]();
        while (true) {
          let r: IteratorResult<any> | "idle";
          try {
            r = await nextOrIdle(it, idleMs);
          } catch (err) {
            yield fail(
              signal.aborted
                ? { kind: "interrupted", message: "interrupted", retryable: false }
                : classifyThrown(err, opts.baseUrl),
            );
            return;
          }
          if (r === "idle") {
            ctrl.abort();
            yield fail({ kind: "timeout", message: `stream idle for ${idleMs} ms`, retryable: true });
            return;
          }
          if (r.done) break;
          const out = translateEvent(r.value);
          if (out && (out.type === "completed" || out.type === "failed")) {
            // The answer is complete: the body's end drains on its own and the socket is reused.
            finished = true;
            yield out;
            return;
          }
          if (out) yield out;
        }
        yield fail(
          signal.aborted
            ? { kind: "interrupted", message: "interrupted", retryable: false }
            : { kind: "stream", message: "stream closed before response.completed", retryable: true },
        );
      } finally {
        signal.removeEventListener("abort", onAbort);
        if (!ctrl.signal.aborted && !finished) ctrl.abort();
        // A server that keeps the body open after the last event loses its socket after a while.
        else if (!ctrl.signal.aborted) setTimeout(() => ctrl.abort(), 10_000).unref();
        await it?.return?.().catch(() => {});
      }
    },
  });
}
