/**
 * Server-side compaction (requirements L14, `compaction = "server"`): the Responses API's
 * `POST {base_url}/responses/compact`. The body is `{model, input, instructions}` (the same
 * history a sampling request would carry, base instructions as `instructions`); the answer's
 * `output` is the replacement history — typically the retained user messages plus one
 * `{type:"compaction", encrypted_content}` item the provider decrypts when it comes back in
 * later requests' input. Tandem stores that output verbatim (agent/compaction.ts) and sends it
 * in place of the compacted part.
 *
 * Contract: never throws; HTTP and network failures come back classified (model/errors.ts). A
 * 2xx answer without an `output` array is a failure, not an empty history.
 */
import type { Usage } from "../protocol/events.js";
import { classifyCode, networkCause, retryAfterFromHeaders } from "./errors.js";
import type { ModelError } from "./types.js";
import * as WireLog from "./wire-log.js";

export interface RemoteCompactRequest {
  model: string;
  input: unknown[];
  instructions?: string;
}

export type RemoteCompactResult =
  | { ok: true; output: Array<Record<string, unknown>>; usage?: Usage }
  | { ok: false; error: ModelError };

export type RemoteCompact = (req: RemoteCompactRequest, signal: AbortSignal) => Promise<RemoteCompactResult>;

export function remoteCompact(opts: { baseUrl: string; apiKey?: string }): RemoteCompact {
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/responses/compact`;
  return async (req, signal) => {
    const started = WireLog.request("POST", url, req);
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
        },
        body: JSON.stringify(req),
        signal,
      });
    } catch (err) {
      WireLog.failed(url, err, started);
      if (signal.aborted)
        return { ok: false, error: { kind: "interrupted", message: "interrupted", retryable: false } };
      return {
        ok: false,
        error: { kind: "stream", message: `cannot reach ${url}: ${networkCause(err)}`, retryable: true },
      };
    }
    const text = await res.text().catch(() => "");
    WireLog.status(url, res.status, started, res.ok ? undefined : text);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    WireLog.event(body ?? text);
    if (!res.ok) {
      const e = body?.error ?? {};
      const error = classifyCode(e.code ?? e.type, e.message ?? text.slice(0, 200), res.status);
      const ra = retryAfterFromHeaders((n) => res.headers.get(n));
      if (ra !== undefined) error.retryAfterMs = ra;
      return { ok: false, error };
    }
    if (!Array.isArray(body?.output))
      return {
        ok: false,
        error: { kind: "bad_request", message: `${url} answered without an output array`, retryable: false },
      };
    const u = body.usage;
    const usage: Usage | undefined = u
      ? {
          input_tokens: u.input_tokens ?? 0,
          cached_input_tokens: u.input_tokens_details?.cached_tokens ?? 0,
          output_tokens: u.output_tokens ?? 0,
          reasoning_output_tokens: u.output_tokens_details?.reasoning_tokens ?? 0,
          total_tokens: u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0),
        }
      : undefined;
    return { ok: true, output: body.output, usage };
  };
}
