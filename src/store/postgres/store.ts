/**
 * The PostgreSQL store (docs/scale-out.md): the same `Store` contract as SQLite, for many `tandem serve`
 * nodes sharing one database. Every method is synchronous (./bridge.ts) and returns only after
 * its statement or transaction committed, so an item is durable once `appendItem` returns.
 *
 * Leases (beyond the SQLite contract): a lease lapses `ttlMs` after its last renewal (the
 * worker renews every lease this process holds every ttl/3); a lapsed lease, or one whose
 * holder is a dead pid on this host, may be taken. Taking it from another holder bumps the
 * thread's generation, and every later write this process makes for a thread it leased is
 * checked against that generation: after losing the lease, writes throw
 * `StoreError("fenced")` and write nothing.
 */
import { hostname } from "node:os";
import type { Usage } from "../../protocol/events.js";
import type { ResponseItem } from "../../protocol/items.js";
import type { QuestionOutcome, QuestionRequest } from "../../protocol/questions.js";
import { parseThreadSettings } from "../../protocol/threads.js";
import { cachedJson } from "../../util/json-cache.js";
import { StoreError } from "../errors.js";
import { type Lease, type LeaseResult, leaseIsStale } from "../lease.js";
import { SEARCH_LIMITS, searchLimit, searchTerms, snippetOf } from "../search.js";
import type {
  Store,
  StoredItem,
  StoredQuestion,
  ThreadRecord,
  ThreadSearchHit,
  TurnRecord,
} from "../types.js";
import { SyncBridge } from "./bridge.js";
import { PG_MIGRATIONS } from "./schema.js";

export interface PostgresStoreOptions {
  /** This node's id, recorded on its leases (routing). Default: the host name. */
  node?: string;
  /** Lease lifetime without renewal (default 5000 ms, or $TANDEM_LEASE_TTL_MS). */
  leaseTtlMs?: number;
  /** How long one call may wait for the database (default 30 s). */
  timeoutMs?: number;
}

/**
 * The share of the TTL after which a lease the database has not confirmed counts as lost here
 * (self-fencing, ./worker.ts).
 */
export const LEASE_FENCE_AFTER = 0.75;

/** The token of a lease handed over to `node`, until that node opens the thread. */
const handOverToken = (node: string) => `handover:${node}`;

/** The URL with its password replaced by `***`. */
function redact(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}

export function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Store {
  const ttl = opts.leaseTtlMs ?? (Number(process.env.TANDEM_LEASE_TTL_MS) || 5000);
  const bridge = new SyncBridge({
    url,
    migrations: PG_MIGRATIONS,
    ttlMs: ttl,
    fenceAfter: LEASE_FENCE_AFTER,
    node: opts.node ?? hostname(),
    timeoutMs: opts.timeoutMs ?? 30_000,
  });
  try {
    bridge.call("init");
  } catch (e) {
    bridge.close();
    if (StoreError.isInstance(e) && e.code === "schema") throw e;
    throw new StoreError(
      "open",
      `cannot open the Tandem store ${redact(url)}: ${(e as Error).message}; check the URL and that the database accepts connections`,
    );
  }
  return new PostgresStore(bridge, redact(url), opts.node ?? hostname(), ttl);
}

export class PostgresStore implements Store {
  constructor(
    private readonly bridge: SyncBridge,
    readonly path: string,
    /** The node id written on this store's leases. */
    readonly node: string,
    /** How long a lease lasts without renewal. */
    readonly leaseTtlMs: number,
  ) {}

  /** How long the database may go without confirming a lease before it counts as lost here. */
  get fenceAfterMs(): number {
    return Math.round(this.leaseTtlMs * LEASE_FENCE_AFTER);
  }

  /** See `Store.queued`: the same ops, sent with the next call or the end of this loop turn (bridge.ts `soon`). */
  readonly queued = {
    updateThread: (id: string, patch: Partial<Omit<ThreadRecord, "id">>): Promise<void> =>
      this.bridge.soon("updateThread", id, patch),
  };

