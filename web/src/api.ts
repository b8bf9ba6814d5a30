/**
 * The token and the HTTP API of `tandem serve`.
 *
 * Contract with the server:
 * - the token arrives in the URL fragment (`#token=…`, a deep link: src/util/deep-link.ts; never
 *   sent to a server), is kept in localStorage (so the installed app, a notification's new
 *   window and the next visit need no link) and the fragment leaves the address bar at once; it
 *   goes out as `Authorization: Bearer`, and to EventSource (which cannot send headers) as
 *   `?token=`;
 * - an error is `{ error: { code, message } }`; `api()` throws an ApiError with that message
 *   and the HTTP status; a 401 also calls the `onUnauthorized` hook (the page asks again).
 */

const KEY = "tandem.token";

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

import { type DeepLinkParts, parseDeepLink } from "../../src/util/deep-link.js";

let token: string | null = null;
let onUnauthorized: (message: string) => void = () => {};

/**
 * Reads a deep link from the fragment (then clears the address bar): a token given there is kept;
 * `token` is then the one in force (given, or kept from before). Returns the link's parts.
 */
export function readLink(): DeepLinkParts {
  const parts = parseDeepLink(location.hash);
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  if (parts.token) localStorage.setItem(KEY, parts.token);
  // Pages of before kept it per tab.
  token = localStorage.getItem(KEY) ?? sessionStorage.getItem(KEY);
  return parts;
}
export function setToken(t: string): void {
  token = t;
  localStorage.setItem(KEY, t);
}
export function getToken(): string | null {
  return token;
}
export function whenUnauthorized(f: (message: string) => void): void {
  onUnauthorized = f;
}

export async function api<T = any>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${token ?? ""}` };
  const init: RequestInit = { method, headers, signal };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data: any = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.status === 401) onUnauthorized("The server refused the token; paste the one tandem serve printed.");
  if (!res.ok)
    throw new ApiError(
      data?.error?.message ?? `request failed (HTTP ${res.status})`,
      res.status,
      data?.error?.code,
    );
  return data as T;
}

export const enc = encodeURIComponent;
