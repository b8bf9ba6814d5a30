/** Id helpers. Ids are opaque strings; prefixes only help humans reading logs. */
import { randomBytes, randomUUID } from "node:crypto";

/** A time-ordered UUIDv7 (sortable by creation time), used for thread ids. */
export function uuidv7(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A short random id with a readable prefix, e.g. `turn_3f9a1c2b7d`. */
export function shortId(prefix: string, bytes = 6): string {
  return `${prefix}_${randomBytes(bytes).toString("hex")}`;
}

export { randomUUID };

/** Source of ids for one runtime; injectable so golden tests can pin them. */
export interface IdSource {
  thread(): string;
  turn(): string;
  item(prefix: string): string;
  chunk(): string;
}

export const randomIds: IdSource = {
  thread: () => uuidv7(),
  turn: () => shortId("turn"),
  item: (prefix) => shortId(prefix),
  chunk: () => randomBytes(3).toString("hex"),
};

/** Deterministic ids: `thread_001`, `turn_001`, `chunk_001`… (tests and fixtures). */
export function sequentialIds(): IdSource {
  const n: Record<string, number> = {};
  const next = (p: string) => {
    n[p] = (n[p] ?? 0) + 1;
    return `${p}_${String(n[p]).padStart(3, "0")}`;
  };
  return { thread: () => next("thread"), turn: () => next("turn"), item: next, chunk: () => next("chunk") };
}
