/**
 * Bearer-token middleware for the API routes (SPEC S4).
 *
 * Contract:
 * - Every request passing through must carry `Authorization: Bearer <token>`; otherwise 401 with
 *   `WWW-Authenticate: Bearer` and a JSON error naming how to authenticate.
 * - `queryParam` (used on `/event` only, because EventSource cannot set headers) also accepts
 *   `?<queryParam>=<token>`.
 * - The comparison is constant-time over SHA-256 digests, so neither the token's content nor its
 *   length leaks through timing.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { log } from "../../util/log.js";
import { fail } from "./errors.js";

/** A fresh token: 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Constant-time string equality (same time whatever the length or the first differing byte). */
export function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected)) && given.length === expected.length;
}

export function bearerAuth(opts: { token: string; queryParam?: string }): MiddlewareHandler {
  if (!opts.token) throw new Error("bearerAuth needs a non-empty token");
  log.secret(opts.token);
  return async (c, next) => {
    const header = c.req.header("authorization");
    let given: string | undefined;
    if (header) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      given = m?.[1];
    } else if (opts.queryParam) {
      given = c.req.query(opts.queryParam);
    }
    if (given === undefined || !tokensEqual(given, opts.token)) {
      c.header("WWW-Authenticate", 'Bearer realm="tandem"');
      const why = given === undefined ? "missing bearer token" : "wrong bearer token";
      return fail(
        c,
        401,
        "unauthorized",
        `${why}: send "Authorization: Bearer <token>" with the token \`tandem serve\` printed at start`,
      );
    }
    await next();
  };
}
