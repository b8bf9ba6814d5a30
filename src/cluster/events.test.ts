/**
 * The cluster event log (./events.ts) against a real PostgreSQL: ids, per-thread reads, deltas
 * left out, and the gap a resume from before pruned events gets. Skipped where postgres is absent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type TestPostgres } from "../../test/helpers/infra/postgres.js";
import { missing } from "../../test/helpers/system-tools.js";
import type { Stamped } from "../protocol/events.js";
import { openStore } from "../store/index.js";
import { asPostgresStore } from "../store/postgres/store.js";
import { ClusterEventLog } from "./events.js";

const stamped = (event: Record<string, unknown>, time = Date.now()): Stamped =>
  ({ seq: 0, time, event }) as unknown as Stamped;

describe.skipIf(missing("postgres").length > 0)("ClusterEventLog", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  // fails if deltas are logged, a thread's read includes another thread's events, ids are not
  // increasing, a fresh log instance does not know the newest id, or a resume from before
  // pruned events gets no gap.
  it("logs events with increasing ids, reads by thread, and reports pruned ranges as a gap", () => {
    const store = openStore(pg.createDatabase("events_log"), { node: "n1" });
    try {
      const log = new ClusterEventLog(asPostgresStore(store)!);
      const old = Date.now() - 10 * 86_400_000;
      const a1 = log.record(stamped({ type: "turn.started", thread_id: "ta", turn_id: "u" }, old));
      const delta = log.record(stamped({ type: "agent_message.delta", thread_id: "ta", delta: "x" }));
      const b1 = log.record(stamped({ type: "turn.started", thread_id: "tb", turn_id: "v" }));
      const a2 = log.record(stamped({ type: "turn.completed", thread_id: "ta", turn_id: "u" }));
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
});
