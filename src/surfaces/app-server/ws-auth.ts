/**
 * Who may open an app-server websocket (`--listen ws://…`, README "Sandbox and approvals").
 *
 * Contract:
 * - Every websocket listener has a bearer token: `--ws-token-file FILE` (its content, trimmed, as
 *   Codex's `--ws-auth capability-token --ws-token-file` reads it), else `--ws-token TOKEN` (visible
 *   in `ps`), else one generated for this run (32 random bytes, base64url) that the caller prints.
 * - A token must be at least 16 characters without whitespace; a file that cannot be read or is
 *   empty, both options at once, or a token option without a websocket listener are usage errors.
 * - A non-loopback listener needs an explicit token (file or option): a generated one would have
 *   to be printed and carried to another machine, so it is refused instead (`WsAuthError`).
 * - `checkUpgrade` accepts an upgrade only with `Authorization: Bearer <token>` (scheme
 *   case-insensitive, what Codex's `--remote … --remote-auth-token-env` client sends), compared in
 *   constant time. Its refusal message never contains the token or what the client sent. The token
 *   rules are `tandem serve`'s too (wire/bearer.ts).
 */
import type { IncomingHttpHeaders } from "node:http";
import { isLoopbackHost } from "../../util/loopback.js";
import { checkBearer, generateToken, readTokenFile, TokenFileError } from "../../wire/bearer.js";

/** A usage or configuration error about the token options (exit 2). */
export class WsAuthError extends Error {}

export const MIN_TOKEN_LENGTH = 16;

export interface WsToken {
  token: string;
  /** Generated for this run: the caller prints it, since nobody else knows it. */
  generated: boolean;
}

/** True for hosts only this machine can reach (src/util/loopback.ts; shared with `tandem serve`). */
export { isLoopbackHost };

/**
 * Resolves the token for a listener on `host` (undefined: stdio, where token options are refused).
 * Throws WsAuthError with a message for the user.
 */
export function resolveWsToken(
  host: string | undefined,
  opts: { token?: string; tokenFile?: string },
): WsToken | undefined {
  const given = opts.token !== undefined || opts.tokenFile !== undefined;
  if (host === undefined) {
    if (given) throw new WsAuthError("--ws-token and --ws-token-file apply only with --listen ws://…");
    return undefined;
  }
  if (opts.token !== undefined && opts.tokenFile !== undefined)
    throw new WsAuthError("give --ws-token-file or --ws-token, not both");
  let token: string;
  if (opts.tokenFile !== undefined) {
    try {
      token = readTokenFile(opts.tokenFile, "--ws-token-file");
    } catch (err) {
      throw err instanceof TokenFileError ? new WsAuthError(err.message) : err;
    }
  } else if (opts.token !== undefined) {
    token = opts.token;
  } else {
    if (!isLoopbackHost(host))
      throw new WsAuthError(
        `--listen on ${host} is not loopback: anyone who can reach it could drive this agent. ` +
          "Give it a token with --ws-token-file FILE (or --ws-token TOKEN), or listen on 127.0.0.1.",
      );
    return { token: generateToken(), generated: true };
  }
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token))
    throw new WsAuthError(
      `the websocket token must be at least ${MIN_TOKEN_LENGTH} characters without whitespace`,
    );
  return { token, generated: false };
}

/** Checks an upgrade request's Authorization header; `reason` is safe to log (no token in it). */
export function checkUpgrade(
  headers: IncomingHttpHeaders,
  token: string,
): { ok: true } | { ok: false; reason: string } {
  return checkBearer(headers.authorization, token);
}
