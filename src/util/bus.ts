/**
 * In-process event bus. Contract:
 * - `publish` stamps a monotonically increasing `seq` and delivers synchronously, in order.
 * - A subscriber that throws is isolated: its error is reported to `onSubscriberError` and
 *   never reaches the publisher or other subscribers.
 * - The last `replay` events are kept so a reconnecting client can resume after a `seq`
 *   (`since`) without losing events; `since` older than the buffer reports `gap: true`.
 * - A subscriber for one thread gets that thread's events, and those `related` says also belong
 *   to it (a sub-agent's question events reach its root thread's subscribers, Q14).
 */
import type { Event, Stamped } from "../protocol/events.js";

export type Listener = (stamped: Stamped) => void;

export interface SubscribeOptions {
  threadId?: string;
  /** Replay buffered events with seq > since before live ones. */
  since?: number;
}

export interface Bus {
  publish(event: Event): Stamped;
  subscribe(listener: Listener, opts?: SubscribeOptions): { unsubscribe(): void; gap: boolean };
  readonly lastSeq: number;
  readonly listenerCount: number;
}

export interface BusOptions {
  replay?: number;
  onSubscriberError?: (err: unknown) => void;
  /** Other thread ids an event belongs to, besides its own `thread_id` (must not throw). */
  related?: (event: Event) => readonly string[] | undefined;
}

export function createBus(opts: BusOptions = {}): Bus {
  const capacity = Math.max(0, Math.floor(opts.replay ?? 10_000));
  // The replay buffer is a ring: the oldest event is overwritten in place (a full array shifted
  // by one cost every publish a copy of 10,000 references once the buffer was full).
  const ring: Stamped[] = [];
  let oldest = 0;
  const listeners = new Set<{ fn: Listener; threadId?: string }>();
  // Listeners as of the last change: a publish delivers to those subscribed when it began.
  let current: Array<{ fn: Listener; threadId?: string }> | undefined;
  let seq = 0;
  const report =
    opts.onSubscriberError ?? ((err) => process.emitWarning(`event subscriber failed: ${String(err)}`));

  const matches = (threadId: string | undefined, s: Stamped) =>
    !threadId ||
    ("thread_id" in s.event && s.event.thread_id === threadId) ||
    (opts.related?.(s.event)?.includes(threadId) ?? false);

  const keep = (s: Stamped) => {
    if (capacity === 0) return;
    if (ring.length < capacity) ring.push(s);
    else {
      ring[oldest] = s;
      oldest = (oldest + 1) % capacity;
    }
  };
  /** The buffered events, oldest first. */
  function* buffered(): Generator<Stamped> {
    for (let i = 0; i < ring.length; i++) yield ring[(oldest + i) % ring.length];
  }

  return {
    get lastSeq() {
      return seq;
    },
    get listenerCount() {
      return listeners.size;
    },
    publish(event) {
      const stamped: Stamped = { seq: ++seq, time: Date.now(), event };
      keep(stamped);
      current ??= [...listeners];
      for (const l of current) {
        if (!matches(l.threadId, stamped)) continue;
        try {
          l.fn(stamped);
        } catch (err) {
          report(err);
        }
      }
      return stamped;
    },
    subscribe(fn, o = {}) {
      let gap = false;
      if (o.since !== undefined) {
        const first = ring.length ? ring[oldest].seq : seq + 1;
        // A gap: events after `since` were dropped from the buffer, or `since` is from a
        // different (restarted) bus and lies ahead of this one.
        gap = (o.since + 1 < first && o.since < seq) || o.since > seq;
        for (const s of buffered()) {
          if (s.seq > o.since && matches(o.threadId, s)) {
            try {
              fn(s);
            } catch (err) {
              report(err);
            }
          }
        }
      }
      const entry = { fn, threadId: o.threadId };
      listeners.add(entry);
      current = undefined;
      return {
        unsubscribe: () => {
          if (listeners.delete(entry)) current = undefined;
        },
        gap,
      };
    },
  };
}
