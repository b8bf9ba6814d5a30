/**
 * The cluster's event log (docs/scale-out.md): an SSE client resumes with `Last-Event-ID` on any node,
 * from the store, not from one node's memory.
 *
 * Contract:
 * - Every event this node publishes for a thread it owns, except streaming deltas (types ending
 *   in `.delta` or `_delta`) and `turn.diff` (a snapshot the turn's record keeps), is written to the store's `events` table before any other listener
 *   sees it (`record`, called by the node's first bus listener); the row id is the event's
 *   cluster-wide id (`idOf`). Events of other nodes arrive over NATS with their id and are
 *   registered the same way (`adopt`), so every node shows the same id for the same event.
 * - Deltas get no id: a client resuming after one gets the completed items (they carry the full
 *   text). A failed write (database unreachable) leaves that event without an id; it is still
 *   delivered live.
 * - `since(after, threadId?)` reads the log: at most `limit` events after `after`, oldest first.
 *   `gap` is true when ids after `after` were pruned (older than the retention, default 24 h),
 *   or when there were more than `limit`: the client then refetches state over the API.
 * - A thread's replay includes the events its live stream carries for it: a sub-agent's
 *   question events are logged with the ancestors that `related` names.
 * - Order: ids follow the store's insert order. A thread's events come from its owner, in order.
 *   A stream of all threads delivers each node's events in order, but another node's event can
 *   arrive after a later id of this node's: a client resuming such a stream may miss an event
 *   of that short window (a per-thread stream does not).
 */
import type { Event, Stamped } from "../protocol/events.js";
import type { PostgresStore } from "../store/postgres/store.js";

/** What the SSE route needs from a log (surfaces/http/sse.ts). */
export interface EventLog {
  /** The cluster-wide id of a delivered event; undefined for deltas and unlogged events. */
  idOf(s: Stamped): number | undefined;
  since(after: number, threadId?: string): { events: Stamped[]; gap: boolean };
  /** The newest id this node knows of. */
  lastId(): number;
}

const REPLAY_LIMIT = 10_000;

/** Events the log leaves out: streamed pieces and the turn diff's running snapshot. */
export const unlogged = (e: Event) =>
  e.type.endsWith(".delta") || e.type.endsWith("_delta") || e.type === "turn.diff";

export class ClusterEventLog implements EventLog {
  private readonly ids = new WeakMap<Stamped, number>();
  private newest = 0;

  constructor(
    private readonly store: PostgresStore,
    private readonly log?: (line: string) => void,
    /** Other threads an event belongs to (the bus's `related`: a sub-agent's ancestors). */
    private readonly related?: (event: Event) => readonly string[] | undefined,
  ) {
    try {
      this.newest = store.eventsSince(Number.MAX_SAFE_INTEGER, null, 0).last;
    } catch {}
  }

  /** Writes one of this node's events; returns its id (undefined: not logged, or not written). */
  record(s: Stamped): number | undefined {
    if (unlogged(s.event)) return undefined;
    const threadId =
      "thread_id" in s.event && typeof s.event.thread_id === "string" ? s.event.thread_id : null;
    try {
      const also = this.related?.(s.event)?.filter((t) => t !== threadId) ?? [];
      const stamped = JSON.stringify({ time: s.time, event: s.event });
      const id = this.store.appendEvent(threadId, also.length ? also : null, s.time, stamped);
      this.adopt(s, id);
      return id;
    } catch (e) {
      this.log?.(`event log: could not record a ${s.event.type} event: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** Registers the id an event already has (another node logged it). */
  adopt(s: Stamped, id: number): void {
    this.ids.set(s, id);
    if (id > this.newest) this.newest = id;
  }

  idOf(s: Stamped): number | undefined {
    return this.ids.get(s);
  }

  lastId(): number {
    return this.newest;
  }

  since(after: number, threadId?: string): { events: Stamped[]; gap: boolean } {
    const r = this.store.eventsSince(after, threadId ?? null, REPLAY_LIMIT + 1);
    const more = r.events.length > REPLAY_LIMIT;
    const pruned = r.first !== null && after + 1 < r.first;
    const events = r.events.slice(0, REPLAY_LIMIT).map((row) => {
      const { time, event } = JSON.parse(row.stamped) as { time: number; event: Event };
      const s: Stamped = { seq: row.id, time, event };
      this.adopt(s, row.id);
      return s;
    });
    return { events, gap: more || pruned || after > r.last };
  }

  /** Drops events older than `retentionMs`; returns how many. */
  prune(retentionMs: number): number {
    return this.store.pruneEvents(Date.now() - retentionMs);
  }
}
