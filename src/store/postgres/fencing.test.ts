/**
 * Fencing of each question and turn write (docs/scale-out.md, "A node is cut off"): after
 * another node took a thread, the stale holder's FIRST write is refused by the generation
 * compare in the statement itself, not by an earlier refusal (once one write is refused, the
 * worker refuses the rest up front, so each write gets a thread of its own here). Real
 * postgres in a temp dir; skipped with the reason where it is absent.
 *
 * The leases live for a minute: the stale holder's renewal (every fifth of the TTL) must not
 * run between the takeover and the write, or it would mark the lease lost first and the
 * refusal would not come from the compare under test.
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type TestPostgres } from "../../../test/helpers/infra/postgres.js";
import { pendingQuestion as question, threadRecord as record } from "../../../test/helpers/store-records.js";
import { missing } from "../../../test/helpers/system-tools.js";
import { openStore, type Store, StoreError } from "../index.js";

const TTL = 60_000;

/** The StoreError code `fn` threw, and its message; undefined code when it returned. */
function refusal(fn: () => unknown): { code?: string; message?: string } {
  try {
    fn();
    return {};
  } catch (e) {
    return StoreError.isInstance(e) ? { code: e.code, message: e.message } : { message: String(e) };
  }
}

describe.skipIf(missing("postgres").length > 0)("PostgreSQL fencing of each write", () => {
  let pg: TestPostgres;
  let a: Store;
  let b: Store;
  let n = 0;
  const open: Store[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  /**
   * Node A leases thread `id` (under a pid that is gone, so B may take it at once), stores a
   * running turn and a pending question; then node B takes the lease. A has not noticed.
   */
  function takenFromA(id: string) {
    const url = pg.createDatabase(`fence_write_${++n}`);
    a = openStore(url, { node: "node-a", leaseTtlMs: TTL });
    b = openStore(url, { node: "node-b", leaseTtlMs: TTL });
    open.push(a, b);
    a.createThread(record(id));
    const deadPid = spawnSync("true").pid!;
    expect(a.acquireLease(id, { pid: deadPid, host: hostname(), since: 1, token: "tok-a" })).toEqual({
      ok: true,
    });
    a.putTurn({
      id: "u1",
      thread_id: id,
      started_at: 1,
      ended_at: null,
      status: "running",
      usage: null,
      error: null,
    });
    a.saveQuestion(question("q1", id));
    const before = a.getLease(id)!.generation!;
    expect(b.acquireLease(id, { pid: process.pid, host: hostname(), since: 2, token: "tok-b" })).toEqual({
      ok: true,
    });
    expect(b.getLease(id)).toMatchObject({ node: "node-b", generation: before + 1 });
  }

  // fails if updateTurn does not compare the lease generation (checkFence in ops.ts): the stale
  // node would mark the new owner's running turn finished.
  it("refuses a stale node's updateTurn as its first write", () => {
    takenFromA("t-turn");
    const r = refusal(() => a.updateTurn("u1", { status: "completed", ended_at: 9 }));
    expect(r.code).toBe("fenced");
    expect(r.message).toMatch(/updateTurn: this node lost the lease on thread t-turn/);
    expect(b.listTurns("t-turn")[0]).toMatchObject({ status: "running", ended_at: null });
  });

  // fails if settleQuestion does not compare the lease generation: the stale node would settle
  // a question the new owner re-asked (first answer wins, so the new owner's answer is lost).
  it("refuses a stale node's settleQuestion as its first write", () => {
    takenFromA("t-settle");
    const r = refusal(() => a.settleQuestion("q1", { status: "cancelled", reason: "stale" }));
    expect(r.code).toBe("fenced");
    expect(r.message).toMatch(/settleQuestion: this node lost the lease on thread t-settle/);
    expect(b.getQuestion("q1")!.outcome).toBeNull();
  });

  // fails if saveQuestion does not compare the lease generation (the `lease_generation = $7` of
  // its INSERT): the stale node would add a question to a thread it no longer runs.
  it("refuses a stale node's saveQuestion of a new question as its first write", () => {
    takenFromA("t-save");
    const r = refusal(() => a.saveQuestion(question("q2", "t-save")));
    expect(r.code).toBe("fenced");
    expect(r.message).toMatch(/saveQuestion: this node lost the lease on thread t-save/);
    expect(b.getQuestion("q2")).toBeUndefined();
    expect(b.pendingQuestions("t-save").map((q) => q.request_id)).toEqual(["q1"]);
  });

  // fails if saveQuestion of an already stored question skips the fence (its ON CONFLICT path,
  // checkFence): the stale node would be told its save landed.
  it("refuses a stale node's re-save of a stored question as its first write", () => {
    takenFromA("t-resave");
    expect(refusal(() => a.saveQuestion(question("q1", "t-resave"))).code).toBe("fenced");
  });

  // fails if updateQuestionDeadline does not compare the lease generation: the stale node would
  // move the deadline of a question the new owner now times.
  it("refuses a stale node's updateQuestionDeadline as its first write", () => {
    takenFromA("t-deadline");
    const r = refusal(() => a.updateQuestionDeadline("q1", 123_456));
    expect(r.code).toBe("fenced");
    expect(r.message).toMatch(/updateQuestionDeadline: this node lost the lease on thread t-deadline/);
    expect(b.getQuestion("q1")!.request.deadline).toBe(5000);
  });

  // The new owner's writes pass the same checks: the fence refuses the stale node only.
  // fails if the compare refuses the current holder (a takeover would leave nobody able to write).
  it("lets the new owner make each of those writes", () => {
    takenFromA("t-owner");
    b.updateTurn("u1", { status: "completed", ended_at: 9 });
    b.updateQuestionDeadline("q1", 7000);
    b.saveQuestion(question("q3", "t-owner"));
    b.settleQuestion("q1", { status: "cancelled", reason: "done" });
    expect(b.listTurns("t-owner")[0].status).toBe("completed");
    expect(b.getQuestion("q1")).toMatchObject({
      request: { deadline: 7000 },
      outcome: { status: "cancelled" },
    });
    expect(b.getQuestion("q3")?.outcome).toBeNull();
  });
});
