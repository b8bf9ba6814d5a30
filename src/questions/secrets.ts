/**
 * Per-thread secret store (SPEC Q10).
 *
 * Contract:
 * - Held in process memory only. Values are NEVER persisted, logged or published: after a restart
 *   a thread has no secrets and whoever needs one must ask again. Callers keep only the handle.
 * - `put(thread, name, value)` stores a value under a sanitised name and returns the handle the
 *   model sees, `$TANDEM_SECRET_<NAME>` (NAME = upper-cased, anything outside [A-Z0-9_] → "_").
 *   Putting the same name again replaces the value; the old value stays known for masking.
 * - `view(thread)` is live (it sees secrets put later): `env()` gives `TANDEM_SECRET_<NAME>` → value
 *   for a child process environment (exec expands the handle there, never in the command text);
 *   `mask(text)` replaces every value the thread ever held with REDACTED, longest first; a value
 *   with surrounding whitespace is known both as typed and trimmed (a pasted "  sk-1\n" is masked
 *   where a program prints "sk-1"). Values shorter than MIN_MASK_LENGTH (4) characters are not
 *   masked: replacing "1" or "ab" everywhere would mangle ordinary output while hiding nothing.
 * - `safeCut(text, at)` is for streams (text arriving in pieces): the largest cut ≤ `at` such that
 *   `mask(text.slice(0, cut))` can be shown now without showing part of a secret — no known value
 *   crosses the cut, and what follows the cut is not the start of a value that may continue in
 *   the next piece. Callers keep `text.slice(cut)` and prepend it to the next piece. The kept
 *   tail is shorter than the longest known value unless values overlap there.
 * - Masking is exact-match only: it cannot catch a value the program encodes (base64, hex, URL
 *   escapes), reverses, or prints interleaved with other text.
 * - `dropThread` forgets everything of a thread (thread close).
 */
import { REDACTED } from "../protocol/questions.js";

export const SECRET_ENV_PREFIX = "TANDEM_SECRET_";
export const MIN_MASK_LENGTH = 4;

/** Same shape as `SecretView` in tools/types.ts (kept here so questions/ does not import tools/). */
export interface SecretView {
  env(): Record<string, string>;
  mask(text: string): string;
  safeCut(text: string, at?: number): number;
}

export interface SecretStore {
  /** Stores `value`; returns its handle `$TANDEM_SECRET_<NAME>`. Throws if `name` has no letter or digit. */
  put(threadId: string, name: string, value: string): string;
  view(threadId: string): SecretView;
  /** Whether the thread holds a secret under `name` (sanitised like `put`). */
  has(threadId: string, name: string): boolean;
  dropThread(threadId: string): void;
  /** Whether `data` holds any value a thread of this process holds (files kept out of checkpoints). */
  heldIn(data: Buffer): boolean;
  /** Threads currently holding secrets (leak tests). */
  readonly threadCount: number;
}

/** `api-key` → `TANDEM_SECRET_API_KEY`. Throws a TypeError for names without a letter or digit. */
export function secretEnvName(name: string): string {
  if (!/[A-Za-z0-9]/.test(name))
    throw new TypeError(
      `secret name "${name}" needs at least one letter or digit (it becomes an env var name)`,
    );
  return SECRET_ENV_PREFIX + name.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
}

/** The handle the model sees for a secret: `$TANDEM_SECRET_<NAME>`. */
export function secretHandle(name: string): string {
  return `$${secretEnvName(name)}`;
}

interface ThreadSecrets {
  /** env var name → current value */
  current: Map<string, string>;
  /** every value ever held (for masking), kept sorted longest first */
  known: string[];
}

export function createSecretStore(): SecretStore {
  const threads = new Map<string, ThreadSecrets>();

  const view = (threadId: string): SecretView => ({
    env: () => Object.fromEntries(threads.get(threadId)?.current ?? []),
    mask: (text) => {
      const known = threads.get(threadId)?.known;
      if (!known) return text;
      let out = text;
      for (const value of known) if (out.includes(value)) out = out.split(value).join(REDACTED);
      return out;
    },
    safeCut: (text, at = text.length) => safeCut(threads.get(threadId)?.known ?? [], text, at),
  });

  return {
    get threadCount() {
      return threads.size;
    },
    put(threadId, name, value) {
      const env = secretEnvName(name);
      let t = threads.get(threadId);
      if (!t) {
        t = { current: new Map(), known: [] };
        threads.set(threadId, t);
      }
      t.current.set(env, value);
      for (const v of new Set([value, value.trim()])) {
        if (v.length >= MIN_MASK_LENGTH && !t.known.includes(v)) t.known.push(v);
      }
      t.known.sort((a, b) => b.length - a.length);
      return `$${env}`;
    },
    view,
    has(threadId, name) {
      return threads.get(threadId)?.current.has(secretEnvName(name)) ?? false;
    },
    dropThread(threadId) {
      threads.delete(threadId);
    },
    heldIn(data) {
      for (const t of threads.values()) for (const v of t.known) if (data.includes(v)) return true;
      return false;
    },
  };
}

/** See the contract: the largest safe cut ≤ `at` for `text` against the `known` values. */
function safeCut(known: string[], text: string, at: number): number {
  let cut = Math.max(0, Math.min(at, text.length - longestPendingStart(known, text)));
  // Move the cut to the start of any known value that crosses it, until none does.
  for (let moved = true; moved; ) {
    moved = false;
    for (const v of known) {
      const p = text.indexOf(v, Math.max(0, cut - v.length + 1));
      if (p !== -1 && p < cut) {
        cut = p;
        moved = true;
      }
    }
  }
  return cut;
}

/** Length of the longest suffix of `text` that is a proper prefix of a known value. */
function longestPendingStart(known: string[], text: string): number {
  let best = 0;
  for (const v of known) {
    const from = Math.max(0, text.length - v.length + 1);
    for (let p = text.indexOf(v[0], from); p !== -1; p = text.indexOf(v[0], p + 1)) {
      const tail = text.length - p;
      if (tail > best && v.startsWith(text.slice(p))) best = tail;
      if (tail <= best) break;
    }
  }
  return best;
}
