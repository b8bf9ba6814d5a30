/**
 * The bridge's queue against a real PostgreSQL (./bridge.ts `later`): queued events wait for
 * the loop turn's end past the hot path's calls (one insert for a reply's events), but never
 * past a lease changing hands.
 * Skipped where postgres is absent.
 */
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { pgRig, sql } from "../../../test/helpers/pg-rig.js";
import { threadRecord } from "../../../test/helpers/store-records.js";
import { missing } from "../../../test/helpers/system-tools.js";
import { ClusterEventLog } from "../../cluster/events.js";
import type { Stamped } from "../../protocol/events.js";
import type { ResponseItem } from "../../protocol/items.js";
import type { PostgresStore } from "./store.js";

const ev = (n: number): Stamped =>
  ({
    seq: n,
    time: n,
    event: { type: "turn.started", thread_id: "t", turn_id: `u${n}` },
  }) as unknown as Stamped;
const msg: ResponseItem = { type: "message", role: "user", content: [{ type: "input_text", text: "x" }] };

describe.skipIf(missing("postgres").length > 0)("the PostgreSQL bridge's queues", () => {
  const rig = pgRig();
  const open = (url: string, node = "node-a") => rig.store(url, node) as PostgresStore;

  // fails if every call flushes the event queue first (a reply's events would take one insert
  // per store call again), or if the queue may overtake a lease change (a hand-over after an
  // event must reach the database after that event: red team, docs/scale-out.md).
  it("queued events wait past the hot path's calls, not past a lease handed over", async () => {
    const url = rig.db("queue_events");
    const s = open(url);
    s.createThread(threadRecord("t"));
    expect(s.acquireLease("t", { pid: process.pid, host: hostname(), since: 1, token: "tok" }).ok).toBe(true);
    const log = new ClusterEventLog(s);
    const first = [ev(1), ev(2), ev(3)];
    log.record(first[0]);
    s.getThread("t");
    log.record(first[1]);
    s.appendItem("t", null, msg);
    log.record(first[2]);
    s.getLease("t");
    await log.settled();
    const xmin = async (ids: number[]) =>
      (await sql(url, "SELECT xmin::text::bigint AS x FROM events WHERE seq = ANY($1)", [ids])).map((r) =>
        Number(r.x),
      );
    const ids = first.map((e) => log.idOf(e)!);
    expect(new Set(await xmin(ids)).size).toBe(1); // one statement
    const before = ev(4);
    log.record(before);
    s.handOverLease("t", "tok", "node-b");
    await log.settled();
    const [evX] = await xmin([log.idOf(before)!]);
    const [lease] = await sql(url, "SELECT xmin::text::bigint AS x FROM thread_leases WHERE thread_id = 't'");
    expect(Number(lease.x)).toBeGreaterThan(evX);
  });
});
