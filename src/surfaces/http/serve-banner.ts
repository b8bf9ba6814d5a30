/**
 * What `tandem serve` prints on stdout for people to open the web app (README, "The web app"):
 * the page URLs with the token, and a QR code of the one a phone can reach.
 *
 * Contract:
 * - `pageBases` lists the bound address, or for a wildcard bind (`0.0.0.0`, `::`) 127.0.0.1 and
 *   then this machine's non-internal IPv4 addresses, each `scheme://address:port`.
 * - `qrBlock` renders the URL as a QR code of Unicode half blocks, with a line saying which
 *   address it is; for a loopback-only URL it says that a phone cannot reach it.
 * These strings hold the token: callers write them to stdout only (a terminal the user reads),
 * never to stderr or any log.
 */
import { networkInterfaces } from "node:os";
import { renderUnicodeCompact } from "uqr";
import { deepLink } from "../../util/deep-link.js";
import { isLoopbackHost } from "../../util/loopback.js";

export function pageBases(host: string, port: number, scheme: "http" | "https"): string[] {
  if (host !== "0.0.0.0" && host !== "::") {
    const shown = host.includes(":") ? `[${host}]` : host;
    return [`${scheme}://${shown}:${port}`];
  }
  const lan = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === "IPv4" && !a.internal)
    .map((a) => `${scheme}://${a!.address}:${port}`);
  return [`${scheme}://127.0.0.1:${port}`, ...lan];
}

/** The page links (`base/#token=…`), one per base. */
export function pageLinks(bases: string[], token: string): string[] {
  return bases.map((base) => deepLink(base, { token }));
}

/** A QR code of the first link a phone can reach (else the first), with a caption. */
export function qrBlock(links: string[]): string {
  const reachable = links.find((l) => !isLoopbackHost(new URL(l).hostname.replace(/^\[|\]$/g, "")));
  const link = reachable ?? links[0];
  const caption = reachable
    ? `scan with your phone (${new URL(link).host}, same network):`
    : `a QR code of ${new URL(link).host}: a phone cannot reach this machine's loopback; start with --lan to serve the network`;
  return `${caption}\n${renderUnicodeCompact(link, { border: 2 })}\n`;
}
