import { describe, expect, it } from "vitest";
import { ABORTED_OUTPUT } from "../agent/history.js";
import type { ResumedCall } from "../agent/turn.js";
import type { ResponseItem, ToolCallItem } from "../protocol/items.js";
import type { TurnOptions } from "../protocol/ops.js";
import type { QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import { REVIEW_TURN, reviewPrompt } from "../protocol/review.js";
import type { StoredItem, TurnRecord } from "../protocol/threads.js";
import { planResume, type ResumeHost, resumeThread } from "./resume.js";

const call = (id: string, name = "exec_command"): ToolCallItem => ({
  type: "function_call",
  name,
  arguments: "{}",
  call_id: id,
});
const output = (id: string): ResponseItem => ({ type: "function_call_output", call_id: id, output: "done" });
const user = (text: string): ResponseItem => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});

/** Stored history: each entry is [turn id, item]. */
function stored(...entries: Array<[string | null, ResponseItem]>): StoredItem[] {
  return entries.map(([turn, item], i) => ({
    seq: i + 1,
    thread_id: "t",
    turn_id: turn,
    item,
    created_at: i,
  }));
}

function question(callId: string, turn: string, approval = false): QuestionRequest {
  return {
    request_id: `q_${callId}${approval ? "_a" : ""}`,
    thread_id: "t",
    turn_id: turn,
    call_id: callId,
    source: approval ? "internal" : "model",
    questions: [
      {
        id: "pick",
        header: "Pick",
        prompt: "Pick",
        kind: "text",
        options: [],
        allow_other: true,
        secret: false,
      },
    ],
    policy: { type: "wait" },
    deadline: null,
    created_at: 1,
    ...(approval ? { approval: { kind: "exec" as const, reason: "run it", cwd: "/w", command: "ls" } } : {}),
  };
}

const waits = (c: ToolCallItem) => c.type === "function_call" && c.name === "wait_agent";

describe("planResume", () => {
  it("records a call cut off without output as aborted, and has nothing to continue", () => {
    const plan = planResume({
      stored: stored(["u1", user("go")], ["u1", call("c1")]),
      pending: [],
      rerun: waits,
    });
    expect(plan.aborted.map((c) => c.call_id)).toEqual(["c1"]);
    expect(plan.steps).toEqual([]);
    expect(plan.settled).toBe(true);
  });

  it("asks a pending question again in its turn instead of aborting its call", () => {
    const q = question("c1", "u1");
    const plan = planResume({
      stored: stored(["u1", call("c1", "request_user_input")]),
      pending: [q],
      rerun: waits,
    });
    expect(plan.aborted).toEqual([]);
    expect(plan.steps).toEqual([{ call: call("c1", "request_user_input"), how: "reask", question: q }]);
    expect(plan.turnId).toBe("u1");
    expect(plan.settled).toBe(false);
  });

  it("leaves a call whose output exists alone, even one that would run again", () => {
    const plan = planResume({
      stored: stored(
        ["u1", call("c1")],
        ["u1", output("c1")],
        ["u1", call("w1", "wait_agent")],
        ["u1", output("w1")],
      ),
      pending: [],
      rerun: waits,
    });
    expect(plan).toEqual({ aborted: [], steps: [], turnId: undefined, settled: true, reviews: [] });
  });

  it("dispatches a cut-off sub-agent wait again, in the turn that stored it", () => {
    const plan = planResume({
      stored: stored(["u1", user("go")], ["u2", call("w1", "wait_agent")]),
      pending: [],
      rerun: waits,
    });
    expect(plan.aborted).toEqual([]);
    expect(plan.steps).toEqual([{ call: call("w1", "wait_agent"), how: "redispatch" }]);
    expect(plan.turnId).toBe("u2");
  });

  it("re-runs a call whose approval is pending (the gate asks it again)", () => {
    const plan = planResume({
      stored: stored(["u1", call("c1")]),
      pending: [question("c1", "u1", true)],
      rerun: waits,
    });
    expect(plan.steps).toEqual([{ call: call("c1"), how: "redispatch" }]);
  });

  it("plans several at once: aborts, then re-asks in pending order, then re-runs in history order", () => {
    const qB = question("b", "u1");
    const qA = question("a", "u1", true);
    const plan = planResume({
      stored: stored(
        ["u1", call("a")],
        ["u1", call("w2", "wait_agent")],
        ["u1", call("b", "request_user_input")],
        ["u1", call("x")],
        ["u1", call("w1", "wait_agent")],
        ["u1", call("done")],
        ["u1", output("done")],
      ),
      // Pending order is the broker's queue order (approvals first); kept as given.
      pending: [qA, qB],
      rerun: waits,
    });
    expect(plan.aborted.map((c) => c.call_id)).toEqual(["x"]);
    expect(plan.steps.map((s) => [s.call.call_id, s.how])).toEqual([
      ["a", "redispatch"],
      ["b", "reask"],
      ["w2", "redispatch"],
      ["w1", "redispatch"],
    ]);
    expect(plan.turnId).toBe("u1");
  });

  it("asks each call once and ignores questions whose call is not in the history", () => {
    const first = question("c1", "u1");
    const plan = planResume({
      stored: stored(["u1", call("c1")]),
      pending: [question("gone", "u0"), first, { ...first, request_id: "q_again" }],
      rerun: waits,
    });
    expect(plan.steps).toEqual([{ call: call("c1"), how: "reask", question: first }]);
    // The turn is the first pending question's, even one whose call is gone.
    expect(plan.turnId).toBe("u0");
  });
});

