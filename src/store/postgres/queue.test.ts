/**
 * The bridge's two queues against a real PostgreSQL (./bridge.ts `soon` and `later`):
 * - a queued thread or turn write (Store `queued`) is in the database before any later call of
 *   the store returns, and by the end of the loop turn without one; a fenced one rejects, and
 *   the thread's storage (runtime/host.ts) gives the thread up;
 * - queued events wait for the loop turn's end past the hot path's calls (one insert for a
 *   reply's events), but never past a lease changing hands.
 * Skipped where postgres is absent.
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { pgRig, sql } from "../../../test/helpers/pg-rig.js";
import { threadRecord } from "../../../test/helpers/store-records.js";
import { missing } from "../../../test/helpers/system-tools.js";
import { ClusterEventLog } from "../../cluster/events.js";
import type { Stamped } from "../../protocol/events.js";
import type { ResponseItem } from "../../protocol/items.js";
import { storageFor } from "../../runtime/host.js";
import { StoreError } from "../errors.js";
import type { PostgresStore } from "./store.js";

const loopTurn = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));
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

  // fails if a blocking call may overtake queued writes (the read would see the old title and
  // status), or if the queue is only sent at the loop turn's end.
  it("a queued write is in the database before the next call returns", () => {
    const s = open(rig.db("queue_ryw"));
    s.createThread(threadRecord("t"));
    void s.queued.updateThread("t", { title: "queued", status: "running" });
    void s.queued.updateThread("t", { status: "waiting_on_user" });
    expect(s.getThread("t")).toMatchObject({ title: "queued", status: "waiting_on_user" });
  });

  // fails if nothing sends the queue when no call follows (a thread's last status change would
  // stay in memory), or if a queued op's promise never settles.
  it("without a later call, the queue goes at the end of the loop turn and each promise settles", async () => {
    const url = rig.db("queue_idle");
    const s = open(url);
    s.createThread(threadRecord("t"));
    const done = s.queued.updateThread("t", { status: "running" });
    await loopTurn();
    await done;
    expect((await sql(url, "SELECT status FROM threads WHERE id = 't'"))[0].status).toBe("running");
    // A write the store refuses rejects alone; the ones around it land.
    const results = await Promise.allSettled([
      s.queued.updateThread("t", { title: "one" }),
      s.queued.updateThread("no-such-thread", { status: "running" }),
      s.queued.updateThread("t", { mode: "plan" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "not_found" });
    expect(s.getThread("t")).toMatchObject({ title: "one", mode: "plan" });
  });

  // fails if a queued write skips the fence, or if the thread's storage does not give the thread
  // up when its queued status change comes back fenced (runtime/host.ts `late`).
  it("a stale node's queued write is refused as fenced and its thread is given up", async () => {
    const url = rig.db("queue_fenced");
    const a = open(url, "node-a");
    const b = open(url, "node-b");
    a.createThread(threadRecord("t"));
    const deadPid = spawnSync("true").pid!;
    expect(a.acquireLease("t", { pid: deadPid, host: hostname(), since: 1, token: "tok-a" }).ok).toBe(true);
    expect(b.acquireLease("t", { pid: process.pid, host: hostname(), since: 2, token: "tok-b" }).ok).toBe(
      true,
    );
    let fenced = 0;
    const storage = storageFor(a, "t", () => fenced++);
    storage.update({ status: "running", title: "stale" });
    expect(fenced).toBe(0); // not waited for
    await loopTurn();
    await new Promise((r) => setTimeout(r, 50));
    expect(fenced).toBe(1);
    expect(b.getThread("t")).toMatchObject({ status: "idle", title: "" });
    const direct = await a.queued.updateThread("t", { title: "again" }).catch((e) => e);
    expect(StoreError.isInstance(direct) && direct.code).toBe("fenced");
  });

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
