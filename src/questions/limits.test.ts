import { describe, expect, it } from "vitest";
import type { QuestionRequest } from "../protocol/questions.js";
import type { StoredQuestion } from "../store/types.js";
import { createBus } from "../util/bus.js";
import { type BrokerStore, createBroker } from "./broker.js";
import type { QuestionLimits } from "./limits.js";

const limits: QuestionLimits = {
  max_pending_per_thread: 2,
  max_pending: 3,
  max_pending_internal_per_thread: 1,
  max_pending_internal: 5,
  max_request_bytes: 4_000,
  max_prompt_chars: 100,
  max_option_chars: 20,
  max_header_chars: 10,
};

function request(id: string, thread: string, extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return {
    request_id: id,
    thread_id: thread,
    turn_id: "turn",
    call_id: id,
    source: "model",
    questions: [
      { id: "q", header: "H", prompt: "Which?", kind: "text", options: [], allow_other: true, secret: false },
    ],
    policy: { type: "wait" },
    deadline: null,
    created_at: 1,
    ...extra,
  };
}

function memoryStore(): BrokerStore & { rows: Map<string, StoredQuestion> } {
  const rows = new Map<string, StoredQuestion>();
  return {
    rows,
    saveQuestion: (r) => void rows.set(r.request_id, { request: r, outcome: null }),
    settleQuestion: (id, outcome) => {
      const row = rows.get(id);
      if (row) row.outcome = outcome;
    },
    updateQuestionDeadline: () => {},
    getQuestion: (id) => rows.get(id),
    pendingQuestions: () => [...rows.values()].filter((r) => !r.outcome).map((r) => r.request),
  };
}

describe("question caps in the broker", () => {
  const signal = new AbortController().signal;

  // fails if the model's and the internal requests share one allowance, or if a refused request
  // is stored or published.
  it("counts the model's and internal requests apart, per thread and in all; refusals leave no trace", async () => {
    const store = memoryStore();
    const published: string[] = [];
    const bus = createBus();
    bus.subscribe((s) => published.push(s.event.type));
    const broker = createBroker({ bus, store, limits });
    void broker.ask(request("a1", "A"), signal);
    void broker.ask(request("a2", "A"), signal);
    const third = await broker.ask(request("a3", "A"), signal);
    expect(third).toMatchObject({ status: "unavailable", limit: "questions.max_pending_per_thread" });
    // The model's allowance is spent in thread A; an approval still goes through, once.
    const approval = (id: string) => request(id, "A", { source: "internal" });
    void broker.ask(approval("i1"), signal);
    expect(await broker.ask(approval("i2"), signal)).toMatchObject({
      limit: "questions.max_pending_internal_per_thread",
      reason: expect.stringContaining("(limit: questions.max_pending_internal_per_thread = 1)"),
    });
    void broker.ask(request("b1", "B"), signal);
    expect(await broker.ask(request("b2", "B"), signal)).toMatchObject({ limit: "questions.max_pending" });
    expect(broker.list().map((r) => r.request_id)).toEqual(["a1", "a2", "i1", "b1"]);
    expect([...store.rows.keys()]).toEqual(["a1", "a2", "i1", "b1"]);
    expect(published.filter((t) => t === "question.requested")).toHaveLength(4);
  });

  // fails if a request stored by an earlier process is refused when asked again after a restart.
  it("a request re-asked from the store is never refused", async () => {
    const store = memoryStore();
    const first = createBroker({ bus: createBus(), store, limits });
    void first.ask(request("a1", "A"), signal);
    void first.ask(request("a2", "A"), signal);
    const next = createBroker({ bus: createBus(), store, limits: { ...limits, max_pending_per_thread: 1 } });
    void next.ask(request("a1", "A"), signal);
    void next.ask(request("a2", "A"), signal);
    expect(next.list()).toHaveLength(2);
  });

  // fails if a cap on the header, the option fields or an approval's exemption is missing.
  it("sizes: header and option caps apply to questions, not to an approval's text", async () => {
    const broker = createBroker({ bus: createBus(), limits });
    const q = request("x", "A").questions[0];
    const ask = (questions: QuestionRequest["questions"], extra: Partial<QuestionRequest> = {}) =>
      Promise.race([
        broker.ask({ ...request(`r${Math.random()}`, "T"), questions, ...extra }, signal),
        Promise.resolve("pending" as const),
      ]);
    expect(await ask([{ ...q, header: "a very long header" }])).toMatchObject({
      limit: "questions.max_header_chars",
    });
    const option = { label: "ok", description: "d".repeat(21) };
    expect(
      await ask([{ ...q, kind: "single", options: [option, { label: "b", description: "" }] }]),
    ).toMatchObject({
      reason: expect.stringContaining("option 1's description is 21 characters"),
    });
    const approval = { kind: "exec" as const, reason: "r", cwd: "/", command: "c".repeat(500) };
    expect(await ask([{ ...q, prompt: `Run ${"c".repeat(500)}?` }], { source: "internal", approval })).toBe(
      "pending",
    );
  });
});
