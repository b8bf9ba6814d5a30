import { describe, expect, it, vi } from "vitest";
import type { Question, QuestionOutcome, QuestionPolicy } from "../protocol/questions.js";
import { requestIdFor } from "./broker.js";

// ---------------------------------------------------------------------------------------------
// Fixtures: an in-memory fake of the store subset the broker uses, and a few questions.
// ---------------------------------------------------------------------------------------------

import { checks, name, never, request, setup, stack, tui, web } from "./broker.testing.js";

describe("requestIdFor", () => {
  it("is deterministic, URL-safe and distinct per thread and call", () => {
    const a = requestIdFor("t1", "call_1");
    expect(a).toBe(requestIdFor("t1", "call_1"));
    expect(a).toMatch(/^q_[0-9a-f]{20}$/);
    expect(requestIdFor("t2", "call_1")).not.toBe(a);
    expect(requestIdFor("t1", "call_2")).not.toBe(a);
  });
});

describe("ask and reply", () => {
  it("registers and persists before publishing question.requested (Q5)", async () => {
    const { bus, broker, db } = setup();
    const seen: Array<{ size: number; saved: boolean; listed: number }> = [];
    const r = request({ call: "c1" });
    bus.subscribe((s) => {
      if (s.event.type === "question.requested")
        seen.push({ size: broker.size, saved: db.rows.has(r.request_id), listed: broker.list().length });
    });
    const p = broker.ask(r, never());
    expect(seen).toEqual([{ size: 1, saved: true, listed: 1 }]);
    broker.reply("t1", r.request_id, { answers: { stack: { selected: ["Rust"] } } }, web);
    expect((await p).status).toBe("answered");
  });

  it("resolves each of two questions of one turn with its own answer, in reverse order (Q4)", async () => {
    const { broker, types } = setup();
    const r1 = request({ call: "c1" });
    const r2 = request({ call: "c2", questions: [name] });
    const p1 = broker.ask(r1, never());
    const p2 = broker.ask(r2, never());
    expect(broker.pendingCount("t1")).toBe(2);
    expect(
      broker.reply("t1", r2.request_id, { answers: { name: { selected: [], other: "tandem" } } }, tui).ok,
    ).toBe(true);
    expect(broker.reply("t1", r1.request_id, { answers: { stack: { selected: ["Rust"] } } }, web).ok).toBe(
      true,
    );
    const [o1, o2] = await Promise.all([p1, p2]);
    expect(o1).toEqual({
      status: "answered",
      answers: { stack: { selected: ["Rust"] } },
      unanswered: [],
      responder: web,
    });
    expect(o2).toEqual({
      status: "answered",
      answers: { name: { selected: [], other: "tandem" } },
      unanswered: [],
      responder: tui,
    });
    expect(types(r1.request_id)).toEqual(["question.requested", "question.answered"]);
    expect(broker.size).toBe(0);
  });

  it("reports left-out questions as unanswered and names the responder in the event (Q13)", async () => {
    const { broker, events } = setup();
    const r = request({ call: "c1", questions: [stack, checks, name] });
    const p = broker.ask(r, never());
    const res = broker.reply(
      "t1",
      r.request_id,
      { answers: { checks: { selected: ["lint", "test", "lint"] } } },
      web,
    );
    expect(res.ok).toBe(true);
    const outcome = await p;
    expect(outcome).toEqual({
      status: "answered",
      answers: { checks: { selected: ["lint", "test"] } },
      unanswered: ["stack", "name"],
      responder: web,
    });
    const answered = events.find((e) => e.type === "question.answered");
    expect(answered).toMatchObject({ thread_id: "t1", turn_id: "turn1", responder: web, outcome });
  });

  it("refuses unknown, wrong-thread, settled and cancelled replies without changing anything (Q4)", async () => {
    const { broker, events } = setup();
    const r = request({ call: "c1" });
    const p = broker.ask(r, never());
    const reply = { answers: { stack: { selected: ["Rust"] } } };

    expect(broker.reply("t1", "q_nope", reply, web)).toMatchObject({ ok: false, code: "unknown_request" });
    expect(broker.reply("t2", r.request_id, reply, web)).toMatchObject({ ok: false, code: "wrong_thread" });
    expect(broker.decline("t2", r.request_id, web)).toMatchObject({ ok: false, code: "wrong_thread" });
    expect(broker.size).toBe(1);
    expect(events.map((e) => e.type)).toEqual(["question.requested"]);

    expect(broker.reply("t1", r.request_id, reply, web).ok).toBe(true);
    await p;
    const late = broker.reply(
      "t1",
      r.request_id,
      { answers: { stack: { selected: ["TypeScript (Recommended)"] } } },
      tui,
    );
    expect(late).toMatchObject({ ok: false, code: "already_settled" });
    expect(late.ok || late.message).toContain("answered (by web)");
    expect(broker.decline("t1", r.request_id, tui)).toMatchObject({ ok: false, code: "already_settled" });
    expect(broker.reply("t2", r.request_id, reply, web)).toMatchObject({ ok: false, code: "wrong_thread" });

    const c = request({ call: "c2" });
    const pc = broker.ask(c, never());
    expect(broker.cancelAll({ threadId: "t1" }, "thread closed")).toBe(1);
    expect(await pc).toEqual({ status: "cancelled", reason: "thread closed" });
    expect(broker.reply("t1", c.request_id, reply, web)).toMatchObject({ ok: false, code: "cancelled" });
    expect(broker.decline("t1", c.request_id, web)).toMatchObject({ ok: false, code: "cancelled" });
    expect(broker.touch(c.request_id)).toMatchObject({ ok: false, code: "cancelled" });
    expect(events.filter((e) => e.type !== "question.requested").map((e) => e.type)).toEqual([
      "question.answered",
      "question.cancelled",
    ]);
  });

  it("acknowledges an identical reply from any responder as a duplicate (idempotent by request id)", async () => {
    const { broker, events } = setup();
    const r = request({ call: "c1", questions: [stack, name] });
    const p = broker.ask(r, never());
    const reply = {
      answers: { stack: { selected: ["Rust"], note: "fast" }, name: { selected: [], other: "x" } },
    };
    const first = broker.reply("t1", r.request_id, reply, web);
    const again = broker.reply("t1", r.request_id, structuredClone(reply), tui);
    expect(again).toEqual({ ok: true, duplicate: true, outcome: first.ok && first.outcome });
    expect(again.ok && again.outcome.status === "answered" && again.outcome.responder).toEqual(web);
    await p;
    expect(events.filter((e) => e.type === "question.answered")).toHaveLength(1);
  });

  it("declines with a reason; a second decline is a duplicate and a later reply is refused", async () => {
    const { broker, types } = setup();
    const r = request({ call: "c1" });
    const p = broker.ask(r, never());
    expect(broker.decline("t1", r.request_id, tui, "not now")).toEqual({
      ok: true,
      outcome: { status: "declined", responder: tui, reason: "not now" },
    });
    expect(await p).toEqual({ status: "declined", responder: tui, reason: "not now" });
    expect(broker.decline("t1", r.request_id, web)).toMatchObject({ ok: true, duplicate: true });
    expect(
      broker.reply("t1", r.request_id, { answers: { stack: { selected: ["Rust"] } } }, web),
    ).toMatchObject({
      ok: false,
      code: "already_settled",
    });
    expect(types(r.request_id)).toEqual(["question.requested", "question.declined"]);
  });

  // Fails if `unavailable` does not settle the ask (the model would wait on), is not persisted,
  // can be repeated as anything but a duplicate, or acts on another thread's request.
  it("unavailable settles with its reason, persisted; a second is a duplicate, another thread is refused", async () => {
    const { broker, types, db } = setup();
    const r = request({ call: "c1" });
    const p = broker.ask(r, never());
    expect(broker.unavailable("t2", r.request_id, "x")).toMatchObject({ ok: false, code: "wrong_thread" });
    expect(broker.unavailable("t1", r.request_id, "nobody could answer")).toEqual({
      ok: true,
      outcome: { status: "unavailable", reason: "nobody could answer" },
    });
    expect(await p).toEqual({ status: "unavailable", reason: "nobody could answer" });
    expect(db.rows.get(r.request_id)?.outcome).toEqual({
      status: "unavailable",
      reason: "nobody could answer",
    });
    expect(broker.unavailable("t1", r.request_id, "again")).toMatchObject({ ok: true, duplicate: true });
    expect(broker.decline("t1", r.request_id, web)).toMatchObject({ ok: false, code: "already_settled" });
    expect(types(r.request_id)).toEqual(["question.requested", "question.cancelled"]);
  });

  it("refuses a second ask of a pending id and answers a settled id with its recorded outcome", async () => {
    const { broker, types } = setup();
    const r = request({ call: "c1" });
    const p = broker.ask(r, never());
    expect(await broker.ask(r, never())).toMatchObject({ status: "unavailable" });
    broker.decline("t1", r.request_id, tui);
    await p;
    expect(await broker.ask(r, never())).toEqual({ status: "declined", responder: tui });
    expect(types(r.request_id)).toEqual(["question.requested", "question.declined"]);
  });

  it("lists pending requests FIFO by created_at, per thread", () => {
    const { broker } = setup();
    broker.ask(request({ call: "late", at: 300 }), never());
    broker.ask(request({ call: "early", at: 100 }), never());
    broker.ask(request({ thread: "t2", call: "mid", at: 200 }), never());
    expect(broker.list().map((r) => r.call_id)).toEqual(["early", "mid", "late"]);
    expect(broker.list({ threadId: "t1" }).map((r) => r.call_id)).toEqual(["early", "late"]);
    expect(broker.pendingCount()).toBe(3);
    expect(broker.pendingCount("t2")).toBe(1);
    expect(broker.cancelAll("all", "shutdown")).toBe(3);
    expect(broker.list()).toEqual([]);
  });
});

