/**
 * Search across threads (GET /thread?q=): titles and what was said, newest first, each hit with
 * the part of the message that matched. Typing waits a moment before asking; a newer query
 * cancels the one in flight. Choosing a hit opens its thread.
 */
import { useEffect, useState } from "react";
import type { ThreadSummary } from "../../../src/protocol/http.js";
import { printable } from "../../../src/util/printable.js";
import { api, enc } from "../api.js";
import { basename, selectThread, shortId } from "../state.js";

const WAIT_MS = 250;

export function Search({ query, setQuery }: { query: string; setQuery: (q: string) => void }) {
  const [hits, setHits] = useState<ThreadSummary[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setHits(null);
      return;
    }
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      api<{ threads: ThreadSummary[] }>("GET", `/thread?q=${enc(q)}`, undefined, ctrl.signal).then(
        (r) => {
          setError("");
          setHits(r.threads);
        },
        (e) => {
          if (!ctrl.signal.aborted) setError((e as Error).message);
        },
      );
    }, WAIT_MS);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [query]);
  return (
    <>
      <input
        id="thread-search"
        type="search"
        className="search"
        placeholder="Search threads"
        aria-label="Search threads by title and content"
        value={query}
        onChange={(e) => setQuery(e.currentTarget.value)}
      />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {query.trim() && hits && (
        <ul id="search-results" className="list" aria-label="Search results">
          {hits.map((t) => (
            <li key={t.id} data-id={t.id}>
              <button
                type="button"
                className="item"
                onClick={() => {
                  setQuery("");
                  selectThread(t.id);
                }}
              >
                <span className="title">
                  <span className="ellipsis">{printable(t.title || basename(t.cwd))}</span>
                </span>
                {t.snippet && <span className="sub snippet">{printable(t.snippet)}</span>}
                <span className="sub">
                  {shortId(t.id)} · {t.model}
                </span>
              </button>
            </li>
          ))}
          {hits.length === 0 && <li className="empty">No thread matches.</li>}
        </ul>
      )}
    </>
  );
}
