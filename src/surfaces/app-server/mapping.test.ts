import { describe, expect, it } from "vitest";
import { codexValidator } from "../../../test/app-server-schema.js";
import type { Event, TurnItem } from "../../protocol/events.js";
import { emptyUsage } from "../../protocol/events.js";
import type { StoredItem, TurnRecord } from "../../store/types.js";
import { codexTurns, threadPreview } from "./history.js";
import { codexItem, EventMapper } from "./mapping.js";

const ids = { thread_id: "t1", turn_id: "turn_1" };
const validator = codexValidator();

function mapAll(events: Event[]) {
  const mapper = new EventMapper(() => "/work");
  const out = events.flatMap((e, i) => mapper.map(e, 1_000_000 + i * 10));
  for (const n of out) expect(validator.serverNotification(n)).toEqual([]);
  return out;
}

describe("EventMapper", () => {
  it("announces items complete on arrival before completing them, and reasoning before its deltas", () => {
    const out = mapAll([
      { type: "turn.started", ...ids, mode: "plan" },
      { type: "item.completed", ...ids, item: { id: "u1", type: "user_message", text: "hi" } },
      { type: "reasoning.delta", ...ids, item_id: "rs_1", delta: "Think" },
      { type: "item.completed", ...ids, item: { id: "rs_1", type: "reasoning", text: "Think" } },
      { type: "item.started", ...ids, item: { id: "m1", type: "agent_message", text: "" } },
      { type: "agent_message.delta", ...ids, item_id: "m1", delta: "Hi" },
      { type: "item.completed", ...ids, item: { id: "m1", type: "agent_message", text: "Hi" } },
    ]);
    expect(out.map((n) => `${n.method}:${(n.params.item as any)?.id ?? n.params.itemId ?? ""}`)).toEqual([
      "turn/started:",
      "item/started:u1",
      "item/completed:u1",
      "item/started:rs_1",
      "item/reasoning/summaryTextDelta:rs_1",
      "item/completed:rs_1",
      "item/started:m1",
      "item/agentMessage/delta:m1",
      "item/completed:m1",
    ]);
  });

  it("maps every display item kind to a valid ThreadItem, and hides request_user_input calls", () => {
    const items: TurnItem[] = [
      {
        id: "c1",
        type: "command_execution",
        command: "ls",
        aggregated_output: "a\n",
        exit_code: 0,
        status: "completed",
        session_id: 3,
      },
      {
        id: "c2",
        type: "command_execution",
        command: "ls",
        aggregated_output: "",
        exit_code: null,
        status: "in_progress",
      },
      {
        id: "x1",
        type: "tool_call",
        tool: "update_plan",
        arguments: '{"a":1}',
        status: "completed",
        output: "ok",
      },
      {
        id: "x2",
        type: "tool_call",
        tool: "apply_patch",
        arguments: "*** Begin Patch",
        status: "in_progress",
      },
    ];
    const out = mapAll(items.map((item) => ({ type: "item.completed", ...ids, item }) as Event));
    const completed = out.filter((n) => n.method === "item/completed").map((n) => n.params.item as any);
    expect(completed[0]).toMatchObject({
      type: "commandExecution",
      processId: "3",
      exitCode: 0,
      cwd: "/work",
    });
    expect(completed[1]).toMatchObject({ status: "inProgress", aggregatedOutput: null });
    expect(completed[2]).toMatchObject({ type: "dynamicToolCall", arguments: { a: 1 }, success: true });
    expect(completed[3]).toMatchObject({ arguments: "*** Begin Patch", success: null, contentItems: null });
    const question: TurnItem = {
      id: "q",
      type: "tool_call",
      tool: "request_user_input",
      arguments: "{}",
      status: "in_progress",
    };
    expect(codexItem(question, "/")).toBeUndefined();
    expect(codexItem({ id: "e", type: "error", message: "x" }, "/")).toBeUndefined();
  });

  it("completes turns with timing and a Codex error, maps usage and errors", () => {
    const out = mapAll([
      { type: "turn.started", ...ids, mode: "default" },
      { type: "token.usage", ...ids, last: { ...emptyUsage(), input_tokens: 5 }, total: emptyUsage() },
      { type: "error", ...ids, error: { kind: "rate_limit", message: "slow down" }, will_retry: true },
      { type: "error", error: { kind: "other", message: "no thread" }, will_retry: false },
      { type: "thread.status_changed", thread_id: "t1", status: "waiting_on_user" },
      {
        type: "turn.completed",
        ...ids,
        status: "failed",
        usage: emptyUsage(),
        error: { kind: "context_length", message: "too long" },
      },
    ]);
    expect(out.map((n) => n.method)).toEqual([
      "turn/started",
      "thread/tokenUsage/updated",
      "error",
      "thread/status/changed",
      "turn/completed",
    ]);
    expect(out[2].params).toMatchObject({ willRetry: true, error: { codexErrorInfo: "rateLimitExceeded" } });
    expect(out[3].params.status).toEqual({ type: "active", activeFlags: ["waitingOnUserInput"] });
    expect(out[4].params.turn).toMatchObject({
      status: "failed",
      durationMs: 50,
      error: { message: "too long", codexErrorInfo: "contextWindowExceeded" },
    });
  });
});

