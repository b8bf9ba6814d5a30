/**
 * Classifies provider failures (SPEC L5): context length, quota, rate limit (with
 * retry-after), overloaded, server, stream, timeout, auth, bad request. Wire errors only;
 * the loop decides what to do with `retryable` and `retryAfterMs`.
 */
import type { ModelError } from "./types.js";

/** Parses `retry-after` (seconds or HTTP date) and `retry-after-ms` headers. */
export function retryAfterFromHeaders(get: (name: string) => string | null | undefined): number | undefined {
  const ms = get("retry-after-ms");
  if (ms && !Number.isNaN(Number(ms))) return Math.max(0, Number(ms));
  const ra = get("retry-after");
  if (!ra) return undefined;
  const secs = Number(ra);
  if (!Number.isNaN(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** "Please try again in 1.5s" / "in 250ms" hints inside rate-limit messages. */
function retryAfterFromMessage(message: string): number | undefined {
  const m = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (!m) return undefined;
  return m[2].toLowerCase() === "ms" ? Number(m[1]) : Number(m[1]) * 1000;
}

export function classifyCode(code: string | undefined, message: string, status?: number): ModelError {
  const c = (code ?? "").toLowerCase();
  const msg = message || code || `HTTP ${status ?? "error"}`;
  if (c.includes("context_length") || /context (length|window)/i.test(message))
    return { kind: "context_length", message: msg, retryable: false, status };
  if (c === "insufficient_quota" || c.includes("quota") || /quota/i.test(message))
    return { kind: "quota", message: msg, retryable: false, status };
  if (status === 429 || c.includes("rate_limit"))
    return {
      kind: "rate_limit",
      message: msg,
      retryable: true,
      status,
      retryAfterMs: retryAfterFromMessage(msg),
    };
  if (status === 503 || c.includes("overloaded") || c === "server_is_overloaded" || c === "slow_down")
    return { kind: "overloaded", message: msg, retryable: true, status };
  if (status === 401 || status === 403 || c.includes("invalid_api_key"))
    return { kind: "auth", message: msg, retryable: false, status };
  if ((status && status >= 500) || c === "server_error" || c === "internal_error")
    return { kind: "server", message: msg, retryable: true, status };
  if (status && status >= 400) return { kind: "bad_request", message: msg, retryable: false, status };
  return { kind: "other", message: msg, retryable: false, status };
}

/** Classifies an error thrown by the openai SDK (APIError and friends) or the network. */
export function classifyThrown(err: unknown): ModelError {
  const e = err as {
    status?: number;
    code?: string;
    error?: { code?: string; message?: string; type?: string };
    message?: string;
    name?: string;
    headers?: { get?: (n: string) => string | null } | Record<string, string>;
  };
  const status = typeof e?.status === "number" ? e.status : undefined;
  if (status !== undefined) {
    const code = e.error?.code ?? e.code ?? e.error?.type;
    const message = e.error?.message ?? e.message ?? `HTTP ${status}`;
    const out = classifyCode(code, message, status);
    const h = e.headers;
    const get = (n: string) =>
      typeof (h as any)?.get === "function" ? (h as any).get(n) : (h as Record<string, string>)?.[n];
    const ra = retryAfterFromHeaders(get);
    if (ra !== undefined) out.retryAfterMs = ra;
    return out;
  }
  const name = e?.name ?? "";
  const message = e?.message ?? String(err);
  if (name === "APIConnectionTimeoutError") return { kind: "timeout", message, retryable: true };
  if (
    name === "APIConnectionError" ||
    /ECONNRESET|ECONNREFUSED|socket|terminated|network|fetch failed/i.test(message)
  )
    return { kind: "stream", message: `connection failed: ${message}`, retryable: true };
  return { kind: "other", message, retryable: false };
}
