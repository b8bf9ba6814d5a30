/**
 * Persistence contract (requirements P1). One interface; SQLite is the default implementation.
 *
 * Durability contract: every call returns only after the write is committed (WAL), so a
 * `kill -9` at any point loses at most the item being written. Items are append-only and
 * ordered by `seq` within a thread. Secrets are never passed to the store (callers redact).
 */
import type { Usage } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";
import type { QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import type {
  StoredItem,
  StoredQuestion,
  ThreadRecord,
  ThreadSearchHit,
  TurnRecord,
} from "../protocol/threads.js";
import type { Lease, LeaseResult } from "./lease.js";

/** The records the store keeps are protocol types (protocol/threads.ts: settings parsed on read). */
export type { StoredItem, StoredQuestion, ThreadRecord, TurnRecord } from "../protocol/threads.js";
// The search bounds and hits are part of the contract callers outside the stores read.
export { SEARCH_LIMITS, type ThreadSearchHit } from "../protocol/threads.js";
export type { Lease, LeaseResult } from "./lease.js";

export interface Store {
  /** Where the store lives on disk (":memory:" for none): a protected path (requirements A4). */
  readonly path: string;
  createThread(thread: ThreadRecord): void;
  updateThread(id: string, patch: Partial<Omit<ThreadRecord, "id">>): void;
  /** Settings come back parsed (protocol/threads.ts `parseThreadSettings`), as for listThreads. */
  getThread(id: string): ThreadRecord | undefined;
  /** Most recently updated first. */
  listThreads(opts?: { limit?: number }): ThreadRecord[];
  /**
   * Ids of threads whose id starts with `prefix` (or, with `{ suffix: true }`, ends with it),
   * most recently updated first, at most `limit` (default 20).
   */
  matchThreadIds(prefix: string, opts?: { suffix?: boolean; limit?: number }): string[];
  /**
   * Threads whose title or one of whose user/assistant messages holds every word of `query` as
   * a word prefix (./search.ts), most recently updated first, at most `limit` (default 20, at
   * most 100). A query without words finds nothing. Indexed: cost follows the hits, not the
   * number of threads.
   */
  searchThreads(query: string, opts?: { limit?: number }): ThreadSearchHit[];

  /** Appends one history item; returns its seq (1-based, per thread). */
  appendItem(threadId: string, turnId: string | null, item: ResponseItem): number;
  loadItems(threadId: string): StoredItem[];
  countItems(threadId: string): number;
  /**
   * Rewind (README "Undo, redo, fork and rewind"): deletes the thread's items after the first
   * `keepItems` and the turns `dropTurns`, in one transaction; the next item gets seq
   * `keepItems + 1`. Throws `not_found` for an unknown thread (and `fenced` like appendItem).
   */
  truncateHistory(threadId: string, keepItems: number, dropTurns: readonly string[]): void;

  putTurn(turn: TurnRecord): void;
  updateTurn(id: string, patch: Partial<Omit<TurnRecord, "id" | "thread_id">>): void;
  listTurns(threadId: string): TurnRecord[];
  /** The thread's latest turn (`listTurns(threadId).at(-1)`, without reading the others). */
  lastTurn(threadId: string): TurnRecord | undefined;
  /**
   * Adds one model response's usage to the thread's total and, when `turnId` is a turn of the
   * thread, to that turn's usage, in one transaction; returns the thread's new total.
   * Throws `not_found` for an unknown thread.
   */
  addUsage(threadId: string, turnId: string | null, usage: Usage): Usage;

  /** Persists a pending question with its call (Q11). Idempotent by request_id. */
  saveQuestion(request: QuestionRequest): void;
  /** Records the outcome (already redacted by the caller). No-op if already settled. */
  settleQuestion(requestId: string, outcome: QuestionOutcome): void;
  updateQuestionDeadline(requestId: string, deadline: number | null): void;
  getQuestion(requestId: string): StoredQuestion | undefined;
  pendingQuestions(threadId?: string): QuestionRequest[];

  /**
   * Takes the thread's driving lease for `owner` (one IMMEDIATE transaction): granted when
   * free, already `owner`'s (same token), or stale (see ./lease.ts); otherwise refused with
   * the live holder and nothing written. Throws `not_found` for an unknown thread.
   */
  acquireLease(threadId: string, owner: Lease): LeaseResult;
  /** Gives the lease back if `token` holds it; no-op otherwise. */
  releaseLease(threadId: string, token: string): void;
  /**
   * Cluster stores only: passes the lease `token` holds to node `toNode`, which takes it when it
   * opens the thread (no other node may meanwhile: it stays live for one TTL, then lapses).
   */
  handOverLease?(threadId: string, token: string, toNode: string): void;
  getLease(threadId: string): Lease | undefined;

  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;

  /**
   * Offered by stores whose every call is a round trip to a server (PostgreSQL): `updateThread`
   * queued instead of waited for — the exception to the durability contract
   * above. A queued write reaches the database before any later call of this store (a read, a
   * lease change, an item append finds it) and at the latest once the current turn of the event
   * loop ends; its promise settles with the write's outcome (the same StoreErrors: `fenced`,
   * `not_found`, `unavailable`). For writes whose caller does not act on the outcome at once (a
   * running thread's status: runtime/host.ts).
   */
  readonly queued?: {
    updateThread(id: string, patch: Partial<Omit<ThreadRecord, "id">>): Promise<void>;
  };

  close(): void;
}
