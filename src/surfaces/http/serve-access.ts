/**
 * How people reach `tandem serve` (README, "Reaching it from a phone"): the token, `--lan`,
 * HTTPS and what is printed to open the page. Kept out of the serve entry (./index.ts), which
 * only parses these flags with the others, calls `serveAccess` before starting and `announce`
 * once listening.
 *
 * Contract of `serveAccess(values, env, home)`:
 * - the token: `--token`, else `TANDEM_SERVE_TOKEN`, else `$TANDEM_HOME/serve-token`
 *   (./serve-token.ts; `--rotate-token` replaces it and conflicts with the other two);
 * - `--lan` binds `0.0.0.0` (not with `--host`) and needs a token of 16+ characters;
 * - `--tls-cert FILE --tls-key FILE` (both or neither) are read now (PEM) for an HTTPS server;
 * - `notes` are warnings for stderr (a stored token that was not trusted); none holds the token.
 * Failures are `{ error }` with the message for the user (exit 2); nothing is written then
 * except, for a new or rotated token, the token file.
 *
 * `announce` writes to stdout the page links (and, on a terminal or with `--qr`/`--lan`, a QR
 * code), and to stderr the note that plain http on a network address gets no service worker or
 * notifications. The links hold the token: stdout only, never stderr or a log.
 */
import { readFileSync } from "node:fs";
import { isLoopbackHost } from "../../util/loopback.js";
import { pageBases, pageLinks, qrBlock } from "./serve-banner.js";
import { ServeTokenError, serveToken, validToken } from "./serve-token.js";

export const ACCESS_FLAGS = {
  lan: { type: "boolean" },
  qr: { type: "boolean" },
  "rotate-token": { type: "boolean" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
} as const;

export interface AccessFlagValues {
  host?: string;
  token?: string;
  lan?: boolean;
  qr?: boolean;
  "rotate-token"?: boolean;
  "tls-cert"?: string;
  "tls-key"?: string;
}

export const ACCESS_USAGE = `  --lan        serve this machine's network for a phone: binds 0.0.0.0, prints the LAN URLs and
               a QR code. Without --tls-cert the page gets no notifications (browsers need https)
  --token T    bearer token for the API (default: $TANDEM_SERVE_TOKEN, else the one kept in
               $TANDEM_HOME/serve-token, made at the first start)
  --rotate-token  replace the kept token with a new one (old page links stop working)
  --tls-cert FILE, --tls-key FILE  serve HTTPS with this certificate and key (PEM)
  --qr         print the page link's QR code also when stdout is not a terminal`;

export interface Access {
  host: string;
  token: string;
  tls?: { cert: Buffer; key: Buffer };
  notes: string[];
}

export function serveAccess(
  v: AccessFlagValues,
  env: NodeJS.ProcessEnv,
  home: string,
): Access | { error: string } {
  if (v.lan && v.host !== undefined)
    return { error: "--lan binds 0.0.0.0 (every interface); give --lan or --host, not both" };
  const host = v.lan ? "0.0.0.0" : (v.host ?? "127.0.0.1");
  const envToken = env.TANDEM_SERVE_TOKEN || undefined;
  if (v["rotate-token"] && (v.token !== undefined || envToken))
    return {
      error:
        "--rotate-token replaces the token kept in $TANDEM_HOME; it cannot apply with --token or TANDEM_SERVE_TOKEN",
    };
  if ((v["tls-cert"] === undefined) !== (v["tls-key"] === undefined))
    return { error: "--tls-cert and --tls-key go together: give both files (PEM), or neither" };
  if (v.token !== undefined && !validToken(v.token))
    return { error: "the token must be at least 8 characters without spaces" };
  let tls: Access["tls"];
  try {
    if (v["tls-cert"] && v["tls-key"])
      tls = { cert: readFileSync(v["tls-cert"]), key: readFileSync(v["tls-key"]) };
  } catch (e) {
    return { error: `cannot read the TLS certificate or key: ${(e as Error).message}` };
  }
  let chosen: ReturnType<typeof serveToken>;
  try {
    chosen = serveToken({ flag: v.token, env: envToken, home, rotate: v["rotate-token"] });
  } catch (e) {
    if (e instanceof ServeTokenError) return { error: e.message };
    throw e;
  }
  if (!validToken(chosen.token)) return { error: "the token must be at least 8 characters without spaces" };
  if (v.lan && chosen.token.length < 16)
    return { error: "--lan needs a token of 16 or more characters (leave out --token for a random one)" };
  const notes: string[] = [];
  if (chosen.warning) notes.push(`warning: ${chosen.warning}`);
  return { host, token: chosen.token, tls, notes };
}

export function announce(
  access: Access,
  v: AccessFlagValues,
  port: number,
  out: { stdout: NodeJS.WriteStream; err: (line: string) => void },
): void {
  const links = pageLinks(pageBases(access.host, port, access.tls ? "https" : "http"), access.token);
  out.stdout.write(`open ${links.join("  or  ")}\n`);
  if (v.qr || v.lan || out.stdout.isTTY) out.stdout.write(qrBlock(links));
  if (!access.tls && !isLoopbackHost(access.host))
    out.err(
      "note: over plain http on a network address the page gets no service worker and no notifications (browsers allow them on https:// or localhost only); pass --tls-cert FILE --tls-key FILE for them",
    );
}
