/** Store failures shared by every implementation (SQLite, PostgreSQL). */

export type StoreErrorCode = "not_found" | "conflict" | "schema" | "open" | "fenced" | "unavailable";

const STORE_ERROR = Symbol.for("tandem.store.error");

/**
 * A local (non-wire) store failure. `isInstance` survives duplicate copies of this module.
 * Codes: `not_found` (unknown thread/turn), `conflict` (id already exists), `schema` (written by
 * a newer Tandem), `open` (cannot open or create; the message names the place), `fenced` (this
 * process lost the thread's lease to another node: the write was refused, nothing written),
 * `unavailable` (the database did not answer in time).
 */
export class StoreError extends Error {
  readonly [STORE_ERROR] = true;
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "StoreError";
  }
  static isInstance(e: unknown): e is StoreError {
    return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[STORE_ERROR] === true;
  }
}
