/**
 * Property test: random interleavings of ask / reply / duplicate and late reply / decline / abort /
 * timeout / touch / cancelAll over many requests and threads, checked against a small model.
 * Timers and Date are faked so timeouts are deterministic and the run is fast.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { replayable } from "../../test/helpers/fc-replay.js";
import type { Event } from "../protocol/events.js";
import type {
  Question,
  QuestionOutcome,
  QuestionPolicy,
  QuestionReply,
  QuestionRequest,
} from "../protocol/questions.js";
import type { StoredQuestion } from "../store/types.js";
import { createBus } from "../util/bus.js";
import { type BrokerStore, createBroker, requestIdFor } from "./broker.js";

const opt = (label: string) => ({ label, description: "" });
const Q = {
  stack: {
    id: "stack",
    header: "Stack",
    prompt: "Stack?",
    kind: "single",
    options: [opt("TypeScript (Recommended)"), opt("Rust")],
    allow_other: true,
    secret: false,
  },
  checks: {
    id: "checks",
    header: "Checks",
    prompt: "Checks?",
    kind: "multi",
    options: [opt("lint"), opt("test"), opt("bench")],
    allow_other: false,
    secret: false,
  },
  name: {
    id: "name",
    header: "Name",
    prompt: "Name?",
    kind: "text",
    options: [],
    allow_other: true,
    secret: false,
  },
  token: {
    id: "token",
    header: "Token",
    prompt: "Token?",
    kind: "text",
    options: [],
    allow_other: true,
    secret: true,
  },
} satisfies Record<string, Question>;
const QUESTION_SETS: Question[][] = [[Q.stack], [Q.stack, Q.checks], [Q.token], [Q.name, Q.token]];
const POLICIES: QuestionPolicy[] = [
  { type: "wait" },
  { type: "timeout", ms: 50, on_timeout: "recommended" },
  { type: "timeout", ms: 120, on_timeout: "empty" },
  { type: "timeout", ms: 80, on_timeout: "decline" },
];
const THREADS = ["t0", "t1", "t2"];
const TURNS = ["u0", "u1"];

type Variant = "same" | "other" | "invalid" | "wrong_thread";
type Cmd =
  | { kind: "ask"; thread: number; turn: number; policy: number; set: number }
  | { kind: "reply"; target: number; variant: Variant }
  | { kind: "decline"; target: number }
  | { kind: "abort"; target: number }
  | { kind: "touch"; target: number }
  | { kind: "advance"; ms: number }
  | { kind: "cancelAll"; thread: number; turn: number; how: "all" | "thread" | "turn" | "both" };

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("ask" as const),
      thread: fc.nat(THREADS.length - 1),
      turn: fc.nat(TURNS.length - 1),
      policy: fc.nat(POLICIES.length - 1),
      set: fc.nat(QUESTION_SETS.length - 1),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("reply" as const),
      target: fc.nat(40),
      variant: fc.constantFrom<Variant>("same", "other", "invalid", "wrong_thread"),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constantFrom("decline", "abort", "touch"), target: fc.nat(40) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 100 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("cancelAll" as const),
      thread: fc.nat(THREADS.length - 1),
      turn: fc.nat(TURNS.length - 1),
      how: fc.constantFrom("all", "thread", "turn", "both"),
    }),
  },
) as fc.Arbitrary<Cmd>;

function replyFor(questions: Question[], n: number, variant: "same" | "other"): QuestionReply {
  const same = variant === "same";
  const answers: QuestionReply["answers"] = {};
  for (const q of questions) {
    if (q.id === "stack") answers.stack = same ? { selected: ["Rust"] } : { selected: [], other: "Go" };
    if (q.id === "checks") answers.checks = { selected: same ? ["lint"] : ["test", "bench"] };
    if (q.id === "name") answers.name = { selected: [], other: same ? "n" : "m" };
    if (q.id === "token") answers.token = { selected: [], other: secretOf(n, variant) };
  }
  return { answers };
}
const secretOf = (n: number, variant: string) => `SECRET-${n}-${variant}-value`;

type Status = "pending" | "answered" | "declined" | "timed_out" | "cancelled";
interface Model {
  request: QuestionRequest;
  status: Status;
  accepted?: Variant;
  deadline: number | null;
  abort: AbortController;
  outcome?: QuestionOutcome;
  resolutions: number;
}

function fakeStore() {
  const rows = new Map<string, StoredQuestion>();
  const calls: string[] = [];
  const store: BrokerStore = {
    saveQuestion: (r) => {
      calls.push(JSON.stringify(["save", r]));
      if (!rows.has(r.request_id)) rows.set(r.request_id, { request: structuredClone(r), outcome: null });
    },
    settleQuestion: (id, o) => {
      calls.push(JSON.stringify(["settle", id, o]));
      const row = rows.get(id);
      if (row && !row.outcome) row.outcome = structuredClone(o);
    },
    updateQuestionDeadline: (id, d) => {
      calls.push(JSON.stringify(["deadline", id, d]));
    },
    getQuestion: (id) => structuredClone(rows.get(id)),
    pendingQuestions: () => [],
  };
  return { store, rows, calls };
}

async function run(cmds: Cmd[]) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: 1_000_000 });
  const bus = createBus();
  const events: Event[] = [];
  bus.subscribe((s) => events.push(s.event));
  const db = fakeStore();
  const changes: Array<[string, number]> = [];
  const broker = createBroker({
    bus,
    store: db.store,
    settledCapacity: 8, // small, so late replies also exercise the store fallback
    onPendingChange: (t, n) => changes.push([t, n]),
  });
  const models: Model[] = [];
  const touches = new Map<string, number>();

  const settleModel = (m: Model, status: Status) => {
    if (m.status === "pending") m.status = status;
  };
  const settledCode = (m: Model) => (m.status === "cancelled" ? "cancelled" : "already_settled");

  for (const cmd of cmds) {
    if (cmd.kind === "ask") {
      const n = models.length;
      const thread = THREADS[cmd.thread];
      const policy = POLICIES[cmd.policy];
      const request: QuestionRequest = {
        request_id: requestIdFor(thread, `call_${n}`),
        thread_id: thread,
        turn_id: TURNS[cmd.turn],
        call_id: `call_${n}`,
        source: n % 2 ? "model" : "internal",
        questions: QUESTION_SETS[cmd.set],
        policy,
        deadline: null,
        created_at: Date.now(),
      };
      const m: Model = {
        request,
        status: "pending",
        abort: new AbortController(),
        resolutions: 0,
        deadline: policy.type === "timeout" ? Date.now() + policy.ms : null,
      };
      models.push(m);
      broker.ask(request, m.abort.signal).then((o) => {
        m.resolutions++;
        m.outcome = o;
      });
      continue;
    }
    if (cmd.kind === "advance") {
      vi.advanceTimersByTime(cmd.ms);
      for (const m of models)
        if (m.deadline !== null && m.deadline <= Date.now()) settleModel(m, "timed_out");
      continue;
    }
    if (cmd.kind === "cancelAll") {
      const thread = THREADS[cmd.thread];
      const turn = TURNS[cmd.turn];
      const scope =
        cmd.how === "all"
          ? ("all" as const)
          : {
              threadId: cmd.how === "turn" ? undefined : thread,
              turnId: cmd.how === "thread" ? undefined : turn,
            };
      const hit = models.filter(
        (m) =>
          m.status === "pending" &&
          (scope === "all" ||
            ((!scope.threadId || m.request.thread_id === scope.threadId) &&
              (!scope.turnId || m.request.turn_id === scope.turnId))),
      );
      expect(broker.cancelAll(scope, "cancelled by test")).toBe(hit.length);
      for (const m of hit) settleModel(m, "cancelled");
      continue;
    }
    if (models.length === 0) continue;
    const n = cmd.target % models.length;
    const m = models[n];
    const { request_id: id, thread_id: thread } = m.request;
    if (cmd.kind === "abort") {
      m.abort.abort();
      settleModel(m, "cancelled");
    } else if (cmd.kind === "touch") {
      const res = broker.touch(id);
      if (m.status !== "pending") expect(res).toMatchObject({ ok: false, code: settledCode(m) });
      else if (m.request.policy.type === "timeout") {
        m.deadline = Date.now() + m.request.policy.ms;
        expect(res).toEqual({ ok: true, deadline: m.deadline });
        touches.set(id, (touches.get(id) ?? 0) + 1);
      } else expect(res).toEqual({ ok: true, deadline: null });
    } else if (cmd.kind === "decline") {
      const res = broker.decline(thread, id, { kind: "tui" });
      if (m.status === "pending") expect(res).toMatchObject({ ok: true, outcome: { status: "declined" } });
      else if (m.status === "declined") expect(res).toMatchObject({ ok: true, duplicate: true });
      else expect(res).toMatchObject({ ok: false, code: settledCode(m) });
      settleModel(m, "declined");
    } else if (cmd.variant === "invalid") {
      const res = broker.reply(thread, id, { answers: {} }, { kind: "web" });
      expect(res).toMatchObject({
        ok: false,
        code: m.status === "pending" ? "invalid_reply" : settledCode(m),
      });
    } else if (cmd.variant === "wrong_thread") {
      const res = broker.reply(`${thread}-other`, id, replyFor(m.request.questions, n, "same"), {
        kind: "web",
      });
      expect(res).toMatchObject({ ok: false, code: "wrong_thread" });
    } else {
      const res = broker.reply(thread, id, replyFor(m.request.questions, n, cmd.variant), {
        kind: "http",
        id: "c",
      });
      if (m.status === "pending") {
        expect(res).toMatchObject({ ok: true, outcome: { status: "answered" } });
        expect(res.ok && res.duplicate).toBeFalsy();
        m.status = "answered";
        m.accepted = cmd.variant;
      } else if (m.status === "answered" && m.accepted === cmd.variant)
        expect(res).toMatchObject({ ok: true, duplicate: true });
      else expect(res).toMatchObject({ ok: false, code: settledCode(m) });
    }
  }

  // Shutdown settles whatever is left; then everything must have resolved.
  const left = models.filter((m) => m.status === "pending");
  expect(broker.cancelAll("all", "shutdown")).toBe(left.length);
  for (const m of left) settleModel(m, "cancelled");
  vi.useRealTimers();
  await new Promise((r) => setImmediate(r));

  expect(broker.size).toBe(0);
  expect(broker.list()).toEqual([]);
  expect(broker.pendingCount()).toBe(0);
  // Each report moves its thread's count by exactly one, and every thread ends at zero.
  const counts = new Map<string, number>();
  for (const [t, n] of changes) {
    expect(Math.abs(n - (counts.get(t) ?? 0))).toBe(1);
    counts.set(t, n);
  }
  for (const [, n] of counts) expect(n).toBe(0);

  const terminal: Record<Status, string> = {
    pending: "",
    answered: "question.answered",
    declined: "question.declined",
    timed_out: "question.timed_out",
    cancelled: "question.cancelled",
  };
  models.forEach((m, n) => {
    const id = m.request.request_id;
    expect(m.resolutions).toBe(1);
    expect(m.outcome?.status).toBe(m.status);
    const mine = events.filter(
      (e) => ("request" in e ? e.request.request_id : "request_id" in e && e.request_id) === id,
    );
    const types = mine.map((e) => e.type).filter((t) => t !== "question.deadline_changed");
    expect(types).toEqual(["question.requested", terminal[m.status]]);
    expect(mine.length - 2).toBe(touches.get(id) ?? 0);
    expect(db.rows.get(id)?.outcome?.status).toBe(m.status);
    if (m.status === "answered" && m.request.questions.some((q) => q.secret))
      expect(m.outcome).toMatchObject({ answers: { token: { other: secretOf(n, m.accepted!) } } });
  });
  expect(db.calls.filter((c) => c.startsWith('["save"'))).toHaveLength(models.length);
  const published = JSON.stringify({ events, calls: db.calls });
  expect(published).not.toMatch(/SECRET-\d+/);
}

describe("broker under random interleavings", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("settles every ask exactly once, leaks nothing and never publishes a secret", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { maxLength: 80 }), (cmds) => run(cmds)),
      replayable({ numRuns: 300 }),
    );
  });
});
