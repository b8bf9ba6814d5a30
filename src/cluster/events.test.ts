/**
 * The cluster event log (./events.ts) against a real PostgreSQL: ids, per-thread reads, deltas
 * left out, the gap a resume from before pruned events gets, and events held back (Outbox) until
 * their batch is written. Skipped where postgres is absent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type TestPostgres } from "../../test/helpers/infra/postgres.js";
import { missing } from "../../test/helpers/system-tools.js";
import type { Stamped } from "../protocol/events.js";
import { openStore } from "../store/index.js";
import { asPostgresStore } from "../store/postgres/store.js";
import { ClusterEventLog, Outbox } from "./events.js";

const stamped = (event: Record<string, unknown>, time = Date.now()): Stamped =>
  ({ seq: 0, time, event }) as unknown as Stamped;

describe.skipIf(missing("postgres").length > 0)("ClusterEventLog", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  // fails if deltas are logged, a thread's read includes another thread's events, ids do not
  // follow the order of recording, a fresh log instance does not know the newest id, or a resume
  // from before pruned events gets no gap.
  it("logs events with increasing ids, reads by thread, and reports pruned ranges as a gap", async () => {
    const store = openStore(pg.createDatabase("events_log"), { node: "n1" });
    try {
      const log = new ClusterEventLog(asPostgresStore(store)!);
      const old = Date.now() - 10 * 86_400_000;
      const events = [
        stamped({ type: "turn.started", thread_id: "ta", turn_id: "u" }, old),
        stamped({ type: "agent_message.delta", thread_id: "ta", delta: "x" }),
        stamped({ type: "turn.started", thread_id: "tb", turn_id: "v" }),
        stamped({ type: "turn.completed", thread_id: "ta", turn_id: "u" }),
      ];
      for (const e of events) log.record(e);
      await log.settled();
      const [a1, delta, b1, a2] = events.map((e) => log.idOf(e));
      expect(delta).toBeUndefined();
      expect([a1, b1, a2].every((id) => typeof id === "number")).toBe(true);
      expect(a1! < b1! && b1! < a2!).toBe(true);
      const onA = log.since(0, "ta");
      expect(onA.gap).toBe(false);
      expect(onA.events.map((s) => [s.seq, s.event.type])).toEqual([
        [a1, "turn.started"],
        [a2, "turn.completed"],
      ]);
      expect(log.since(a2!).events).toEqual([]);
      expect(new ClusterEventLog(asPostgresStore(store)!).lastId()).toBe(a2);
      expect(log.prune(86_400_000)).toBe(1); // a1 is ten days old
      expect(log.since(0).gap).toBe(true); // a1 is gone: a resume from 0 missed it
      expect(log.since(a1!).gap).toBe(false);
      expect(log.since(a2! + 5).gap).toBe(true); // an id from another (reset) log
    } finally {
      store.close();
    }
  });

  // fails if an event leaves the node (Outbox) before it is in the store, if a delta overtakes
  // the pending event before it, or if a batch keeps events of a later burst waiting forever.
  it("holds events back until their batch is written, in order, deltas included", async () => {
    const store = openStore(pg.createDatabase("events_outbox"), { node: "n1" });
    try {
      const pgStore = asPostgresStore(store)!;
      const log = new ClusterEventLog(pgStore);
      const out: Array<{ type: string; id: number | undefined; inStore: boolean }> = [];
      const outbox = new Outbox(log, (s) => {
        const id = log.idOf(s);
        const inStore = id !== undefined && pgStore.eventsSince(id - 1, null, 1).events[0]?.id === id;
        out.push({ type: s.event.type, id, inStore });
      });
      const burst = [
        stamped({ type: "item.started", thread_id: "t", item: {} }),
        stamped({ type: "agent_message.delta", thread_id: "t", delta: "x" }),
        stamped({ type: "item.completed", thread_id: "t", item: {} }),
      ];
      for (const s of burst) {
        log.record(s);
        outbox.push(s);
      }
      expect(log.pending(burst[0])).toBe(true);
      expect(out).toEqual([]); // nothing leaves before the write
      const later = stamped({ type: "turn.completed", thread_id: "t", turn_id: "u" });
      await Promise.resolve();
      log.record(later);
      outbox.push(later);
      await log.settled();
      expect(out.map((o) => o.type)).toEqual([
        "item.started",
        "agent_message.delta",
        "item.completed",
        "turn.completed",
      ]);
      expect(out.filter((o) => o.type !== "agent_message.delta").every((o) => o.inStore)).toBe(true);
      expect(out[1].id).toBeUndefined();
      outbox.close();
    } finally {
      store.close();
    }
  });

  // fails if settled() waits for the queue to be empty rather than for what was recorded before
  // it: on a busy node (a batch always in flight) a resuming SSE client would wait forever.
  it("settled() resolves while events keep coming", async () => {
    const store = openStore(pg.createDatabase("events_busy"), { node: "n1" });
    try {
      const log = new ClusterEventLog(asPostgresStore(store)!);
      const LIMIT = 50_000;
      let n = 0;
      const produce = () => {
        if (n >= LIMIT) return;
        log.record(stamped({ type: "turn.started", thread_id: "t", turn_id: `u${n++}` }));
        setImmediate(produce);
      };
      produce();
      await new Promise((r) => setTimeout(r, 50)); // batches in flight back to back
      const first = stamped({ type: "turn.completed", thread_id: "t", turn_id: "x" });
      log.record(first);
      await log.settled();
      expect(log.idOf(first)).toBeTypeOf("number");
      expect(n).toBeLessThan(LIMIT); // resolved while the producer still ran
      n = LIMIT;
      await log.settled();
    } finally {
      store.close();
    }
  });

  // fails if a failed write leaves its events pending (held forever) instead of delivering them
  // without an id, as the contract says.
  it("delivers events without an id when the store cannot write them", async () => {
    const store = openStore(pg.createDatabase("events_down"), { node: "n1" });
    const lines: string[] = [];
    const log = new ClusterEventLog(asPostgresStore(store)!, (l) => lines.push(l));
    const out: Array<number | undefined> = [];
    const outbox = new Outbox(log, (s) => out.push(log.idOf(s)));
    store.close(); // every later call fails: "the store is closed"
    const s = stamped({ type: "turn.started", thread_id: "t", turn_id: "u" });
    log.record(s);
    outbox.push(s);
    await log.settled();
    expect(out).toEqual([undefined]);
    expect(log.pending(s)).toBe(false);
    expect(lines.join("\n")).toMatch(/could not record 1 event/);
  });
});
