import type { Event } from "../protocol/events.js";
import type { Question, QuestionPolicy, QuestionRequest, Responder } from "../protocol/questions.js";
import type { StoredQuestion } from "../store/types.js";
import { createBus } from "../util/bus.js";
import { type BrokerDeps, type BrokerStore, createBroker, requestIdFor } from "./broker.js";

// ---------------------------------------------------------------------------------------------
// Fixtures: an in-memory fake of the store subset the broker uses, and a few questions.
// ---------------------------------------------------------------------------------------------

export function fakeStore() {
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

export const stack: Question = {
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
export const checks: Question = {
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
export const name: Question = {
  id: "name",
  header: "Name",
  prompt: "Project name?",
  kind: "text",
  options: [],
  allow_other: true,
  secret: false,
};
export const token: Question = { ...name, id: "token", header: "Token", prompt: "API token?", secret: true };

export const web: Responder = { kind: "web", id: "w1" };
export const tui: Responder = { kind: "tui" };
export const wait: QuestionPolicy = { type: "wait" };

export function request(o: {
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

export function setup(extra: Partial<BrokerDeps> = {}) {
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

export const never = () => new AbortController().signal;
export const tick = () => new Promise((r) => setTimeout(r, 0));

/** An abort signal that counts its live "abort" listeners. */
export function countingSignal() {
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
