/** Thread leases in the SQLite store (README "Sandbox and approvals"): take, refuse, release, stale takeover. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, SCHEMA_VERSION, type Store, StoreError } from "./index.js";
import { type Lease, leaseIsStale, leaseMessage } from "./lease.js";

let dir: string;
let path: string;
const open: Store[] = [];

function store(): Store {
  const s = openStore(path);
  open.push(s);
  return s;
}

function withThread(s: Store, id = "t1"): Store {
  s.createThread({
    id,
    session_id: id,
    parent_id: null,
    created_at: 1,
    updated_at: 1,
    cwd: "/w",
    model: "m",
    mode: "default",
    title: "",
    status: "idle",
    settings: {},
  });
  return s;
}

const me = (token: string, since = Date.now()): Lease => ({
  pid: process.pid,
  host: hostname(),
  since,
  token,
});

/** A pid that existed and is gone (the child was reaped). */
function deadPid(): number {
  const r = spawnSync("true");
  return r.pid!;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-lease-"));
  path = join(dir, "state.db");
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("thread leases", () => {
  // fails if a live holder's lease can be taken by another owner, or release ignores the token.
  it("grants a free lease, refuses a live holder, and frees only on the holder's release", () => {
    const a = withThread(store());
    const b = store();
    const held = me("tok-a");
    expect(a.acquireLease("t1", held)).toEqual({ ok: true });
    expect(b.acquireLease("t1", me("tok-b"))).toEqual({ ok: false, holder: held });
    // The holder again (same token) keeps its lease and its `since`.
    expect(a.acquireLease("t1", me("tok-a", held.since + 5))).toEqual({ ok: true });
    expect(b.getLease("t1")).toEqual(held);
    b.releaseLease("t1", "tok-b");
    expect(b.getLease("t1")).toEqual(held);
    a.releaseLease("t1", "tok-a");
    expect(b.getLease("t1")).toBeUndefined();
    expect(b.acquireLease("t1", me("tok-b"))).toEqual({ ok: true });
  });

  // fails if a holder killed with -9 (never released) blocks the thread forever.
  it("takes over a lease whose holder is a dead pid on this host", () => {
    const s = withThread(store());
    const dead: Lease = { pid: deadPid(), host: hostname(), since: Date.now(), token: "dead" };
    expect(leaseIsStale(dead)).toBe(true);
    expect(s.acquireLease("t1", dead)).toEqual({ ok: true });
    const next = me("next");
    expect(s.acquireLease("t1", next)).toEqual({ ok: true });
    expect(s.getLease("t1")).toEqual(next);
  });

  // fails if a pid reused by a newer process keeps a dead holder's lease, or if a holder on
  // another host (whose pid means nothing here) is judged stale.
  it("judges pid reuse stale and never judges another host's holder", () => {
    expect(leaseIsStale(me("old", 1000))).toBe(true); // this process started long after 1970
    expect(leaseIsStale(me("live"))).toBe(false);
    expect(leaseIsStale({ pid: deadPid(), host: `${hostname()}-elsewhere`, since: 1, token: "x" })).toBe(
      false,
    );
  });

  it("names the holder in the refusal message", () => {
    const msg = leaseMessage("t1", { pid: 42, host: "h", since: Date.UTC(2026, 0, 2, 3, 4, 5), token: "x" });
    expect(msg).toBe(
      "thread t1 is in use by pid 42 on host h since 2026-01-02T03:04:05.000Z; wait for it to finish or stop it",
    );
  });

  it("refuses a lease on an unknown thread with not_found", () => {
    let caught: unknown;
    try {
      store().acquireLease("nope", me("x"));
    } catch (e) {
      caught = e;
    }
    expect(StoreError.isInstance(caught) && caught.code).toBe("not_found");
  });

  // fails if the lease table is not added by a migration to a store from the previous schema.
  it("migrates a schema-1 store", () => {
    withThread(store()).close();
    const db = new Database(path);
    // A schema-1 file has neither the lease table nor the later columns (migrations 3 and 4).
    db.exec(
      "DROP TABLE thread_leases; ALTER TABLE threads DROP COLUMN usage; ALTER TABLE turns DROP COLUMN diff",
    );
    db.pragma("user_version = 1");
    db.close();
    const s = store();
    expect(s.acquireLease("t1", me("a"))).toEqual({ ok: true });
    const check = new Database(path, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });
});
