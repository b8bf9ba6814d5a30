/**
 * The cluster's event log (docs/scale-out.md): an SSE client resumes with `Last-Event-ID` on any node,
 * from the store, not from one node's memory.
 *
 * Contract:
 * - Every event this node publishes for a thread it owns, except streaming deltas (types ending
 *   in `.delta` or `_delta`) and `turn.diff` (a snapshot the turn's record keeps), is written to
 *   the store's `events` table (`record`, called by the node's first bus listener); the row id is
 *   the event's cluster-wide id (`idOf`). Events of other nodes arrive over NATS with their id and
 *   are registered the same way (`adopt`), so every node shows the same id for the same event.
 * - Writing never blocks the publisher: the events of one turn of the event loop go to the
 *   store in one insert (../store/postgres/bridge.ts `later`), ahead of any later lease change
 *   or log read of this node (ids follow the order of recording, and a lease handed over after
 *   an event is handed over after its write). Until it is written an
 *   event is `pending`; nothing may carry it off the node before (SSE clients, other nodes:
 *   `Outbox`), so whatever any node's client saw, a resume on any node reads from the store.
 *   The in-process bus still delivers at once.
 * - Deltas get no id: a client resuming after one gets the completed items (they carry the full
 *   text). A failed write (database unreachable) leaves its events without an id; they are still
 *   delivered live.
 * - `since(after, threadId?)` reads the log: at most `limit` events after `after`, oldest first.
 *   `gap` is true when ids after `after` were pruned (older than the retention, default 24 h),
 *   or when there were more than `limit`: the client then refetches state over the API. Read it
 *   after `settled()`, or an event recorded here but not yet written is neither read nor (if it
 *   was published before the reader subscribed) delivered live.
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
  /** The cluster-wide id of a delivered event; undefined for deltas, unlogged and pending events. */
  idOf(s: Stamped): number | undefined;
  /** True while `s` waits for the store: it may not leave this node yet (see `Outbox`). */
  pending(s: Stamped): boolean;
  /** Calls `fn` each time pending events settle (written, or failed); returns the unsubscribe. */
  onSettled(fn: () => void): () => void;
  /** Resolves once every event recorded before the call has settled. */
  settled(): Promise<void>;
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
  private readonly waiting = new WeakSet<Stamped>();
  private readonly listeners = new Set<() => void>();
  private newest = 0;
  /** Events recorded so far, and how many of them settled (they settle in that order). */
  private recorded = 0;
  private done = 0;
  private readonly waiters: Array<{ upTo: number; resolve(): void }> = [];
  /** Set while a notice to `listeners` (and a failure report) waits for the end of the task. */
  private noticeDue = false;
  private failures: { count: number; message: string } | undefined;

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

  /**
   * Sends one of this node's events to the store (a no-op for unlogged ones); see the contract.
   * It is queued in the store at once: written before any later lease change or log read of
   * this node (a lease handed over next waits behind it), with the rest of this loop turn's
   * events in one insert.
   */
  record(s: Stamped): void {
    if (unlogged(s.event)) return;
    const threadId =
      "thread_id" in s.event && typeof s.event.thread_id === "string" ? s.event.thread_id : null;
    let also: string[] = [];
    try {
      also = this.related?.(s.event)?.filter((t) => t !== threadId) ?? [];
    } catch {}
    const stamped = JSON.stringify({ time: s.time, event: s.event });
    this.waiting.add(s);
    this.recorded++;
    this.store
      .appendEvent([threadId, also.length ? also : null, s.time, stamped])
      .then(
        (id) => this.adopt(s, id),
        (e: Error) => {
          this.failures = { count: (this.failures?.count ?? 0) + 1, message: e.message };
        },
      )
      .finally(() => this.settle(s));
  }

  /**
   * `s` is written (or failed). Once per task: failures reported, listeners told (outboxes
   * deliver), then the waiters of `settled()` woken — so a waiter finds its events delivered.
   */
  private settle(s: Stamped): void {
    this.waiting.delete(s);
    this.done++;
    if (this.noticeDue) return;
    this.noticeDue = true;
    queueMicrotask(() => {
      this.noticeDue = false;
      if (this.failures) {
        const { count, message } = this.failures;
        this.failures = undefined;
        this.log?.(`event log: could not record ${count} event(s): ${message}`);
      }
      for (const fn of [...this.listeners]) {
        try {
          fn();
        } catch {}
      }
      for (let i = this.waiters.length - 1; i >= 0; i--)
        if (this.waiters[i].upTo <= this.done) this.waiters.splice(i, 1)[0].resolve();
    });
  }

  /** Registers the id an event already has (another node logged it). */
  adopt(s: Stamped, id: number): void {
    this.ids.set(s, id);
    if (id > this.newest) this.newest = id;
  }

  idOf(s: Stamped): number | undefined {
    return this.ids.get(s);
  }

  pending(s: Stamped): boolean {
    return this.waiting.has(s);
  }

  onSettled(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Resolves once the events recorded before the call have settled (not those after: a busy node never idles). */
  settled(): Promise<void> {
    const upTo = this.recorded;
    if (this.done >= upTo) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
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

/**
 * Carries events off the node in order, each only once its log entry is written: `push` holds
 * an event behind any pending one before it (deltas included, so a stream never reorders) and
 * hands it to `deliver` when everything up to it has settled. `close` stops delivering.
 */
export class Outbox {
  private readonly held: Stamped[] = [];
  private readonly off: () => void;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    private readonly deliver: (s: Stamped) => void,
  ) {
    this.off = log.onSettled(() => this.flush());
  }

  push(s: Stamped): void {
    if (this.closed) return;
    if (this.held.length || this.log.pending(s)) this.held.push(s);
    else this.deliver(s);
  }

  private flush(): void {
    while (!this.closed && this.held.length && !this.log.pending(this.held[0])) {
      const s = this.held.shift()!;
      try {
        this.deliver(s);
      } catch {} // one failed delivery must not hold back the rest
    }
  }

  close(): void {
    this.closed = true;
    this.held.length = 0;
    this.off();
  }
}

/**
 * Joins what one microtask delivers (a reply's events, a batch the log just wrote) into one
 * frame `{"events":[…]}`, in order: each frame costs a seal here and an open on every other node.
 * A frame stays under half of the server's max payload in UTF-8 bytes (room for the seal); an
 * event larger than that goes alone. When `send` refuses a frame of several events (too large
 * after all, a closed connection), each of them is sent again alone, so joining never loses an
 * event that would have gone out by itself (red team: text outside ASCII made a frame of events
 * that each fit the server too large for it, and all of them were lost). Failures go to
 * `failed`; the frames after them still go.
 */
export function eventFrames(
  send: (payload: string) => void,
  maxPayload = 1024 * 1024,
  failed?: (e: Error) => void,
): (event: string) => void {
  const limit = Math.max(1024, Math.floor(maxPayload / 2));
  let parts: string[] = [];
  let size = 0;
  const frame = (events: string[]) => `{"events":[${events.join(",")}]}`;
  const out = () => {
    if (!parts.length) return;
    const events = parts;
    parts = [];
    size = 0;
    try {
      send(frame(events));
    } catch (e) {
      if (events.length === 1) return failed?.(e as Error);
      for (const one of events)
        try {
          send(frame([one]));
        } catch (e1) {
          failed?.(e1 as Error);
        }
    }
  };
  return (event) => {
    const bytes = Buffer.byteLength(event, "utf8");
    if (parts.length && size + bytes > limit) out();
    if (!parts.length) queueMicrotask(out);
    parts.push(event);
    size += bytes + 1;
  };
}
