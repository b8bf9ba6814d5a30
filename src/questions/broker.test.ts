import { describe, expect, it, vi } from "vitest";
import type { Event } from "../protocol/events.js";
import {
  type Question,
  type QuestionOutcome,
  type QuestionPolicy,
  type QuestionRequest,
  REDACTED,
  type Responder,
} from "../protocol/questions.js";
import type { StoredQuestion } from "../store/types.js";
import { createBus } from "../util/bus.js";
import { type BrokerDeps, type BrokerStore, createBroker, requestIdFor } from "./broker.js";

// ---------------------------------------------------------------------------------------------
// Fixtures: an in-memory fake of the store subset the broker uses, and a few questions.
// ---------------------------------------------------------------------------------------------

function fakeStore() {
  const rows = new Map<string, StoredQuestion>();
  const calls: Array<{ op: string; args: unknown[] }> = [];
  const store: BrokerStore = {
    saveQuestion(request) {
      calls.push({ op: "saveQuestion", args: [structuredClone(request)] });
      if (!rows.has(request.request_id))
        rows.set(request.request_id, { request: structuredClone(request), outcome: null });
    },
    settleQuestion(id, outcome) {
      calls.push({ op: "settleQuestion", args: [id, structuredClone(outcome)] });
      const row = rows.get(id);
      if (row && !row.outcome) row.outcome = structuredClone(outcome);
    },
    updateQuestionDeadline(id, deadline) {
      calls.push({ op: "updateQuestionDeadline", args: [id, deadline] });
      const row = rows.get(id);
      if (row) row.request.deadline = deadline;
    },
    getQuestion(id) {
      const row = rows.get(id);
      return row && structuredClone(row);
    },
    pendingQuestions(threadId) {
      return [...rows.values()]
        .filter((r) => !r.outcome && (!threadId || r.request.thread_id === threadId))
        .map((r) => structuredClone(r.request));
    },
  };
  return { store, rows, calls };
}

const stack: Question = {
  id: "stack",
  header: "Stack",
  prompt: "Which stack?",
  kind: "single",
  options: [
    { label: "TypeScript (Recommended)", description: "types" },
    { label: "Rust", description: "speed" },
  ],
  allow_other: true,
  secret: false,
};
const checks: Question = {
  id: "checks",
  header: "Checks",
  prompt: "Which checks?",
  kind: "multi",
  options: [
    { label: "lint", description: "" },
    { label: "test", description: "" },
    { label: "bench", description: "" },
  ],
  allow_other: false,
  secret: false,
};
const name: Question = {
  id: "name",
  header: "Name",
  prompt: "Project name?",
  kind: "text",
  options: [],
  allow_other: true,
  secret: false,
};
const token: Question = { ...name, id: "token", header: "Token", prompt: "API token?", secret: true };

const web: Responder = { kind: "web", id: "w1" };
const tui: Responder = { kind: "tui" };
const wait: QuestionPolicy = { type: "wait" };

function request(o: {
  thread?: string;
  turn?: string;
  call: string;
  questions?: Question[];
  policy?: QuestionPolicy;
  at?: number;
}): QuestionRequest {
  const thread = o.thread ?? "t1";
  return {
    request_id: requestIdFor(thread, o.call),
    thread_id: thread,
    turn_id: o.turn ?? "turn1",
    call_id: o.call,
    source: "model",
    questions: o.questions ?? [stack],
    policy: o.policy ?? wait,
    deadline: null,
    created_at: o.at ?? Date.now(),
  };
}

function setup(extra: Partial<BrokerDeps> = {}) {
  const bus = createBus();
  const events: Event[] = [];
  bus.subscribe((s) => events.push(s.event));
  const db = fakeStore();
  const pending: Array<[string, number]> = [];
  const broker = createBroker({
    bus,
    store: db.store,
    onPendingChange: (t, n) => pending.push([t, n]),
    ...extra,
  });
  const types = (id?: string) =>
    events
      .filter(
        (e) => !id || ("request_id" in e ? e.request_id : "request" in e ? e.request.request_id : "") === id,
      )
      .map((e) => e.type);
  return { bus, broker, events, db, pending, types };
}

const never = () => new AbortController().signal;
const tick = () => new Promise((r) => setTimeout(r, 0));

/** An abort signal that counts its live "abort" listeners. */
function countingSignal() {
  const ac = new AbortController();
  const live = new Set<unknown>();
  const { signal } = ac;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    if (args[0] === "abort") live.add(args[1]);
    add(...args);
  }) as typeof add;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    if (args[0] === "abort") live.delete(args[1]);
    remove(...args);
  }) as typeof remove;
  return { signal, abort: () => ac.abort(), live: () => live.size };
}

// ---------------------------------------------------------------------------------------------

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