describe("stored history → Codex turns", () => {
  const turn = (id: string, status: TurnRecord["status"]): TurnRecord => ({
    id,
    thread_id: "t1",
    started_at: 1_700_000_000_000,
    ended_at: status === "running" ? null : 1_700_000_002_500,
    status,
    usage: null,
    error: status === "failed" ? "boom" : null,
  });
  let seq = 0;
  const item = (turnId: string | null, it: StoredItem["item"]): StoredItem => ({
    seq: ++seq,
    thread_id: "t1",
    turn_id: turnId,
    item: it,
    created_at: 0,
  });
  const user = (text: string) => ({
    type: "message" as const,
    role: "user" as const,
    content: [{ type: "input_text" as const, text }],
  });
  const call = (callId: string, name: string, args: string) => ({
    type: "function_call" as const,
    name,
    arguments: args,
    call_id: callId,
  });
  const out = (callId: string, output: string) => ({
    type: "function_call_output" as const,
    call_id: callId,
    output,
  });

  it("rebuilds items per turn, reads exec results back, leaves context and questions out", () => {
    const items = [
      item(null, user("<environment_context>…</environment_context>")),
      item("a", user("Make a README")),
      item("a", { type: "reasoning", summary: [{ type: "summary_text", text: "Plan" }] }),
      item("a", call("c_q", "request_user_input", "{}")),
      item("a", out("c_q", '{"status":"answered"}')),
      item("a", call("c_1", "exec_command", '{"cmd":"false"}')),
      item(
        "a",
        out("c_1", "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nnope\n"),
      ),
      item("a", {
        type: "message",
        role: "assistant",
        id: "msg_1",
        content: [{ type: "output_text", text: "Done" }],
      }),
      item("b", user("Again")),
      item("b", call("c_2", "exec_command", '{"cmd":"sleep 9"}')),
    ];
    expect(threadPreview(items)).toBe("Make a README");
    const turns = codexTurns([turn("a", "failed"), turn("b", "running")], items, "/work");
    const thread = { threadId: "t1", turn: turns[0] };
    expect(validator.serverNotification({ method: "turn/completed", params: thread })).toEqual([]);
    expect(
      validator.serverNotification({ method: "turn/started", params: { threadId: "t1", turn: turns[1] } }),
    ).toEqual([]);
    expect(turns[0]).toMatchObject({ status: "failed", error: { message: "boom" }, durationMs: 2500 });
    expect(turns[0].items.map((i) => i.type)).toEqual([
      "userMessage",
      "reasoning",
      "commandExecution",
      "agentMessage",
    ]);
    expect(turns[0].items[2]).toMatchObject({
      id: "c_1",
      exitCode: 1,
      status: "failed",
      aggregatedOutput: "nope\n",
    });
    expect(turns[1]).toMatchObject({ status: "inProgress", completedAt: null });
    expect(turns[1].items[1]).toMatchObject({ command: "sleep 9", status: "inProgress", exitCode: null });
  });
});
