/**
 * Deep links into the web app of `tandem serve` (README, "Deep links"): a URL that opens the app
 * with its token, and optionally a thread and a pending question, e.g.
 *
 *   https://host:4500/#token=T&thread=THREAD_ID&question=REQUEST_ID
 *
 * Everything rides in the fragment, which browsers never send to a server (nor put in a
 * Referer), so the token stays out of access logs. Pure functions, shared by the server (the
 * URLs `tandem serve` prints; hooks that notify) and the web app (which reads them).
 *
 * Contract:
 * - `deepLink(base, parts)` keeps `base`'s scheme, host, port and path (a missing path is `/`),
 *   drops its query and fragment, and writes the given parts in the order token, thread,
 *   question, each percent-encoded; parts left out or empty are not written.
 * - `parseDeepLink(hash)` reads a fragment (with or without `#`) written by `deepLink` or by
 *   hand: unknown keys are ignored, the last of a repeated key wins, malformed percent-encoding
 *   leaves that part out. It never throws.
 */

export interface DeepLinkParts {
  token?: string;
  thread?: string;
  question?: string;
}

const KEYS = ["token", "thread", "question"] as const;

export function deepLink(base: string, parts: DeepLinkParts): string {
  const url = new URL(base);
  url.search = "";
  url.hash = "";
  const fragment = KEYS.filter((k) => parts[k])
    .map((k) => `${k}=${encodeURIComponent(parts[k]!)}`)
    .join("&");
  return fragment ? `${url.href}#${fragment}` : url.href;
}

export function parseDeepLink(hash: string): DeepLinkParts {
  const out: DeepLinkParts = {};
  for (const pair of hash.replace(/^#/, "").split("&")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const key = pair.slice(0, eq);
    if (!(KEYS as readonly string[]).includes(key)) continue;
    try {
      const value = decodeURIComponent(pair.slice(eq + 1));
      if (value) out[key as keyof DeepLinkParts] = value;
    } catch {
      /* malformed escape: leave it out */
    }
  }
  return out;
}
