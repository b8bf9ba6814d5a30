/**
 * Bearer-token middleware for the API routes (requirements S4); the token rules themselves are shared with
 * the app-server's websocket (wire/bearer.ts).
 *
 * Contract:
 * - Every request passing through must carry `Authorization: Bearer <token>`; otherwise 401 with
 *   `WWW-Authenticate: Bearer` and a JSON error naming how to authenticate.
 * - `queryParam` (used on `/event` only, because EventSource cannot set headers) also accepts
 *   `?<queryParam>=<token>` when no Authorization header is sent.
 * - Tokens are compared in constant time (wire/bearer.ts tokensEqual).
 */
import type { MiddlewareHandler } from "hono";
import { log } from "../../util/log.js";
import { checkBearer, tokensEqual } from "../../wire/bearer.js";
import { fail } from "./errors.js";

export function bearerAuth(opts: { token: string; queryParam?: string }): MiddlewareHandler {
  if (!opts.token) throw new Error("bearerAuth needs a non-empty token");
  log.secret(opts.token);
  return async (c, next) => {
    const header = c.req.header("authorization");
    const query = !header && opts.queryParam ? c.req.query(opts.queryParam) : undefined;
    const check =
      query !== undefined
        ? tokensEqual(query, opts.token)
          ? { ok: true as const }
          : { ok: false as const, reason: "wrong bearer token" }
        : checkBearer(header, opts.token);
    if (!check.ok) {
      c.header("WWW-Authenticate", 'Bearer realm="tandem"');
      return fail(
        c,
        401,
        "unauthorized",
        `${check.reason}: send "Authorization: Bearer <token>" with the token \`tandem serve\` printed at start`,
      );
    }
    await next();
  };
}
