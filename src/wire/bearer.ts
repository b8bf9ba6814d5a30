/**
 * Bearer tokens, shared by every surface that listens (`tandem serve`'s HTTP API, `tandem
 * app-server --listen ws://`): making one, reading one from a file, and checking the
 * `Authorization: Bearer <token>` a client sends. Below the surfaces (ARCHITECTURE: surfaces never
 * import each other); each surface keeps only its own options and how it refuses (HTTP 401 JSON,
 * a refused websocket upgrade).
 *
 * Contract:
 * - `generateToken()`: 32 random bytes, base64url (43 characters).
 * - `tokensEqual(given, expected)`: constant-time over SHA-256 digests, so neither the token's
 *   content nor its length leaks through timing.
 * - `checkBearer(header, token)`: accepts `Bearer <token>` (scheme case-insensitive, spaces or tabs
 *   around the token); the refusal's `reason` never contains the token or what the client sent, so
 *   it is safe to log and to send back.
 * - `readTokenFile(path, flag)`: the file's content, trimmed; throws TokenFileError naming `flag`
 *   and the path when it cannot be read or is empty (never the content).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";

/** A fresh token: 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Constant-time string equality (same time whatever the length or the first differing byte). */
export function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected)) && given.length === expected.length;
}

export type BearerCheck = { ok: true } | { ok: false; reason: string };

/** Checks an Authorization header value against `token`; `reason` is safe to log (no token in it). */
export function checkBearer(header: string | undefined, token: string): BearerCheck {
  if (!header) return { ok: false, reason: "missing bearer token" };
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!m) return { ok: false, reason: "malformed authorization header (expected Bearer)" };
  if (!tokensEqual(m[1], token)) return { ok: false, reason: "wrong bearer token" };
  return { ok: true };
}

/** A token file that cannot be used; the message names the flag and the path, never the content. */
export class TokenFileError extends Error {
  override name = "TokenFileError";
}

/** The token in `path` (trimmed). Throws TokenFileError. */
export function readTokenFile(path: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new TokenFileError(`${flag}: cannot read ${path} (${code})`);
  }
  const token = text.trim();
  if (!token) throw new TokenFileError(`${flag}: ${path} is empty`);
  return token;
}
