/**
 * Classifies provider failures (requirements L5): context length, quota, rate limit (with
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

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
};

/**
 * The root cause of a network failure in a few words ("connection refused"), from the
 * innermost `cause` (or an AggregateError's first error) that has a code or a message.
 */
export function networkCause(err: unknown): string {
  let deepest: { code?: unknown; message?: unknown } | undefined;
  let e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 8; depth++) {
    if (typeof e.code === "string" && NETWORK_CAUSES[e.code]) return NETWORK_CAUSES[e.code];
    if (typeof e.code === "string" && /CERT|SSL|TLS/.test(e.code)) return `TLS: ${e.message ?? e.code}`;
    deepest = e;
    e = (e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined)) as typeof e;
  }
  const message = typeof deepest?.message === "string" ? deepest.message : String(err);
  // fetch refuses some ports outright (9, 25, 6000, …): say so rather than "bad port".
  if (message === "bad port") return "fetch refuses to connect to this port (blocked port)";
  return message;
}

/**
 * Classifies an error thrown by the openai SDK (APIError and friends) or the network. `url`
 * (the provider's base URL) is named in connection errors: `cannot reach URL: cause`.
 */
export function classifyThrown(err: unknown, url?: string): ModelError {
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
  // By class name, so classifying does not load the openai SDK (its errors set no `name`).
  const cls = (err as { constructor?: { name?: string } } | undefined)?.constructor?.name ?? "";
  const name = cls === "APIConnectionError" || cls === "APIConnectionTimeoutError" ? cls : (e?.name ?? "");
  const message = e?.message ?? String(err);
  const where = url ? ` ${withoutCredentials(url)}` : "";
  if (name === "APIConnectionTimeoutError")
    return { kind: "timeout", message: `timed out waiting for${where || " the model"}`, retryable: true };
  if (name === "APIConnectionError")
    return {
      kind: "stream",
      message: `cannot reach${where || " the model"}: ${networkCause(err)}`,
      retryable: true,
    };
  if (/ECONNRESET|ECONNREFUSED|socket|terminated|network|fetch failed/i.test(message))
    return {
      kind: "stream",
      message: `connection to${where || " the model"} lost: ${networkCause(err)}`,
      retryable: true,
    };
  return { kind: "other", message, retryable: false };
}

/** A URL fit to print: user and password (if any) removed. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url;
  }
}
