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
  const capacity = opts.replay ?? 10_000;
  const ring: Stamped[] = [];
  const listeners = new Set<{ fn: Listener; threadId?: string }>();
  let seq = 0;
  const report =
    opts.onSubscriberError ?? ((err) => process.emitWarning(`event subscriber failed: ${String(err)}`));

  const matches = (threadId: string | undefined, s: Stamped) =>
    !threadId ||
    ("thread_id" in s.event && s.event.thread_id === threadId) ||
    (opts.related?.(s.event)?.includes(threadId) ?? false);

  return {
    get lastSeq() {
      return seq;
    },
    get listenerCount() {
      return listeners.size;
    },
    publish(event) {
      const stamped: Stamped = { seq: ++seq, time: Date.now(), event };
      ring.push(stamped);
      if (ring.length > capacity) ring.splice(0, ring.length - capacity);
      for (const l of [...listeners]) {
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
        const first = ring[0]?.seq ?? seq + 1;
        // A gap: events after `since` were dropped from the buffer, or `since` is from a
        // different (restarted) bus and lies ahead of this one.
        gap = (o.since + 1 < first && o.since < seq) || o.since > seq;
        for (const s of ring) {
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
      return { unsubscribe: () => listeners.delete(entry), gap };
    },
  };
}
