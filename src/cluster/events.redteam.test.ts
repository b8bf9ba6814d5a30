/**
 * Red team, cluster perf changes, item 1, unit level: ClusterEventLog's write queue and Outbox
 * (./events.ts) against a store whose writes the test completes or fails one by one, in any
 * interleaving: ids follow the order of recording, an event leaves (Outbox) only once it and
 * everything before it settled, a failed batch delivers its events without an id in their
 * place, `settled()` waits for exactly what was recorded before it, and `close()` stops delivery.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Stamped } from "../protocol/events.js";
import type { PostgresStore } from "../store/postgres/store.js";
import { ClusterEventLog, Outbox } from "./events.js";

type Row = [string | null, string[] | null, number, string];

/**
 * A store whose event writes wait until the test settles them (ok or failed), in order: the
 * events of one task form one call, as the PostgreSQL store's queue (bridge.ts `later`) sends them.
 */
function fakeStore() {
  let next = 1;
  const calls: Array<{ rows: Row[]; resolve(ids: number[]): void; reject(e: Error): void }> = [];
  const written: Array<{ id: number; stamped: string }> = [];
  let batch: { rows: Row[]; items: Array<{ resolve(id: number): void; reject(e: Error): void }> } | undefined;
  const store = {
    appendEvent(row: Row) {
      return new Promise<number>((resolve, reject) => {
        if (!batch) {
          const b = {
            rows: [] as Row[],
            items: [] as Array<{ resolve(id: number): void; reject(e: Error): void }>,
          };
          batch = b;
          queueMicrotask(() => {
            batch = undefined;
            calls.push({
              rows: b.rows,
              resolve: (ids) => {
                for (const [i, x] of b.items.entries()) x.resolve(ids[i]);
              },
              reject: (e) => {
                for (const x of b.items) x.reject(e);
              },
            });
          });
        }
        batch.rows.push(row);
        batch.items.push({ resolve, reject });
      });
    },
    eventsSince: () => ({ events: [], first: null, last: 0 }),
    pruneEvents: () => 0,
  };
  return {
    store: store as unknown as PostgresStore,
    calls,
    written,
    /** Settles the oldest unsettled call. */
    settleNext(ok: boolean) {
      const c = calls.shift();
      if (!c) return false;
      if (!ok) c.reject(new Error("write failed"));
      else {
        const ids = c.rows.map((r) => {
          const id = next++;
          written.push({ id, stamped: r[3] });
          return id;
        });
        c.resolve(ids);
      }
      return true;
    },
  };
}

const ev = (n: number, type = "turn.started"): Stamped =>
  ({ seq: 0, time: n, event: { type, thread_id: "t", turn_id: `u${n}` } }) as unknown as Stamped;
const flush = () => new Promise((r) => setImmediate(r));

describe("red team: ClusterEventLog + Outbox under any interleaving", () => {
  // HELD if it passes.
  it("order, ids, failures in place, settled() and close, for random schedules", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ k: fc.constant("record" as const), delta: fc.boolean(), remote: fc.boolean() }),
            fc.record({ k: fc.constant("settle" as const), ok: fc.boolean() }),
            fc.constant({ k: "tick" as const }),
            fc.constant({ k: "settled?" as const }),
          ),
          { maxLength: 40 },
        ),
        async (steps) => {
          const f = fakeStore();
          const log = new ClusterEventLog(f.store);
          const out: Array<{ n: number; id: number | undefined }> = [];
          const outbox = new Outbox(log, (s) => out.push({ n: s.time, id: log.idOf(s) }));
          const pushed: Stamped[] = [];
          const failed = new Set<number>();
          const waits: Array<{ upTo: number[]; done: boolean }> = [];
          let n = 0;
          for (const step of steps) {
            if (step.k === "record") {
              const s = ev(++n, step.delta ? "agent_message.delta" : "turn.started");
              if (step.remote)
                log.adopt(s, 1_000_000 + n); // another node's event: not pending
              else log.record(s);
              pushed.push(s);
              outbox.push(s);
            } else if (step.k === "settle") {
              const batch = f.calls[0]?.rows.map((r) => JSON.parse(r[3]).time as number) ?? [];
              if (f.settleNext(step.ok) && !step.ok) for (const t of batch) failed.add(t);
              await flush();
            } else if (step.k === "tick") await flush();
            else {
              const w = { upTo: pushed.map((s) => s.time), done: false };
              void log.settled().then(() => {
                w.done = true;
              });
              waits.push(w);
            }
            // Delivered in push order, a prefix of what was pushed.
            expect(out.map((o) => o.n)).toEqual(pushed.slice(0, out.length).map((s) => s.time));
            // Nothing leaves before it settled: a local, logged event has its id or failed.
            for (const o of out) {
              const s = pushed[o.n - 1];
              const local = o.id === undefined || o.id < 1_000_000;
              if (local && s.event.type !== "agent_message.delta")
                expect(o.id !== undefined || failed.has(o.n), `event ${o.n} left before its write`).toBe(
                  true,
                );
            }
            // A resolved settled() means every local logged event before it is written or failed.
            for (const w of waits)
              if (w.done)
                for (const t of w.upTo) {
                  const s = pushed[t - 1];
                  if (s.event.type === "agent_message.delta" || (log.idOf(s) ?? 0) >= 1_000_000) continue;
                  expect(log.pending(s), `settled() resolved with event ${t} pending`).toBe(false);
                }
          }
          // Drain everything: all is delivered, ids ascend in recording order among written ones.
          const drainAll = async () => {
            for (await flush(); f.calls.length; await flush()) f.settleNext(true);
          };
          await drainAll();
          await log.settled();
          expect(out.map((o) => o.n)).toEqual(pushed.map((s) => s.time));
          const localIds = out.filter((o) => o.id !== undefined && o.id < 1_000_000).map((o) => o.id!);
          expect(localIds).toEqual([...localIds].sort((x, y) => x - y));
          for (const w of waits) expect(w.done).toBe(true);
          // Every written row is the event that got its id.
          for (const o of out.filter((x) => x.id !== undefined && x.id < 1_000_000))
            expect(JSON.parse(f.written.find((w) => w.id === o.id)!.stamped).time).toBe(o.n);
          outbox.close();
          const after = ev(++n);
          log.record(after);
          outbox.push(after);
          await drainAll();
          expect(out.some((o) => o.n === after.time)).toBe(false); // closed: delivers nothing more
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 300), ...(process.env.DBG ? { verbose: 2, timeout: 2000 } : {}) },
    );
  });
});
