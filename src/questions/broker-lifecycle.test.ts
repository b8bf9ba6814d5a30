import { describe, expect, it } from "vitest";
import type { Event } from "../protocol/events.js";
import { type QuestionOutcome, type QuestionPolicy, REDACTED } from "../protocol/questions.js";
import { createBus } from "../util/bus.js";
import { createBroker } from "./broker.js";

// ---------------------------------------------------------------------------------------------
// Fixtures: an in-memory fake of the store subset the broker uses, and a few questions.
// ---------------------------------------------------------------------------------------------

import {
  countingSignal,
  fakeStore,
  name,
  never,
  request,
  setup,
  stack,
  tick,
  token,
  tui,
  web,
} from "./broker.testing.js";

describe("cancellation (Q8) and pause accounting (Q9)", () => {
  it("abort settles as cancelled (interrupted) promptly; every settle removes its abort listener", async () => {
    const { broker, types } = setup();
    const first = countingSignal();
    const r = request({ call: "c1" });
    const p = broker.ask(r, first.signal);
    expect(first.live()).toBe(1);
    first.abort();
    expect(await p).toEqual({ status: "cancelled", reason: "interrupted" });
    expect(types()).toEqual(["question.requested", "question.cancelled"]);
    expect(first.live()).toBe(0);
    expect(broker.size).toBe(0);

    const second = countingSignal();
    const q = request({ call: "c2" });
    const p2 = broker.ask(q, second.signal);
    broker.decline("t1", q.request_id, tui);
    await p2;
    expect(second.live()).toBe(0);
  });

  it("an already-aborted signal resolves cancelled without showing the question", async () => {
    const { broker, events, db } = setup();
    const ac = new AbortController();
    ac.abort();
    const r = request({ call: "c1" });
    expect(await broker.ask(r, ac.signal)).toEqual({ status: "cancelled", reason: "interrupted" });
    expect(events).toEqual([]);
    expect(db.rows.size).toBe(0);
    expect(
      broker.reply("t1", r.request_id, { answers: { stack: { selected: ["Rust"] } } }, web),
    ).toMatchObject({
      code: "cancelled",
    });
  });

  it("cancelAll scopes by thread, turn or all, and reports how many it settled", async () => {
    const { broker, events } = setup();
    const ps = [
      broker.ask(request({ thread: "a", turn: "x", call: "1" }), never()),
      broker.ask(request({ thread: "a", turn: "y", call: "2" }), never()),
      broker.ask(request({ thread: "b", turn: "z", call: "3" }), never()),
      broker.ask(request({ thread: "c", turn: "w", call: "4" }), never()),
    ];
    expect(broker.cancelAll({ threadId: "a", turnId: "y" }, "interrupted")).toBe(1);
    expect(broker.cancelAll({ threadId: "a" }, "thread closed")).toBe(1);
    expect(broker.cancelAll({ threadId: "a" }, "again")).toBe(0);
    expect(broker.cancelAll({ turnId: "z" }, "interrupted")).toBe(1);
    expect(broker.cancelAll("all", "shutdown")).toBe(1);
    expect((await Promise.all(ps)).map((o) => o.status === "cancelled" && o.reason)).toEqual([
      "thread closed",
      "interrupted",
      "interrupted",
      "shutdown",
    ]);
    expect(events.filter((e) => e.type === "question.cancelled")).toHaveLength(4);
    expect(broker.size).toBe(0);
  });

  it("reports every change of a thread's pending count", async () => {
    const { broker, pending } = setup();
    const r1 = request({ call: "c1" });
    const r2 = request({ call: "c2" });
    const p = [
      broker.ask(r1, never()),
      broker.ask(r2, never()),
      broker.ask(request({ thread: "t2", call: "c3" }), never()),
    ];
    broker.decline("t1", r2.request_id, tui);
    broker.cancelAll("all", "shutdown");
    await Promise.all(p);
    expect(pending).toEqual([
      ["t1", 1],
      ["t1", 2],
      ["t2", 1],
      ["t1", 1],
      ["t1", 0],
      ["t2", 0],
    ]);
  });
});

