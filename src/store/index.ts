/** Persistence (SPEC P1): the `Store` contract and its default SQLite implementation. */
export {
  defaultStorePath,
  openStore,
  SCHEMA_VERSION,
  StoreError,
  type StoreErrorCode,
  tandemHome,
} from "./sqlite.js";
export type { Store, StoredItem, StoredQuestion, ThreadRecord, TurnRecord } from "./types.js";
