/**
 * Thread ids by unique prefix (README "Use it"): `tandem export 01a2`, `/thread/01a2…`. An id
 * is looked up exactly first, then by prefix; when no id starts with the text, by suffix — the
 * web page shows an id's last characters (uuidv7 ids start with a timestamp, so short prefixes
 * are shared by threads created close together).
 *
 * Contract: `ok` with the one matching id; otherwise `not_found` (nothing matches) or
 * `ambiguous` (several do: `candidates` lists up to 10, most recently updated first), each
 * with a message fit to show.
 */
import type { Store } from "../store/types.js";

export type ThreadRef =
  | { ok: true; id: string }
  | { ok: false; reason: "not_found" | "ambiguous"; candidates: string[]; message: string };

const SHOWN = 10;

/** `live`: ids of threads this process holds that may not be stored yet. */
export function resolveThreadRef(store: Store, ref: string, live: Iterable<string> = []): ThreadRef {
  const text = ref.trim();
  const liveIds = [...live];
  if (text && (liveIds.includes(text) || store.getThread(text))) return { ok: true, id: text };
  for (const suffix of [false, true]) {
    if (!text) break;
    const found = new Set(store.matchThreadIds(text, { suffix, limit: SHOWN + 1 }));
    for (const id of liveIds) if (suffix ? id.endsWith(text) : id.startsWith(text)) found.add(id);
    const ids = [...found];
    if (ids.length === 1) return { ok: true, id: ids[0] };
    if (ids.length > 1) {
      const candidates = ids.slice(0, SHOWN);
      const more = ids.length > SHOWN ? ", …" : "";
      return {
        ok: false,
        reason: "ambiguous",
        candidates,
        message: `thread id "${text}" is ambiguous: it matches ${candidates.join(", ")}${more}; give more of the id`,
      };
    }
  }
  return { ok: false, reason: "not_found", candidates: [], message: `no thread with id "${text}"` };
}
