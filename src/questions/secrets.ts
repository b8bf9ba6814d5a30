/**
 * Secret store of thread families (requirements Q10): a thread, its sub-agents and theirs share one set.
 *
 * Contract:
 * - Keyed by family: `family(threadId)` names the family's root (default: the thread itself), so
 *   a secret answered in any thread of a family is masked in every other — a child that `cat`s a
 *   file its parent wrote the value into sees it masked — and its handle works in all of them.
 * - Values are held in process memory, and never logged or published. With a `vault`, each put
 *   also saves the family's values there (sealed, see secret-vault.ts) and a view loads them once,
 *   so a family resumed by a later process still masks them; they are never handed to commands
 *   again (`env()` and `has` know only what was put in this process: after a restart whoever
 *   needs the value must ask again). Callers keep only the handle.
 * - `put(thread, name, value)` stores a value under a sanitised name and returns the handle the
 *   model sees, `$TANDEM_SECRET_<NAME>` (NAME = upper-cased, anything outside [A-Z0-9_] → "_").
 *   Putting the same name again replaces the value; the old value stays known for masking.
 * - `view(thread)` is live (it sees secrets put later): `env()` gives `TANDEM_SECRET_<NAME>` → value
 *   for a child process environment (exec expands the handle there, never in the command text);
 *   `mask(text)` replaces every value the family ever held with REDACTED, longest first; a value
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
 * - `dropThread` forgets the family's values in memory when its root closes (a vault keeps its
 *   copy); a sub-agent closing drops nothing.
 */
import { REDACTED } from "../protocol/questions.js";
import { log } from "../util/log.js";
import type { SecretVault } from "./secret-vault.js";

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
  /**
   * A stored thread opened by this process (resumed, taken over, handed back by another node):
   * its family is looked up in the vault again at its next use, and values held in memory are
   * kept. Another process may have saved values for it since this one last looked.
   */
  refresh(threadId: string): void;
  /**
   * Whether `data` holds any value a family of this process holds, or the family of one of
   * `threadIds` (loaded from the vault first: a resumed family whose values nothing has asked
   * for yet) — files kept out of checkpoints.
   */
  heldIn(data: Buffer, threadIds?: Iterable<string>): boolean;
  /** Families currently holding secrets in memory (leak tests). */
  readonly threadCount: number;
}

export interface SecretStoreOptions {
  /** The root of `threadId`'s family (default: the thread itself). */
  family?: (threadId: string) => string;
  /** Keeps each family's values for masking in later processes (secret-vault.ts). */
  vault?: SecretVault;
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

interface FamilySecrets {
  /** env var name → current value (put in this process) */
  current: Map<string, string>;
  /** every value ever held (for masking), kept sorted longest first */
  known: string[];
}

export function createSecretStore(opts: SecretStoreOptions = {}): SecretStore {
  const families = new Map<string, FamilySecrets>();
  const familyOf = opts.family ?? ((id: string) => id);

  /** Families the vault had nothing for (not asked again until something is put). */
  const empty = new Set<string>();

  /** The family's secrets; with a vault, loaded from it the first time the family is seen. */
  const of = (threadId: string, create: boolean): FamilySecrets | undefined => {
    const id = familyOf(threadId);
    const known = families.get(id);
    if (known) return known;
    if (!create && (!opts.vault || empty.has(id))) return undefined;
    const f: FamilySecrets = { current: new Map(), known: [] };
    if (!empty.has(id)) for (const v of opts.vault?.load(id) ?? []) learn(f, v);
    if (!create && f.known.length === 0) {
      empty.add(id);
      return undefined;
    }
    empty.delete(id);
    families.set(id, f);
    return f;
  };

  const view = (threadId: string): SecretView => ({
    env: () => Object.fromEntries(of(threadId, false)?.current ?? []),
    mask: (text) => {
      const known = of(threadId, false)?.known;
      if (!known) return text;
      let out = text;
      for (const value of known) if (out.includes(value)) out = out.split(value).join(REDACTED);
      return out;
    },
    safeCut: (text, at = text.length) => safeCut(of(threadId, false)?.known ?? [], text, at),
  });

  return {
    get threadCount() {
      return families.size;
    },
    put(threadId, name, value) {
      const env = secretEnvName(name);
      const f = of(threadId, true)!;
      f.current.set(env, value);
      const before = f.known.length;
      learn(f, value);
      if (f.known.length > before) opts.vault?.save(familyOf(threadId), f.known);
      return `$${env}`;
    },
    view,
    has(threadId, name) {
      return of(threadId, false)?.current.has(secretEnvName(name)) ?? false;
    },
    dropThread(threadId) {
      if (familyOf(threadId) !== threadId) return;
      families.delete(threadId);
      empty.delete(threadId);
    },
    refresh(threadId) {
      const id = familyOf(threadId);
      empty.delete(id);
      const f = families.get(id);
      if (f) for (const v of opts.vault?.load(id) ?? []) learn(f, v);
    },
    heldIn(data, threadIds) {
      for (const id of threadIds ?? []) of(id, false);
      for (const f of families.values()) for (const v of f.known) if (data.includes(v)) return true;
      return false;
    },
  };
}

/** Adds `value` (as typed and trimmed, when long enough to mask) to the family's known values. */
function learn(f: FamilySecrets, value: string): void {
  log.secret(value); // masked in the debug log too (util/log.ts)
  for (const v of new Set([value, value.trim()]))
    if (v.length >= MIN_MASK_LENGTH && !f.known.includes(v)) f.known.push(v);
  f.known.sort((a, b) => b.length - a.length);
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
