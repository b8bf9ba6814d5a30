import { describe, expect, it } from "vitest";
import { codexValidator } from "../../../test/helpers/codex-schema.js";
import type { Event, TurnItem } from "../../protocol/events.js";
import { emptyUsage } from "../../protocol/events.js";
import type { StoredItem, TurnRecord } from "../../protocol/threads.js";
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
  it("holds a patch item's item/started until its diffs are known: the approval's, else the result's", () => {
    const patch = "*** Begin Patch\n*** Update File: calc.py\n@@\n-a\n+b\n*** End Patch";
    const diff = "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a\n+b\n";
    const start = (id: string) =>
      ({
        type: "item.started",
        ...ids,
        item: { id, type: "tool_call", tool: "apply_patch", arguments: patch, status: "in_progress" },
      }) as Event;
    const done = (id: string) =>
      ({
        type: "item.completed",
        ...ids,
        item: {
          id,
          type: "file_change",
          changes: [{ path: "calc.py", kind: "update", diff }],
          status: "completed",
        },
      }) as Event;
    const approval = {
      type: "question.requested",
      ...ids,
      request: {
        call_id: "p1",
        approval: {
          kind: "file_change",
          reason: "r",
          cwd: "/work",
          changes: [{ path: "calc.py", kind: "update", diff }],
        },
      },
    } as unknown as Event;
    const out = mapAll([start("p1"), approval, done("p1"), start("p2"), done("p2")]);
    const starts = out.filter((n) => n.method === "item/started").map((n) => n.params.item as any);
    // Fails if item/started goes out with empty diffs (Codex's TUI then draws `+0 -0` in the approval).
    expect(starts.map((i) => [i.id, i.changes[0].diff])).toEqual([
      ["p1", diff],
      ["p2", diff],
    ]);
    expect(starts[0].status).toBe("inProgress");
    expect(out.map((n) => `${n.method}:${(n.params.item as any)?.id ?? ""}`)).toEqual([
      "item/started:p1",
      "item/completed:p1",
      "item/started:p2",
      "item/completed:p2",
    ]);
  });

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
        tool: "view_image",
        arguments: '{"a":1}',
        status: "completed",
        output: "ok",
      },
      {
        id: "x2",
        type: "tool_call",
        tool: "apply_patch",
        arguments: [
          "*** Begin Patch",
          "*** Add File: new.txt",
          "+hi",
          "*** Update File: a.ts",
          "*** Move to: b.ts",
          "@@",
          "-x",
          "+y",
          "*** Delete File: old.txt",
          "*** End Patch",
        ].join("\n"),
        status: "in_progress",
      },
      {
        id: "x3",
        type: "file_change",
        changes: [
          { path: "a.ts", kind: "move", move_path: "b.ts", diff: "--- a/a.ts\n+++ b/b.ts\n" },
          { path: "c.ts", kind: "update", diff: "@@ -1 +1 @@\n-x\n+y\n" },
        ],
        status: "completed",
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
    // apply_patch is a fileChange from start (the files its patch names) to end (the diffs).
    expect(completed[3]).toEqual({
      type: "fileChange",
      id: "x2",
      status: "inProgress",
      changes: [
        { path: "new.txt", kind: { type: "add" }, diff: "" },
        { path: "a.ts", kind: { type: "update", move_path: "b.ts" }, diff: "" },
        { path: "old.txt", kind: { type: "delete" }, diff: "" },
      ],
    });
    expect(completed[4]).toEqual({
      type: "fileChange",
      id: "x3",
      status: "completed",
      changes: [
        { path: "a.ts", kind: { type: "update", move_path: "b.ts" }, diff: "--- a/a.ts\n+++ b/b.ts\n" },
        { path: "c.ts", kind: { type: "update", move_path: null }, diff: "@@ -1 +1 @@\n-x\n+y\n" },
      ],
    });
    const fnPatch = codexItem(
      {
        id: "x4",
        type: "tool_call",
        tool: "apply_patch",
        arguments: '{"input":"*** Delete File: z"}',
        status: "failed",
      },
      "/",
    );
    expect(fnPatch).toEqual({
      type: "fileChange",
      id: "x4",
      status: "failed",
      changes: [{ path: "z", kind: { type: "delete" }, diff: "" }],
    });
    const question: TurnItem = {
      id: "q",
      type: "tool_call",
      tool: "request_user_input",
      arguments: "{}",
      status: "in_progress",
    };
    expect(codexItem(question, "/")).toBeUndefined();
    // update_plan is turn/plan/updated (plan.ts), never an item that does not complete.
    expect(codexItem({ ...question, tool: "update_plan" }, "/")).toBeUndefined();
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

  it("a thread waiting on an approval says so; on both, both flags", () => {
    const waiting = { approval: true, question: false };
    const mapper = new EventMapper(
      () => "/work",
      () => waiting,
    );
    const status = () =>
      mapper.map({ type: "thread.status_changed", thread_id: "t1", status: "waiting_on_user" }, 0)[0];
    const first = status();
    expect(validator.serverNotification(first)).toEqual([]);
    expect(first.params.status).toEqual({ type: "active", activeFlags: ["waitingOnApproval"] });
    // A question joins the pending approval: the flags change without a Tandem status change.
    waiting.question = true;
    const request = { type: "question.requested", ...ids, request: {} } as unknown as Event;
    const joined = mapper.map(request, 0);
    expect(joined.map((n) => n.params.status)).toEqual([
      { type: "active", activeFlags: ["waitingOnApproval", "waitingOnUserInput"] },
    ]);
    expect(mapper.map(request, 0)).toEqual([]);
    // The approval settles first: only the question is left.
    waiting.approval = false;
    const settled = { type: "question.answered", ...ids, request_id: "q", outcome: {} } as unknown as Event;
    expect(mapper.map(settled, 0)[0].params.status).toEqual({
      type: "active",
      activeFlags: ["waitingOnUserInput"],
    });
    // The last one settles: nothing here, the status change to running says it.
    waiting.question = false;
    expect(mapper.map(settled, 0)).toEqual([]);
    mapper.map({ type: "thread.status_changed", thread_id: "t1", status: "running" }, 0);
    waiting.approval = true;
    expect(mapper.map(request, 0)).toEqual([]);
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
    // Fails if the command is not the shell-quoted argv Tandem runs (Codex clients re-split it).
    expect(turns[1].items[1]).toMatchObject({
      command: `${process.env.SHELL || "/bin/bash"} -c 'sleep 9'`,
      commandActions: [{ type: "unknown", command: "sleep 9" }],
      status: "inProgress",
      exitCode: null,
    });
  });

  it("reads apply_patch calls back as fileChange items", () => {
    const patch = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch";
    const custom = (callId: string) => ({
      type: "custom_tool_call" as const,
      name: "apply_patch",
      input: patch,
      call_id: callId,
    });
    const customOut = (callId: string, output: string) => ({
      type: "custom_tool_call_output" as const,
      call_id: callId,
      output,
    });
    const items = [
      item("p", user("Patch it")),
      item("p", custom("p1")),
      item("p", customOut("p1", "Success. Updated the following files:\nA a.txt")),
      item("p", custom("p2")),
      item("p", customOut("p2", "blocked by hook: the user declined this file change (read-only sandbox)")),
    ];
    const [t] = codexTurns([turn("p", "completed")], items, "/work");
    expect(
      validator.serverNotification({ method: "turn/completed", params: { threadId: "t1", turn: t } }),
    ).toEqual([]);
    const changes = [{ path: "a.txt", kind: { type: "add" }, diff: "" }];
    expect(t.items.slice(1)).toEqual([
      { type: "fileChange", id: "p1", status: "completed", changes },
      { type: "fileChange", id: "p2", status: "failed", changes },
    ]);
  });

  it("reads an answered request_user_input back as the call with its answers; a pending one is left out", () => {
    const ask = (callId: string) => ({
      type: "function_call" as const,
      name: "request_user_input",
      arguments: "{}",
      call_id: callId,
    });
    const items = [item("q", user("Choose")), item("q", ask("c1")), item("q", ask("c2"))];
    const question = (id: string, prompt: string, secret = false) => ({
      id,
      header: id,
      prompt,
      kind: "single" as const,
      options: [{ label: "pytest", description: "" }],
      allow_other: true,
      secret,
    });
    const stored = {
      request: {
        request_id: "r1",
        thread_id: "t1",
        turn_id: "q",
        call_id: "c1",
        questions: [question("runner", "Which runner?"), question("token", "API token?", true)],
      },
      outcome: {
        status: "answered" as const,
        answers: {
          runner: { selected: ["pytest"], note: "fast" },
          token: { selected: [], other: "[redacted secret]" },
        },
        unanswered: [],
        responder: { kind: "tui" },
      },
    } as any;
    const pending = { ...stored, request: { ...stored.request, call_id: "c2" }, outcome: null };
    const [t] = codexTurns([turn("q", "completed")], items, "/work", (callId) =>
      callId === "c1" ? stored : callId === "c2" ? pending : undefined,
    );
    expect(
      validator.serverNotification({ method: "turn/completed", params: { threadId: "t1", turn: t } }),
    ).toEqual([]);
    // Fails if answered questions vanish from resumed history, or a pending one is drawn twice.
    expect(t.items.slice(1)).toHaveLength(1);
    expect(t.items[1]).toMatchObject({
      type: "dynamicToolCall",
      id: "c1",
      tool: "request_user_input",
      status: "completed",
      success: true,
      contentItems: [{ type: "inputText", text: "Which runner? → pytest (note: fast)\nAPI token? → ••••" }],
    });
  });
});
