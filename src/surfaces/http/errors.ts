/**
 * Wire errors of the HTTP surface (STYLE habit 6): every failure leaves as
 * `{error: {code, message}}` with a status that fits, never a stack trace, never the request body
 * echoed back (it may hold a secret answer).
 *
 * Status map: malformed/invalid body 400, missing/wrong token 401, unknown id 404, broker
 * refusal or busy thread 409, oversized body 413, wrong content type 415, anything unexpected 500.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { type ErrorResponse, HTTP_LIMITS } from "../../protocol/http.js";
import type { ReplyFailure } from "../../protocol/questions.js";

export function errorBody(code: string, message: string): ErrorResponse {
  return { error: { code, message } };
}

export function fail(c: Context, status: ContentfulStatusCode, code: string, message: string): Response {
  return c.json(errorBody(code, message), status);
}

/** Broker refusals: unknown id → 404, bad reply → 400, a settled/cancelled/foreign request → 409. */
export function brokerFailure(c: Context, f: ReplyFailure): Response {
  const status = f.code === "unknown_request" ? 404 : f.code === "invalid_reply" ? 400 : 409;
  return fail(c, status, f.code, f.message);
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

/**
 * Reads and validates a JSON body of at most `maxBytes` (413 beyond, counted while streaming, so a
 * chunked body without content-length is bounded too). An empty body counts as `{}` so bodiless
 * POSTs work when every field is optional. Messages name the field and the problem, never the value.
 */
export async function readBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  maxBytes: number = HTTP_LIMITS.maxBodyBytes,
): Promise<Parsed<z.output<S>>> {
  const type = c.req.header("content-type") ?? "";
  const read = await readText(c.req.raw.body, maxBytes);
  if (read === "too_large") return { ok: false, response: tooLarge(c, maxBytes) };
  if (read === "failed")
    return { ok: false, response: fail(c, 400, "bad_request", "could not read the request body") };
  const text = read;
  if (text.trim() !== "" && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type))
    return {
      ok: false,
      response: fail(
        c,
        415,
        "unsupported_media_type",
        "send the body as JSON with content-type: application/json",
      ),
    };
  let raw: unknown = {};
  if (text.trim() !== "") {
    try {
      raw = JSON.parse(text);
    } catch (err) {
      return {
        ok: false,
        response: fail(c, 400, "malformed_json", `the body is not valid JSON: ${(err as Error).message}`),
      };
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    return { ok: false, response: fail(c, 400, "invalid_body", describeIssues(parsed.error)) };
  return { ok: true, value: parsed.data };
}

export function tooLarge(c: Context, maxBytes: number): Response {
  return fail(c, 413, "payload_too_large", `the request body exceeds ${maxBytes} bytes; send less`);
}

export async function readText(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<string | "too_large" | "failed"> {
  const bytes = await readBytes(body, maxBytes);
  return typeof bytes === "string" ? bytes : bytes.toString("utf8");
}

/** The body's bytes, at most `maxBytes` (read as they come: a chunked body is counted too). */
export async function readBytes(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Buffer | "too_large" | "failed"> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return "too_large";
      }
      chunks.push(value);
    }
  } catch {
    return "failed";
  }
  return Buffer.concat(chunks);
}

/** "field.path: problem; other: problem" — zod messages carry no input values. */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "body"}: ${i.message}`);
  const more = error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : "";
  return `invalid request body: ${parts.join("; ")}${more}`;
}