describe("secrets (Q10)", () => {
  it("gives the asker the real value but never publishes, persists or returns it", async () => {
    const { broker, events, db } = setup();
    const secret = "sk-live-1234567890";
    const r = request({ call: "c1", questions: [token, name] });
    const p = broker.ask(r, never());
    const reply = {
      answers: {
        token: { selected: [], other: secret, note: `${secret}!` },
        name: { selected: [], other: "n" },
      },
    };
    const res = broker.reply("t1", r.request_id, reply, web);
    const dup = broker.reply("t1", r.request_id, structuredClone(reply), tui);
    const outcome = await p;
    expect(outcome).toMatchObject({ answers: { token: { other: secret } } });
    expect(res).toMatchObject({
      ok: true,
      outcome: { answers: { token: { other: REDACTED, note: REDACTED } } },
    });
    expect(dup).toMatchObject({ ok: true, duplicate: true });
    const leaked = JSON.stringify({ events, calls: db.calls, rows: [...db.rows.values()], res, dup });
    expect(leaked).not.toContain(secret);
    expect(leaked).toContain(REDACTED);
    expect(JSON.stringify(broker.list())).not.toContain(secret);
  });
});

describe("persistence (Q11)", () => {
  // Fails if question.requested is published before the row is saved, if the stored outcome
  // carries the secret instead of REDACTED, or if a touch does not move the stored deadline.
  it("persists before publishing, settles with the redacted outcome, records touches", async () => {
    const db = fakeStore();
    const bus = createBus();
    const events: Event[] = [];
    bus.subscribe((s) => events.push(s.event));
    const publishedAtSave: string[][] = [];
    const save = db.store.saveQuestion.bind(db.store);
    db.store.saveQuestion = (r) => {
      publishedAtSave.push(events.map((e) => e.type));
      save(r);
    };
    const broker = createBroker({ bus, store: db.store });
    const SECRET = "sk-persist-77c1e0a4";
    const r = request({
      call: "c1",
      questions: [stack, token],
      policy: { type: "timeout", ms: 60_000, on_timeout: "empty" },
    });
    const p = broker.ask(r, never());
    expect(publishedAtSave).toEqual([[]]);
    expect(events.map((e) => e.type)).toEqual(["question.requested"]);
    const firstDeadline = db.rows.get(r.request_id)!.request.deadline!;
    await new Promise((res) => setTimeout(res, 5));
    broker.touch(r.request_id);
    expect(db.rows.get(r.request_id)!.request.deadline!).toBeGreaterThan(firstDeadline);
    broker.reply(
      "t1",
      r.request_id,
      { answers: { stack: { selected: ["Rust"] }, token: { selected: [], other: SECRET } } },
      web,
    );
    await p;
    expect(db.calls.map((c) => c.op)).toEqual(["saveQuestion", "updateQuestionDeadline", "settleQuestion"]);
    const settled = db.calls[2].args[1] as QuestionOutcome;
    expect(settled).toMatchObject({
      status: "answered",
      answers: { stack: { selected: ["Rust"] }, token: { other: REDACTED } },
    });
    expect(JSON.stringify(db.calls)).not.toContain(SECRET);
    expect(JSON.stringify(db.rows.get(r.request_id))).not.toContain(SECRET);
  });

  it("a re-ask after restart keeps created_at and deadline, adds no row, and a late answer completes it", async () => {
    const db = fakeStore();
    const policy: QuestionPolicy = { type: "timeout", ms: 3_600_000, on_timeout: "empty" };
    const before = createBroker({ bus: createBus(), store: db.store });
    const original = request({ call: "c1", policy, at: Date.now() - 1_000 });
    before.ask(original, never());
    const saved = db.rows.get(original.request_id)!.request;

    const { broker, events } = setup({ store: db.store });
    expect(
      broker.reply("t1", original.request_id, { answers: { stack: { selected: ["Rust"] } } }, web),
    ).toMatchObject({
      ok: false,
      code: "unknown_request",
      message: expect.stringContaining("resume thread t1"),
    });
    const p = broker.ask({ ...original, created_at: Date.now() }, never());
    expect(events[0]).toMatchObject({ request: { created_at: saved.created_at, deadline: saved.deadline } });
    expect(db.calls.filter((c) => c.op === "saveQuestion")).toHaveLength(1);
    expect(
      broker.reply("t1", original.request_id, { answers: { stack: { selected: ["Rust"] } } }, web).ok,
    ).toBe(true);
    expect((await p).status).toBe("answered");
    before.cancelAll("all", "old process");
  });

  it("cancelAll with persist:false (shutdown) resolves the ask but leaves the row pending for re-ask", async () => {
    const { broker, db, types } = setup();
    const r = request({ call: "c1" });
    const p = broker.ask(r, never());
    expect(broker.cancelAll("all", "shutdown", { persist: false })).toBe(1);
    expect(await p).toEqual({ status: "cancelled", reason: "shutdown" });
    expect(types()).toEqual(["question.requested", "question.cancelled"]);
    expect(db.rows.get(r.request_id)?.outcome).toBeNull();
    expect(db.store.pendingQuestions("t1").map((q) => q.request_id)).toEqual([r.request_id]);

    const next = setup({ store: db.store });
    const again = next.broker.ask(r, never());
    expect(next.broker.decline("t1", r.request_id, tui).ok).toBe(true);
    expect((await again).status).toBe("declined");
  });

  it("a re-ask whose stored deadline already passed times out at once", async () => {
    const db = fakeStore();
    const r = request({
      call: "c1",
      policy: { type: "timeout", ms: 10, on_timeout: "empty" },
      at: Date.now() - 5_000,
    });
    db.rows.set(r.request_id, { request: { ...r, deadline: r.created_at + 10 }, outcome: null });
    const { broker, types } = setup({ store: db.store });
    expect((await broker.ask(r, never())).status).toBe("timed_out");
    expect(types()).toEqual(["question.requested", "question.timed_out"]);
  });

  it("falls back to the store for settled ids the LRU forgot; never revives them", async () => {
    const { broker, db, events } = setup({ settledCapacity: 1 });
    const a = request({ call: "a" });
    const b = request({ call: "b" });
    const reply = { answers: { stack: { selected: ["Rust"] } } };
    const pa = broker.ask(a, never());
    broker.reply("t1", a.request_id, reply, web);
    const pb = broker.ask(b, never());
    broker.decline("t1", b.request_id, web);
    await Promise.all([pa, pb]);
    expect(broker.reply("t1", a.request_id, reply, tui)).toMatchObject({ ok: true, duplicate: true });
    expect(
      broker.reply("t1", a.request_id, { answers: { stack: { selected: [], other: "Go" } } }, tui),
    ).toMatchObject({
      code: "already_settled",
    });
    expect(broker.reply("t9", a.request_id, reply, tui)).toMatchObject({ code: "wrong_thread" });
    const n = events.length;
    expect(await broker.ask(a, never())).toMatchObject({ status: "answered", responder: web });
    expect(events.length).toBe(n);
    expect(db.calls.filter((c) => c.op === "saveQuestion")).toHaveLength(2);
  });

  it("forgets settled ids beyond the LRU bound when there is no store", async () => {
    const { broker } = setup({ store: undefined, settledCapacity: 2 });
    const rs = ["a", "b", "c"].map((call) => request({ call }));
    for (const r of rs) {
      const p = broker.ask(r, never());
      broker.decline("t1", r.request_id, tui);
      await p;
    }
    expect(broker.decline("t1", rs[0].request_id, tui)).toMatchObject({ code: "unknown_request" });
    expect(broker.decline("t1", rs[1].request_id, tui)).toMatchObject({ ok: true, duplicate: true });
  });

  it("resolves unavailable and publishes nothing when the question cannot be saved", async () => {
    const db = fakeStore();
    const errors: unknown[] = [];
    const { broker, events, pending } = setup({
      store: {
        ...db.store,
        saveQuestion: () => {
          throw new Error("disk full");
        },
      },
      onError: (e) => errors.push(e),
    });
    const outcome: QuestionOutcome = await broker.ask(request({ call: "c1" }), never());
    expect(outcome).toEqual({ status: "unavailable", reason: "could not save the question: disk full" });
    expect(events).toEqual([]);
    expect(pending).toEqual([]);
    expect(broker.size).toBe(0);
  });

  it("still settles when the store fails to record the outcome", async () => {
    const db = fakeStore();
    const errors: unknown[] = [];
    const { broker } = setup({
      store: {
        ...db.store,
        settleQuestion: () => {
          throw new Error("locked");
        },
      },
      onError: (e) => errors.push(e),
    });
    const r = request({ call: "c1" });
    const p = broker.ask(r, never());
    expect(broker.decline("t1", r.request_id, tui).ok).toBe(true);
    expect((await p).status).toBe("declined");
    expect(errors).toHaveLength(1);
    await tick();
  });
});
