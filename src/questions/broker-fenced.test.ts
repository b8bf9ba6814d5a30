/**
 * A person's answer the store refuses as `fenced` (another cluster node runs the thread now): the
 * broker must not tell the replier it was recorded. Tandem's own settles (timeouts, cancels) go
 * on from memory as before (a stale copy's turn must still stop).
 */
import { describe, expect, it } from "vitest";
import { StoreError } from "../store/errors.js";
import { never, request, setup, stack, tick, web } from "./broker.testing.js";

const answer = { answers: { stack: { selected: ["Rust"] } } };

function fencedSetup() {
  const s = setup();
  let fenced = false;
  const settle = s.db.store.settleQuestion.bind(s.db.store);
  s.db.store.settleQuestion = (id, outcome) => {
    if (fenced) throw new StoreError("fenced", "settleQuestion: this node lost the lease on thread t1");
    settle(id, outcome);
  };
  return { ...s, fence: () => (fenced = true) };
}

describe("a reply the store refuses because another node runs the thread", () => {
  // fails if the broker settles from memory (and answers ok) when the store refused the write:
  // the replier would be told "answered" while the answer is lost.
  it("is refused as lease_lost, settles nothing and keeps the question waiting", async () => {
    const { broker, db, fence, types } = fencedSetup();
    const r = request({ call: "c1", questions: [stack] });
    let settled = false;
    void broker.ask(r, never()).then(() => (settled = true));
    fence();
    const res = broker.reply("t1", r.request_id, answer, web);
    expect(res).toMatchObject({ ok: false, code: "lease_lost" });
    expect(broker.decline("t1", r.request_id, web)).toMatchObject({ ok: false, code: "lease_lost" });
    await tick();
    expect(settled).toBe(false);
    expect(broker.size).toBe(1);
    expect(db.rows.get(r.request_id)?.outcome).toBeNull();
    expect(types()).toEqual(["question.requested"]);
  });

  // fails if the refusal also blocks Tandem's own settles: an interrupted turn on a stale copy
  // would wait forever for its question.
  it("still lets an abort settle the question", async () => {
    const { broker, fence } = fencedSetup();
    const ac = new AbortController();
    const p = broker.ask(request({ call: "c2", questions: [stack] }), ac.signal);
    fence();
    ac.abort();
    expect(await p).toEqual({ status: "cancelled", reason: "interrupted" });
    expect(broker.size).toBe(0);
  });
});