describe("reply validation", () => {
  const cases: Array<[string, Question[], Record<string, unknown>, string]> = [
    [
      "nothing answered",
      [stack],
      {},
      'reply answers no question; expected an answer for "stack" (to give no answer, decline)',
    ],
    [
      "unknown question",
      [stack, name],
      { colour: { selected: ["red"] } },
      'unknown question "colour"; expected one of "stack" or "name"',
    ],
    [
      "unknown label with other allowed",
      [stack],
      { stack: { selected: ["Go"] } },
      'question "stack": "Go" is not an option; expected one of "TypeScript (Recommended)", "Rust" or an "other" text',
    ],
    [
      "unknown label without other",
      [checks],
      { checks: { selected: ["fuzz"] } },
      'question "checks": "fuzz" is not an option; expected one of "lint", "test" or "bench"',
    ],
    [
      "several labels on single",
      [stack],
      { stack: { selected: ["Rust", "TypeScript (Recommended)"] } },
      'question "stack": takes one option; got 2 ("Rust" and "TypeScript (Recommended)")',
    ],
    [
      "text without other",
      [name],
      { name: { selected: [], other: "  " } },
      'question "name": expected a non-empty "other" text',
    ],
    [
      "text with labels",
      [name],
      { name: { selected: ["x"] } },
      'question "name": this is a free-text question; put the answer in "other", not "selected"',
    ],
    [
      "other where not allowed",
      [checks],
      { checks: { selected: ["lint"], other: "fuzz" } },
      'question "checks": does not accept free text; expected one of "lint", "test" or "bench"',
    ],
    [
      "an answer that answers nothing",
      [stack],
      { stack: { selected: [], note: "hmm" } },
      'question "stack": nothing chosen; expected one of "TypeScript (Recommended)", "Rust" or an "other" text (a note alone does not answer; leave the question out to skip it)',
    ],
    ["malformed", [stack], { stack: { selected: "Rust" } }, "reply is malformed: answers.stack.selected:"],
  ];

  it.each(cases)(
    "refuses %s with a message saying what was expected",
    async (_label, questions, answers, message) => {
      const { broker, events, db } = setup();
      const r = request({ call: "c1", questions });
      const p = broker.ask(r, never());
      const res = broker.reply("t1", r.request_id, { answers } as never, web);
      expect(res.ok).toBe(false);
      if (!res.ok) {
        expect(res.code).toBe("invalid_reply");
        expect(res.message.startsWith(message)).toBe(true);
      }
      expect(broker.size).toBe(1);
      expect(events.map((e) => e.type)).toEqual(["question.requested"]);
      expect(db.rows.get(r.request_id)?.outcome).toBeNull();
      broker.cancelAll("all", "done");
      await p;
    },
  );

  it("accepts other text instead of, or with, an option where allowed", async () => {
    const { broker } = setup();
    const r = request({ call: "c1" });
    const p = broker.ask(r, never());
    expect(
      broker.reply("t1", r.request_id, { answers: { stack: { selected: [], other: "Go" } } }, web).ok,
    ).toBe(true);
    expect(await p).toMatchObject({ answers: { stack: { selected: [], other: "Go" } } });
  });
});

