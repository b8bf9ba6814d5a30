/**
 * PostgreSQL leases with fencing (docs/scale-out.md): generations, expiry, and a paused holder
 * (SIGSTOP) that comes back after another node took its thread and cannot write. Real postgres
 * in a temp dir (test/helpers/infra/postgres.ts); skipped with the reason where it is absent.
 */
import { spawn, spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pgClient from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type TestPostgres } from "../../../test/helpers/infra/postgres.js";
import { startProxyProcess } from "../../../test/helpers/infra/proxy.js";
import { threadRecord as record } from "../../../test/helpers/store-records.js";
import { missing } from "../../../test/helpers/system-tools.js";
import { waitUntil } from "../../../test/helpers/wait.js";
import { openStore, type Store, StoreError } from "../index.js";
import type { Lease } from "../lease.js";
import { asPostgresStore } from "./store.js";

const CHILD = fileURLToPath(new URL("../testdata/lease-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const msg = (text: string) => ({
  type: "message" as const,
  role: "user" as const,
  content: [{ type: "input_text" as const, text }],
});
const owner = (token: string, pid = process.pid): Lease => ({
  pid,
  host: hostname(),
  since: Date.now(),
  token,
});

/** What `fn` threw (undefined when it returned). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

function codeOf(fn: () => unknown): string | undefined {
  const e = thrown(fn);
  if (e === undefined) return undefined;
  return StoreError.isInstance(e) ? e.code : String(e);
}

describe.skipIf(missing("postgres").length > 0)("PostgreSQL leases and fencing", () => {
  let pg: TestPostgres;
  let n = 0;
  const open: Store[] = [];
  const store = (url: string, node: string, ttl = 5000) => {
    const s = openStore(url, { node, leaseTtlMs: ttl });
    open.push(s);
    return s;
  };
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  // fails if a takeover does not bump the generation, or a write by the old holder is not
  // checked against it (the old holder would keep appending after losing the thread).
  it("refuses every write of a holder that lost the lease, and says so", () => {
    const url = pg.createDatabase(`fence_${++n}`);
    const a = store(url, "node-a");
    const b = store(url, "node-b");
    a.createThread(record("t1"));
    // A holds the lease under a pid that is gone, so B may take it over at once.
    expect(a.acquireLease("t1", owner("tok-a", spawnSync("true").pid!))).toEqual({ ok: true });
    const genA = a.getLease("t1")!.generation!;
    expect(a.appendItem("t1", null, msg("a1"))).toBe(1);
    expect(b.acquireLease("t1", owner("tok-b"))).toEqual({ ok: true });
    expect(b.getLease("t1")).toMatchObject({ node: "node-b", generation: genA + 1 });
    expect(codeOf(() => a.appendItem("t1", null, msg("a2")))).toBe("fenced");
    expect(codeOf(() => a.updateThread("t1", { title: "a" }))).toBe("fenced");
    expect(
      codeOf(() =>
        a.putTurn({
          id: "u",
          thread_id: "t1",
          started_at: 1,
          ended_at: null,
          status: "running",
          usage: null,
          error: null,
        }),
      ),
    ).toBe("fenced");
    expect(() => a.appendItem("t1", null, msg("a3"))).toThrow(/lost the lease on thread t1/);
    // B writes; nothing of A's refused writes reached the store.
    expect(b.appendItem("t1", null, msg("b1"))).toBe(2);
    expect(b.loadItems("t1").map((i) => (i.item as { content: { text: string }[] }).content[0].text)).toEqual(
      ["a1", "b1"],
    );
    expect(b.getThread("t1")!.title).toBe("");
  });

  // fails if a lease never lapses (a dead node on another host would hold its threads
  // forever) or lapses while its holder renews it.
  it("lapses when not renewed and holds while renewed", async () => {
    const url = pg.createDatabase(`expiry_${++n}`);
    const a = store(url, "node-a", 300);
    const b = store(url, "node-b", 300);
    a.createThread(record("t1"));
    // Another host's holder: its pid means nothing here, only expiry frees it.
    expect(a.acquireLease("t1", { ...owner("tok-a"), host: "elsewhere" })).toEqual({ ok: true });
    // Held across three TTLs: A's worker renews it (its expiry moves on), it never lapses.
    const first = b.getLease("t1")!.expires!;
    await waitUntil(() => {
      const lease = b.getLease("t1")!;
      expect(lease.expired, "the lease lapsed while its holder renewed it").toBe(false);
      return lease.expires! >= first + 3 * 300;
    }, "A's worker to renew the lease across three TTLs");
    expect(b.acquireLease("t1", owner("tok-b")).ok).toBe(false);
    a.close(); // A stops renewing (as if it died)
    await waitUntil(() => b.getLease("t1")?.expired === true, "the unrenewed lease to lapse");
    expect(b.getLease("t1")).toMatchObject({ token: "tok-a", expired: true });
    expect(b.acquireLease("t1", owner("tok-b"))).toEqual({ ok: true });
    // Leased again: not an orphan, even with a pending question (failover looks for these).
    expect(asPostgresStore(b)!.orphanedThreads()).toEqual([]);
  });

  // fails if a store whose connection broke (a database restart, a dropped connection) stays
  // broken: the call that sees the break fails, the next one reconnects.
  it("reopens its connection after the database dropped it", async () => {
    const url = pg.createDatabase(`reconnect_${++n}`);
    const a = store(url, "node-a");
    a.createThread(record("t1"));
    const admin = new pgClient.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'tandem%'",
      );
      const tandemBackends = async () =>
        Number(
          (
            await admin.query(
              "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'tandem%'",
            )
          ).rows[0].n,
        );
      await waitUntil(async () => (await tandemBackends()) === 0, "the store's connection to be dropped");
    } finally {
      await admin.end();
    }
    let first: unknown;
    try {
      a.getThread("t1");
    } catch (e) {
      first = e;
    }
    // The break is noticed by the client or by that call; either way the next call works.
    if (first) expect(StoreError.isInstance(first) && first.code).toBe("unavailable");
    expect(a.getThread("t1")?.id).toBe("t1");
    expect(a.appendItem("t1", null, msg("after"))).toBe(1);
  });

  // The partition test at store level: a holder paused past its lease (SIGSTOP) comes
  // back after another node took the thread; its next write is refused with `fenced`.
  // fails if a paused node's write lands after its lease was taken.
  it("fences a paused holder that comes back after a takeover", async () => {
    const url = pg.createDatabase(`pause_${++n}`);
    const b = store(url, "node-b", 400);
    b.createThread(record("t1"));
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, url, "t1", "400"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const next = async () => (await lines.next()).value as string;
    try {
      expect(await next()).toBe("held");
      child.stdin!.write("before\n");
      expect(await next()).toBe("ok 1");
      child.kill("SIGSTOP");
      await waitUntil(() => b.getLease("t1")?.expired === true, "the paused holder's lease to lapse");
      // The child is alive (pid exists) but silent: only the lapsed lease lets B in.
      expect(b.acquireLease("t1", { ...owner("tok-b"), host: "elsewhere" })).toEqual({ ok: true });
      child.kill("SIGCONT");
      child.stdin!.write("after\n");
      const reply = await next();
      expect(reply).toMatch(/^error fenced .*lost the lease on thread t1/);
      expect(b.countItems("t1")).toBe(1);
    } finally {
      child.kill("SIGKILL");
    }
  });

  // A hand-over (a claiming node asked the owner for the thread): between the owner letting go
  // and the claimer opening the thread, no other node's failover scan may take it.
  // fails if the lease is free in between (a third node takes it and the claimer gets
  // ThreadInUse), the claimer cannot take it, or a reservation never lapses.
  it("a lease handed over is the claimer's alone, and lapses if it never comes", async () => {
    const url = pg.createDatabase(`handover_${++n}`);
    const a = store(url, "node-a", 400);
    const b = store(url, "node-b", 400);
    const c = store(url, "node-c", 400);
    for (const id of ["t1", "t2"]) {
      a.createThread(record(id));
      expect(a.acquireLease(id, { ...owner("tok-a"), host: "elsewhere" })).toEqual({ ok: true });
      a.handOverLease!(id, "tok-a", "node-b");
    }
    expect(asPostgresStore(c)!.orphanedThreads()).toEqual([]);
    expect(c.acquireLease("t1", owner("tok-c")).ok).toBe(false);
    expect(b.acquireLease("t1", owner("tok-b"))).toEqual({ ok: true });
    expect(b.getLease("t1")).toMatchObject({ node: "node-b", token: "tok-b" });
    expect(codeOf(() => a.appendItem("t1", null, msg("late")))).toBe("fenced");
    // B never opens t2: the reservation lapses and anyone may take it.
    await waitUntil(() => c.getLease("t2")?.expired === true, "the unclaimed hand-over to lapse");
    expect(c.acquireLease("t2", owner("tok-c"))).toEqual({ ok: true });
  });

  // Split brain at store level: the database goes silent (a partition, not a reset) while a
  // write is on the wire. The holder must stop trusting its lease before it can lapse, fail the
  // hung write instead of freezing its caller for the whole call timeout, refuse later writes
  // without the database, and stop renewing, so another node takes the thread once it lapses.
  // fails if the hung write waits out the 60 s call timeout, a lease the store stopped
  // confirming is not reported, a write is attempted with it, or it is renewed after the heal.
  it("a holder cut off from the database fences itself before its lease can lapse", async () => {
    const url = pg.createDatabase(`cutoff_${++n}`);
    const proxy = await startProxyProcess(pg.port); // in a child: this thread blocks on it
    try {
      const viaProxy = url.replace(/:\d+\//, `:${proxy.port}/`);
      const a = openStore(viaProxy, { node: "node-a", leaseTtlMs: 3000, timeoutMs: 60_000 });
      open.push(a);
      const b = store(url, "node-b", 3000);
      a.createThread(record("t1"));
      expect(a.acquireLease("t1", { ...owner("tok-a"), host: "elsewhere" })).toEqual({ ok: true });
      expect(a.appendItem("t1", null, msg("before"))).toBe(1);
      await proxy.pause();
      // Hangs on the silent connection until the lease goes unconfirmed; then it is dropped.
      const hung = thrown(() => a.appendItem("t1", null, msg("on the wire")));
      expect(StoreError.isInstance(hung) && hung.code).toBe("unavailable");
      expect((hung as Error).message).toContain("while a lease went unconfirmed");
      // A gave the lease up before it lapsed: B cannot have it yet (so A stopped first).
      expect(b.acquireLease("t1", owner("tok-b")).ok).toBe(false);
      expect(asPostgresStore(a)!.lostLeases()).toEqual([{ thread_id: "t1", unconfirmed: true }]);
      // Refused here, without the database: the message says why.
      const refused = thrown(() => a.appendItem("t1", null, msg("after")));
      expect(StoreError.isInstance(refused) && refused.code).toBe("fenced");
      expect((refused as Error).message).toMatch(
        /lost the lease on thread t1 .*the store did not confirm it/,
      );
      // Other calls fail (the reason given), they do not hang.
      expect(codeOf(() => a.getThread("t1"))).toBe("unavailable");
      await proxy.resume();
      // A no longer renews: the lease lapses and B takes it; A's writes stay refused.
      await waitUntil(() => b.getLease("t1")?.expired === true, "the unrenewed lease to lapse");
      expect(b.acquireLease("t1", owner("tok-b"))).toEqual({ ok: true });
      expect(codeOf(() => a.appendItem("t1", null, msg("late")))).toBe("fenced");
      const texts = b.loadItems("t1").map((i) => (i.item as { content: { text: string }[] }).content[0].text);
      expect(texts).not.toContain("after");
      expect(texts).not.toContain("late");
    } finally {
      await proxy.close();
    }
  });
});
