/**
 * Persistence (requirements P1): the `Store` contract and its two implementations, picked by target:
 * a path (or ":memory:") opens the embedded SQLite store, a `postgres://` or `postgresql://`
 * URL opens the PostgreSQL store (./postgres, for many `tandem serve` nodes sharing one store).
 * Both pass the one contract suite (./contract.suite.ts).
 */
import { openPostgresStore, type PostgresStoreOptions } from "./postgres/store.js";
import { openSqliteStore } from "./sqlite/store.js";
import type { Store } from "./types.js";

export { StoreError, type StoreErrorCode } from "./errors.js";
export { defaultStorePath, tandemHome } from "./paths.js";
export { SCHEMA_VERSION } from "./sqlite/store.js";
export type { Store, StoredItem, StoredQuestion, ThreadRecord, TurnRecord } from "./types.js";

/** True when `target` names a PostgreSQL database rather than a file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/**
 * Opens the store at `target`: a file path (created if needed), ":memory:", or a PostgreSQL
 * URL. Throws `StoreError("open")` naming the target when it cannot be opened, and
 * `StoreError("schema")` when it was written by a newer Tandem.
 */
export function openStore(target: string, opts: PostgresStoreOptions = {}): Store {
  return isPostgresUrl(target) ? openPostgresStore(target, opts) : openSqliteStore(target);
}

/** The URL with its password replaced by `***`, for messages and logs. */
export function redactStoreUrl(target: string): string {
  return target.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}