  createThread(thread: ThreadRecord): void {
    this.bridge.call("createThread", thread);
  }
  updateThread(id: string, patch: Partial<Omit<ThreadRecord, "id">>): void {
    this.bridge.call("updateThread", id, patch);
  }
  getThread(id: string): ThreadRecord | undefined {
    const record: ThreadRecord | undefined = this.bridge.call("getThread", id);
    return record && withSettings(record);
  }
  listThreads(opts: { limit?: number } = {}): ThreadRecord[] {
    const records: ThreadRecord[] = this.bridge.call(
      "listThreads",
      opts.limit === undefined || opts.limit < 0 ? null : opts.limit,
    );
    return records.map(withSettings);
  }
  matchThreadIds(prefix: string, opts: { suffix?: boolean; limit?: number } = {}): string[] {
    return this.bridge.call("matchThreadIds", prefix, opts.suffix === true, opts.limit ?? 20);
  }
  searchThreads(query: string, opts: { limit?: number } = {}): ThreadSearchHit[] {
    const terms = searchTerms(query);
    if (!terms.length) return [];
    // Terms are letters and digits only: safe as quoted prefix lexemes.
    const tsquery = terms.map((t) => `'${t}':*`).join(" & ");
    const rows = this.bridge.call<Array<{ thread: ThreadRecord; hit: string | null }>>(
      "searchThreads",
      tsquery,
      searchLimit(opts.limit),
      SEARCH_LIMITS.scanHits,
    );
    return rows.map((r) => ({ thread: r.thread, snippet: r.hit === null ? null : snippetOf(r.hit, terms) }));
  }
  appendItem(threadId: string, turnId: string | null, item: ResponseItem): number {
    const callId = "call_id" in item ? item.call_id : null;
    return this.bridge.call("appendItem", threadId, turnId, item.type, callId, cachedJson(item));
  }
  loadItems(threadId: string): StoredItem[] {
    return this.bridge.call("loadItems", threadId);
  }
  countItems(threadId: string): number {
    return this.bridge.call("countItems", threadId);
  }
  truncateHistory(threadId: string, keepItems: number, dropTurns: readonly string[]): void {
    this.bridge.call("truncateHistory", threadId, keepItems, [...dropTurns]);
  }
  putTurn(turn: TurnRecord): void {
    this.bridge.call("putTurn", turn);
  }
  updateTurn(id: string, patch: Partial<Omit<TurnRecord, "id" | "thread_id">>): void {
    this.bridge.call("updateTurn", id, patch);
  }
  listTurns(threadId: string): TurnRecord[] {
    return this.bridge.call("listTurns", threadId);
  }
  lastTurn(threadId: string): TurnRecord | undefined {
    return this.bridge.call("lastTurn", threadId);
  }
  addUsage(threadId: string, turnId: string | null, usage: Usage): Usage {
    return this.bridge.call("addUsage", threadId, turnId, usage);
  }
  saveQuestion(request: QuestionRequest): void {
    this.bridge.call("saveQuestion", request);
  }
  settleQuestion(requestId: string, outcome: QuestionOutcome): void {
    this.bridge.call("settleQuestion", requestId, outcome);
  }
  updateQuestionDeadline(requestId: string, deadline: number | null): void {
    this.bridge.call("updateQuestionDeadline", requestId, deadline);
  }
  getQuestion(requestId: string): StoredQuestion | undefined {
    return this.bridge.call("getQuestion", requestId);
  }
  pendingQuestions(threadId?: string): QuestionRequest[] {
    return this.bridge.call("pendingQuestions", threadId ?? null);
  }
  acquireLease(threadId: string, owner: Lease): LeaseResult {
    const first = this.bridge.call<LeaseResult>("acquireLease", threadId, owner, null);
    if (first.ok) return first;
    // A dead pid on this host, or a lease handed over to this node: take it now.
    if (leaseIsStale(first.holder) || first.holder.token === handOverToken(this.node))
      return this.bridge.call<LeaseResult>("acquireLease", threadId, owner, first.holder.token);
    return first;
  }
  handOverLease(threadId: string, token: string, toNode: string): void {
    this.bridge.call("handOverLease", threadId, token, handOverToken(toNode), toNode);
  }
  releaseLease(threadId: string, token: string): void {
    this.bridge.call("releaseLease", threadId, token);
  }
  getLease(threadId: string): Lease | undefined {
    return this.bridge.call("getLease", threadId);
  }
  /** Cluster routing: the thread of question `requestId` and the node on its lease (null: none). */
  questionRoute(requestId: string): { thread_id: string; node: string | null; expired: boolean } | undefined {
    return this.bridge.call("questionRoute", requestId);
  }
  getMeta(key: string): string | undefined {
    return this.bridge.call("getMeta", key);
  }
  setMeta(key: string, value: string): void {
    this.bridge.call("setMeta", key, value);
  }

  /**
   * Cluster event log (../../cluster/events.ts): appends one event `[thread, also, at, stamped]`
   * without blocking; resolves with its cluster-wide id, or rejects with a `StoreError` when it
   * was not written. Events queued in one loop turn go in one statement, before any later call of
   * this store but the hot path's (bridge.ts `later`, OVERTAKING), so their ids follow the order
   * they were queued in and a lease changes hands only after them.
   */
  appendEvent(row: [string | null, string[] | null, number, string]): Promise<number> {
    return this.bridge.later("appendEvents", row);
  }
  /** Logged events after `after` (one thread's or all), with the oldest and newest ids kept. */
  eventsSince(
    after: number,
    threadId: string | null,
    limit: number,
  ): { events: Array<{ id: number; stamped: string }>; first: number | null; last: number } {
    return this.bridge.call("eventsSince", after, threadId, limit);
  }
  pruneEvents(before: number): number {
    return this.bridge.call("pruneEvents", before);
  }

  /**
   * Threads this process leased and lost since (their writes are fenced): taken by another node,
   * or `unconfirmed` (the store did not confirm the lease for 3/4 of its TTL, so another node may
   * take it; ./worker.ts). Answered at once even while another operation hangs.
   */
  lostLeases(): Array<{ thread_id: string; unconfirmed: boolean }> {
    return this.bridge.call("lostLeases");
  }

  /** Threads with no live lease that have a pending question or were running (a dead or drained node's), oldest first. */
  orphanedThreads(limit = 50): string[] {
    return this.bridge.call("orphanedThreads", limit);
  }
  /** Renews every held lease now (also done every ttl/3 in the background). */
  renewLeases(): void {
    this.bridge.call("renewNow");
  }

  close(): void {
    this.bridge.close();
  }
}

/** The PostgreSQL store behind `store`, if it is one. */
export function asPostgresStore(store: Store): PostgresStore | undefined {
  return store instanceof PostgresStore ? store : undefined;
}

/** The worker passes the stored settings unparsed; they are read as the protocol says (parseThreadSettings). */
function withSettings(record: ThreadRecord): ThreadRecord {
  return { ...record, settings: parseThreadSettings(record.settings) };
}
