/**
 * Persistence contract (SPEC P1). One interface; SQLite is the default implementation.
 *
 * Durability contract: every call returns only after the write is committed (WAL), so a
 * `kill -9` at any point loses at most the item being written. Items are append-only and
 * ordered by `seq` within a thread. Secrets are never passed to the store (callers redact).
 */
import type { CollaborationMode, ThreadStatus, Usage } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";
import type { QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import type { Lease, LeaseResult } from "./lease.js";

export type { Lease, LeaseResult } from "./lease.js";

export interface ThreadRecord {
  id: string;
  /** Session id: prompt_cache_key and client_metadata.session_id (root thread id by default). */
  session_id: string;
  parent_id: string | null;
  created_at: number;
  updated_at: number;
  cwd: string;
  model: string;
  mode: CollaborationMode;
  title: string;
  status: ThreadStatus;
  /** Free-form JSON settings (effort, policies, provider...). */
  settings: Record<string, unknown>;
  /**
   * Token totals of every model response in this thread, across processes (read only: written
   * by `Store.addUsage`, ignored by `createThread`/`updateThread`). Absent before the first.
   */
  usage?: Usage;
}

export interface TurnRecord {
  id: string;
  thread_id: string;
  started_at: number;
  ended_at: number | null;
  status: "running" | "completed" | "interrupted" | "failed";
  usage: Usage | null;
  error: string | null;
  /**
   * The turn's net unified diff (apply_patch and shell commands), secret-masked as emitted in
   * `turn.diff`; written when the turn ends. Reads leave it out when there is none (the turn
   * changed nothing, has not ended, or was stored before diffs were).
   */
  diff?: string | null;
}

export interface StoredItem {
  seq: number;
  thread_id: string;
  turn_id: string | null;
  item: ResponseItem;
  created_at: number;
}

export interface StoredQuestion {
  request: QuestionRequest;
  outcome: QuestionOutcome | null;
}

export interface Store {
  /** Where the store lives on disk (":memory:" for none): a protected path (SPEC A4). */
  readonly path: string;
  createThread(thread: ThreadRecord): void;
  updateThread(id: string, patch: Partial<Omit<ThreadRecord, "id">>): void;
  getThread(id: string): ThreadRecord | undefined;
  /** Most recently updated first. */
  listThreads(opts?: { limit?: number }): ThreadRecord[];
  /**
   * Ids of threads whose id starts with `prefix` (or, with `{ suffix: true }`, ends with it),
   * most recently updated first, at most `limit` (default 20).
   */
  matchThreadIds(prefix: string, opts?: { suffix?: boolean; limit?: number }): string[];

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

  close(): void;
}
