/**
 * Thread search (`Store.searchThreads`), the part both stores share: how a query becomes terms,
 * and the snippet shown for a hit. Each store keeps a full-text index of what is searched
 * (SQLite FTS5, PostgreSQL GIN over tsvector), maintained by triggers in the same statement as
 * the write, so a search is an index lookup whatever the number of threads.
 *
 * What is searched: thread titles, and the text of user and assistant messages (not the context
 * messages Tandem adds — environment, AGENTS.md — nor tool calls or outputs).
 * How it matches: the query's words (letters and digits; anything else separates them, case is
 * ignored) must all be word prefixes within the title or within one message. Among the newest
 * `scanHits` matching messages and titles, threads come most recently updated first.
 */
import { SEARCH_LIMITS } from "../protocol/threads.js";

export { SEARCH_LIMITS, type ThreadSearchHit } from "../protocol/threads.js";

export const SNIPPET_CHARS = 160;

/** The query's words, lower-cased; at most `maxTerms`, each cut to `maxTermChars`. */
export function searchTerms(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, SEARCH_LIMITS.maxTerms)
    .map((t) => t.slice(0, SEARCH_LIMITS.maxTermChars));
}

/** `limit` clamped to 1..maxLimit (default defaultLimit). */
export function searchLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return SEARCH_LIMITS.defaultLimit;
  return Math.max(1, Math.min(SEARCH_LIMITS.maxLimit, Math.floor(limit)));
}

/** `text` cut to about SNIPPET_CHARS around the first place a term starts a word. */
export function snippetOf(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  let at = -1;
  for (const t of terms) {
    const m = new RegExp(`(^|[^\\p{L}\\p{N}])${t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u").exec(lower);
    if (m && (at < 0 || m.index < at)) at = m.index + m[1].length;
  }
  if (flat.length <= SNIPPET_CHARS) return flat;
  const start = Math.max(0, Math.min(at < 0 ? 0 : at - 40, flat.length - SNIPPET_CHARS));
  const end = start + SNIPPET_CHARS;
  return `${start > 0 ? "…" : ""}${flat.slice(start, end)}${end < flat.length ? "…" : ""}`;
}
