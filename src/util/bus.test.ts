/**
 * The in-process bus (./bus.ts): delivery order and isolation, the replay ring (compared with a
 * plain array that drops its oldest), the gap a resume from too far back gets, and who a
 * publish reaches while listeners come and go.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Event, Stamped } from "../protocol/events.js";
import { createBus } from "./bus.js";

const ev = (thread: string, n = 0) =>
  ({ type: "thread.status_changed", thread_id: thread, status: "idle", n }) as unknown as Event;

describe("bus", () => {
  // fails if the ring replays other events than the newest `capacity` ones, in order, or if the
  // gap it reports differs from a plain bounded array's.
  it("replays what a bounded array would hold, and reports the same gaps", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 30 }),
        (capacity, n, since) => {
          const bus = createBus({ replay: capacity });
          const model: number[] = [];
          for (let i = 1; i <= n; i++) {
            bus.publish(ev("t", i));
            model.push(i);
            if (model.length > capacity) model.shift();
          }
          const got: number[] = [];
          const sub = bus.subscribe((s) => got.push(s.seq), { since });
          const first = model[0] ?? n + 1;
          expect(got).toEqual(model.filter((seq) => seq > since));
          expect(sub.gap).toBe((since + 1 < first && since < n) || since > n);
        },
      ),
    );
  });

  // fails if a listener that throws stops the others or reaches the publisher, or if a thread
  // filter lets another thread's event through (unless `related` names the thread).
  it("delivers in order to every matching listener, whatever one of them throws", () => {
    const errors: unknown[] = [];
    const bus = createBus({
      onSubscriberError: (e) => errors.push(e),
      related: (e) => ((e as unknown as { n: number }).n === 9 ? ["root"] : undefined),
    });
    const all: number[] = [];
    const root: number[] = [];
    bus.subscribe(() => {
      throw new Error("boom");
    });
    bus.subscribe((s) => all.push(s.seq));
    bus.subscribe((s) => root.push(s.seq), { threadId: "root" });
    bus.publish(ev("root"));
    bus.publish(ev("child"));
    bus.publish(ev("child", 9));
    expect(all).toEqual([1, 2, 3]);
    expect(root).toEqual([1, 3]);
    expect(errors).toHaveLength(3);
  });

  // fails if a listener subscribed during a publish also gets that event (it would see it twice:
  // once replayed, once live) or if one unsubscribed during a publish misses the rest of it.
  it("a publish reaches the listeners subscribed when it began", () => {
    const bus = createBus();
    const late: number[] = [];
    const second: number[] = [];
    let off: (() => void) | undefined;
    bus.subscribe((s: Stamped) => {
      if (s.seq === 1) bus.subscribe((t) => late.push(t.seq), { since: 0 });
      off?.();
    });
    off = bus.subscribe((s) => second.push(s.seq)).unsubscribe;
    bus.publish(ev("t"));
    bus.publish(ev("t"));
    expect(late).toEqual([1, 2]); // 1 replayed at subscribe, 2 live; never 1 twice
    expect(second).toEqual([1]); // removed during the first publish, which still reached it
    expect(bus.listenerCount).toBe(2);
  });
});
