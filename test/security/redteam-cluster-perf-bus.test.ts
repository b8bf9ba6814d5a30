/**
 * Red team, cluster perf changes, item 6: the bus's replay buffer became a ring and the
 * listener snapshot is cached until listeners change (src/util/bus.ts). Differential test
 * against the implementation before the change (copied below, verbatim but for its name):
 * random programs of publishes, subscribes (with and without `since`, ahead of or behind the
 * buffer, with a thread filter and `related`) and unsubscribes, where listeners also act
 * DURING a publish — publish again (nested), subscribe others, unsubscribe others or
 * themselves, throw — must give the same deliveries, in the same order, the same gaps, the
 * same seqs and listener counts, for replay capacities 0 to 5.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Event, Stamped } from "../../src/protocol/events.js";
import { type Bus, type BusOptions, createBus, type Listener } from "../../src/util/bus.js";

/** src/util/bus.ts as of caf57d9f (before the ring and the cached snapshot). */
function createBusBefore(opts: BusOptions = {}): Bus {
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

const THREADS = ["t1", "t2", "child"] as const;
type Action =
  | { kind: "publish"; thread: number }
  | { kind: "subscribe"; spec: number }
  | { kind: "unsubscribe"; spec: number }
  | { kind: "unsubscribeSelf" }
  | { kind: "throw" };
interface Spec {
  thread?: number;
  since?: number;
  /** What the listener does on its n-th delivery (once per subscription). */
  reactions: Array<{ at: number; action: Action }>;
}
type Op =
  | { kind: "publish"; thread: number }
  | { kind: "subscribe"; spec: number }
  | { kind: "unsubscribe"; spec: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant("publish" as const), thread: fc.nat(2) }),
  fc.record({ kind: fc.constant("subscribe" as const), spec: fc.nat(4) }),
  fc.record({ kind: fc.constant("unsubscribe" as const), spec: fc.nat(4) }),
  fc.constant({ kind: "unsubscribeSelf" as const }),
  fc.constant({ kind: "throw" as const }),
);
const specArb: fc.Arbitrary<Spec> = fc.record(
  {
    thread: fc.nat(2),
    since: fc.integer({ min: 0, max: 25 }),
    reactions: fc.array(fc.record({ at: fc.integer({ min: 1, max: 4 }), action: actionArb }), {
      maxLength: 3,
    }),
  },
  { requiredKeys: ["reactions"] },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("publish" as const), thread: fc.nat(2) }),
  fc.record({ kind: fc.constant("subscribe" as const), spec: fc.nat(4) }),
  fc.record({ kind: fc.constant("unsubscribe" as const), spec: fc.nat(4) }),
);

/** Runs `ops` on a bus; returns everything observable, in order. */
function run(make: (o: BusOptions) => Bus, capacity: number, specs: Spec[], ops: Op[]): unknown[] {
  const trace: unknown[] = [];
  const bus = make({
    replay: capacity,
    onSubscriberError: (e) => trace.push(["error", String(e)]),
    // A child's question events belong to t1 too (Q14's `related`).
    related: (e) => ((e as unknown as { thread_id: string }).thread_id === "child" ? ["t1"] : undefined),
  });
  const handles = new Map<number, Array<() => void>>();
  let budget = 40; // publishes in all, so nested publishing ends
  let subscriptions = 30; // and subscriptions (one replaying into another that subscribes…)
  let nextHandle = 0;
  const publish = (thread: number) => {
    if (budget-- <= 0) return;
    const s = bus.publish({
      type: "thread.status_changed",
      thread_id: THREADS[thread],
      status: "idle",
    } as unknown as Event);
    trace.push(["published", s.seq, bus.lastSeq]);
  };
  const subscribe = (specIndex: number) => {
    if (subscriptions-- <= 0) return;
    const spec = specs[specIndex];
    const h = nextHandle++;
    let deliveries = 0;
    let off = () => {};
    const fn = (s: Stamped) => {
      deliveries++;
      trace.push(["got", h, s.seq, (s.event as unknown as { thread_id: string }).thread_id]);
      for (const r of spec.reactions) if (r.at === deliveries) act(r.action, off);
    };
    const opts = {
      ...(spec.thread !== undefined ? { threadId: THREADS[spec.thread] } : {}),
      ...(spec.since !== undefined ? { since: spec.since } : {}),
    };
    const sub = bus.subscribe(fn, opts);
    off = sub.unsubscribe;
    trace.push(["subscribed", h, sub.gap, bus.listenerCount]);
    const list = handles.get(specIndex) ?? [];
    list.push(sub.unsubscribe);
    handles.set(specIndex, list);
  };
  const unsubscribe = (specIndex: number) => {
    handles.get(specIndex)?.pop()?.();
    trace.push(["unsubscribed", specIndex, bus.listenerCount]);
  };
  const act = (a: Action, self: () => void) => {
    if (a.kind === "publish") publish(a.thread);
    else if (a.kind === "subscribe") subscribe(a.spec);
    else if (a.kind === "unsubscribe") unsubscribe(a.spec);
    else if (a.kind === "unsubscribeSelf") {
      self();
      self(); // twice: a second unsubscribe is a no-op
      trace.push(["self-off", bus.listenerCount]);
    } else throw new Error("listener failed");
  };
  for (const op of ops) {
    if (op.kind === "publish") publish(op.thread);
    else if (op.kind === "subscribe") subscribe(op.spec);
    else unsubscribe(op.spec);
  }
  trace.push(["end", bus.lastSeq, bus.listenerCount]);
  return trace;
}

describe("red team: the bus ring and cached listener snapshot behave as before", () => {
  // HELD if it passes: same observable behaviour as the array-and-copy implementation.
  it("random programs with re-entrant listeners: same trace as the old bus", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.array(specArb, { minLength: 5, maxLength: 5 }),
        fc.array(opArb, { maxLength: 30 }),
        (capacity, specs, ops) => {
          expect(run(createBus, capacity, specs, ops)).toEqual(run(createBusBefore, capacity, specs, ops));
        },
      ),
      { numRuns: 3000 },
    );
  });

  // Targeted: capacity 1, a resume from exactly the buffered seq, one before it, and ahead.
  it("capacity 1: since = last, last-1, last+1 and 0", () => {
    for (const make of [createBus, createBusBefore]) {
      const bus = make({ replay: 1 });
      for (let i = 0; i < 5; i++) bus.publish({ type: "x", thread_id: "t" } as unknown as Event);
      const got = (since: number) => {
        const seen: number[] = [];
        const s = bus.subscribe((e) => seen.push(e.seq), { since });
        s.unsubscribe();
        return { seen, gap: s.gap };
      };
      expect([got(5), got(4), got(3), got(6), got(0)]).toEqual([
        { seen: [], gap: false },
        { seen: [5], gap: false },
        { seen: [5], gap: true },
        { seen: [], gap: true },
        { seen: [5], gap: true },
      ]);
    }
  });
});