/** A thread and host that record what resuming did. */
function fakes(lastTurn?: TurnRecord["status"]) {
  const recorded: ResponseItem[] = [];
  const resumed: Array<{ turnId: string; calls: ResumedCall[]; options?: TurnOptions }> = [];
  const asked: string[] = [];
  const thread = {
    id: "t",
    recordItem: (item: ResponseItem) => void recorded.push(item),
    resumeTurn: (turnId: string, calls: ResumedCall[], options?: TurnOptions) =>
      void resumed.push({ turnId, calls, ...(options && Object.keys(options).length ? { options } : {}) }),
    redispatch: async (c: ToolCallItem) => ({
      aborted: false as const,
      args: c.call_id,
      result: { output: "again", success: true },
    }),
  };
  const host: ResumeHost = {
    ask: async (request): Promise<QuestionOutcome> => {
      asked.push(request.request_id);
      return {
        status: "answered",
        answers: { pick: { selected: [], other: "blue" } },
        unanswered: [],
        responder: { kind: "test" },
      };
    },
    expire: () => ({ status: "cancelled", reason: "lost" }),
    putSecret: () => "[secret]",
    lastTurn: () =>
      lastTurn && {
        id: "u9",
        thread_id: "t",
        started_at: 0,
        ended_at: null,
        status: lastTurn,
        usage: null,
        error: null,
      },
  };
  return { thread, host, recorded, resumed, asked };
}

describe("resumeThread", () => {
  it("records aborted calls and continues the plan's turn with its steps", async () => {
    const f = fakes();
    const q = question("c1", "u1");
    const plan = planResume({
      stored: stored(["u1", call("x")], ["u1", call("c1")]),
      pending: [q],
      rerun: waits,
    });
    resumeThread(f.host, f.thread, plan, true);
    expect(f.recorded).toEqual([{ type: "function_call_output", call_id: "x", output: ABORTED_OUTPUT }]);
    expect(f.resumed.map((r) => [r.turnId, r.calls.map((c) => c.call.call_id)])).toEqual([["u1", ["c1"]]]);
    const result = await f.resumed[0].calls[0].run(new AbortController().signal);
    expect(f.asked).toEqual([q.request_id]);
    expect(result.aborted).toBe(false);
  });

  it("goes on with the last stored turn only when it still runs and the thread goes on", () => {
    const settled = planResume({ stored: stored(["u1", user("go")]), pending: [], rerun: waits });
    const running = fakes("running");
    resumeThread(running.host, running.thread, settled, true);
    expect(running.resumed).toEqual([{ turnId: "u9", calls: [] }]);
    const ended = fakes("completed");
    resumeThread(ended.host, ended.thread, settled, true);
    expect(ended.resumed).toEqual([]);
    const stays = fakes("running");
    resumeThread(stays.host, stays.thread, settled, false);
    expect(stays.resumed).toEqual([]);
  });

  it("continues a review turn as a review (read-only), whatever the thread's own settings", () => {
    const review = reviewPrompt({ type: "uncommittedChanges" });
    const f = fakes();
    const plan = planResume({
      stored: stored(["u1", user("write things")], ["u2", user(review)], ["u2", call("c1")]),
      pending: [question("c1", "u2")],
      rerun: waits,
    });
    expect(plan.reviews).toEqual(["u2"]);
    resumeThread(f.host, f.thread, plan, true);
    expect(f.resumed.map((r) => [r.turnId, r.options])).toEqual([["u2", REVIEW_TURN]]);
    const running = fakes("running");
    const settled = planResume({ stored: stored(["u9", user(review)]), pending: [], rerun: waits });
    resumeThread(running.host, running.thread, settled, true);
    expect(running.resumed).toEqual([{ turnId: "u9", calls: [], options: REVIEW_TURN }]);
  });
});