describe("policies (Q7)", () => {
  const timed = (on_timeout: "recommended" | "empty" | "decline", ms = 30): QuestionPolicy => ({
    type: "timeout",
    ms,
    on_timeout,
  });

  it("publishes the deadline as created_at + ms", () => {
    const { broker, events } = setup();
    broker.ask(request({ call: "c1", at: 1_000, policy: timed("empty", 60_000) }), never());
    expect(events[0]).toMatchObject({
      type: "question.requested",
      request: { created_at: 1_000, deadline: 61_000 },
    });
    broker.cancelAll("all", "done");
  });

  it.each([
    ["recommended", { stack: { selected: ["TypeScript (Recommended)"] } }, ["checks"]],
    ["empty", {}, ["stack", "checks"]],
    ["decline", {}, ["stack", "checks"]],
  ] as const)(
    "on timeout %s settles as timed_out with the policy",
    async (onTimeout, answers, unanswered) => {
      const { broker, types, db } = setup();
      const policy = timed(onTimeout);
      const r = request({ call: "c1", questions: [stack, checks], policy });
      const outcome = await broker.ask(r, never());
      expect(outcome).toEqual({ status: "timed_out", policy, answers, unanswered });
      expect(types()).toEqual(["question.requested", "question.timed_out"]);
      expect(db.rows.get(r.request_id)?.outcome).toEqual(outcome);
      expect(broker.size).toBe(0);
    },
  );

  // Fake timers drive the clock (broker `now` defaults to Date.now, faked here): no real sleep
  // races the 150 ms timeout. Fails if touch leaves the deadline or the armed timer unchanged.
  it("touch snoozes a timeout request: deadline moves, the timeout fires only after the new deadline", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: 1_000_000 });
    try {
      const { broker, events, db } = setup();
      const r = request({ call: "c1", policy: timed("empty", 150) });
      let outcome: QuestionOutcome | undefined;
      const p = broker.ask(r, never()).then((o) => {
        outcome = o;
        return o;
      });
      const original = broker.list()[0].deadline!;
      expect(original).toBe(1_000_150);
      await vi.advanceTimersByTimeAsync(50);
      const touched = broker.touch(r.request_id, web);
      expect(touched.ok).toBe(true);
      const deadline = touched.ok ? touched.deadline! : 0;
      expect(deadline).toBe(1_000_200);
      expect(broker.list()[0].deadline).toBe(deadline);
      expect(db.rows.get(r.request_id)?.request.deadline).toBe(deadline);
      await vi.advanceTimersByTimeAsync(149); // past the original deadline, 1 ms before the new one
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(outcome?.status).toBe("timed_out");
      await p;
      expect(events.map((e) => e.type)).toEqual([
        "question.requested",
        "question.deadline_changed",
        "question.timed_out",
      ]);
      expect(events[1]).toMatchObject({ request_id: r.request_id, deadline });
      expect(broker.touch(r.request_id)).toMatchObject({ ok: false, code: "already_settled" });
    } finally {
      vi.useRealTimers();
    }
  });

  it("touch on a wait request changes nothing; on an unknown id it is refused", () => {
    const { broker, events } = setup();
    const r = request({ call: "c1" });
    broker.ask(r, never());
    expect(broker.touch(r.request_id)).toEqual({ ok: true, deadline: null });
    expect(broker.touch("q_missing")).toMatchObject({ ok: false, code: "unknown_request" });
    expect(events.map((e) => e.type)).toEqual(["question.requested"]);
    broker.cancelAll("all", "done");
  });

  // Fails if settling leaves the timeout armed (a second, timed_out settle would be published).
  it("a reply before the deadline wins and clears the timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const { broker, types } = setup();
      const r = request({ call: "c1", policy: timed("recommended", 40) });
      const p = broker.ask(r, never());
      broker.reply("t1", r.request_id, { answers: { stack: { selected: ["Rust"] } } }, web);
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(80);
      expect((await p).status).toBe("answered");
      expect(types()).toEqual(["question.requested", "question.answered"]);
    } finally {
      vi.useRealTimers();
    }
  });
});
