/**
 * The token and the HTTP API of `tandem serve`.
 *
 * Contract with the server:
 * - the token arrives in the URL fragment (`#token=…`, never sent to a server), is kept in
 *   sessionStorage and removed from the address bar at once; it goes out as
 *   `Authorization: Bearer`, and to EventSource (which cannot send headers) as `?token=`;
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

let token: string | null = null;
let onUnauthorized: (message: string) => void = () => {};

/** Reads the token from the fragment (then removes it from the address bar) or the session. */
export function readToken(): string | null {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(KEY, decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  token = sessionStorage.getItem(KEY);
  return token;
}
export function setToken(t: string): void {
  token = t;
  sessionStorage.setItem(KEY, t);
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
