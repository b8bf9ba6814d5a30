/**
 * JSON text of objects that are serialised again and again: history items (every sampling
 * request re-sends the whole history, and the context budget measures it) and tool
 * definitions. Keyed by identity and held weakly, so a dropped item frees its text.
 *
 * Contract: callers only pass objects that are never mutated after their first serialisation
 * (recorded items and tool definitions are replaced, not edited). `cachedJson(v)` always
 * equals `JSON.stringify(v) ?? "null"` for such values (undefined reads as null, as inside an
 * array).
 */
const textOf = new WeakMap<object, string>();

export function cachedJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  let text = textOf.get(value);
  if (text === undefined) {
    text = JSON.stringify(value) ?? "null";
    textOf.set(value, text);
  }
  return text;
}
