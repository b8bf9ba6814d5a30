/**
 * Which addresses an MCP server may ask the user to open (URL-mode elicitation, README "MCP
 * elicitation"). A hostile server chooses the URL; every surface shows it, and a user clicks it.
 *
 * Contract of `checkElicitationUrl(raw)`, a pure function:
 * - accepted: an absolute `https:` URL, or `http:` to a loopback host (127.0.0.0/8, `[::1]`,
 *   `localhost`). The URL returned is the parsed and normalised form (WHATWG `href`: lower-case
 *   scheme and host, punycode for non-ASCII names), the one Tandem shows and surfaces open, with
 *   its `host` so a prompt can name it apart from the path.
 * - refused, with a reason for the server: text that is not an absolute URL; any other scheme
 *   (`javascript:`, `data:`, `file:`, `vbscript:`, …); `http:` to any other host; a user name or
 *   password in the URL (`https://bank.example@evil.example/` disguises its host); control, bidi
 *   or whitespace characters anywhere in the raw text (the parser would strip some of them, so
 *   what is shown could differ from what was sent); more than MAX_URL_LENGTH characters.
 */
import { isLoopbackHost } from "../../util/loopback.js";

export const MAX_URL_LENGTH = 4096;

export type UrlCheck = { ok: true; url: string; host: string } | { ok: false; reason: string };

/** C0 and C1 controls, DEL, whitespace, zero-width and bidi formatting characters. */
const HIDDEN = /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/;

export function checkElicitationUrl(raw: string): UrlCheck {
  if (raw.length > MAX_URL_LENGTH)
    return { ok: false, reason: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  if (HIDDEN.test(raw))
    return { ok: false, reason: "the URL contains control, invisible or space characters" };
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, reason: "it is not an absolute URL" };
  }
  if (u.protocol !== "https:" && u.protocol !== "http:")
    return {
      ok: false,
      reason: `the scheme "${u.protocol}" is not allowed (only https:, or http: to this machine)`,
    };
  if (u.protocol === "http:" && !isLoopbackHost(u.hostname))
    return {
      ok: false,
      reason: "plain http: is allowed only to this machine (127.0.0.1, [::1], localhost); use https:",
    };
  if (u.username !== "" || u.password !== "")
    return { ok: false, reason: "the URL carries a user name or password (user:pass@host)" };
  if (u.hostname === "") return { ok: false, reason: "the URL has no host" };
  return { ok: true, url: u.href, host: u.host };
}
