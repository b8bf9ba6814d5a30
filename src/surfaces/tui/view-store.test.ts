import { describe, expect, it, vi } from "vitest";
import type { Event } from "../../protocol/events.js";
import { emptyUsage } from "../../protocol/events.js";
import type { Cell } from "./cells.js";
import { plain } from "./markdown.js";
import { nameQuestion, requestOf } from "./test-fixtures.js";
import { ViewStore } from "./view-store.js";

const T = { thread_id: "t1", turn_id: "turn1" };
const info = { id: "t1", model: "m", mode: "default" as const, cwd: "/w" };
const agentText = (cells: Cell[]) =>
  cells
    .filter((c): c is Extract<Cell, { kind: "agent" }> => c.kind === "agent")
    .flatMap((c) => c.lines.map(plain));

function feed(store: ViewStore, ...events: Event[]) {
  for (const e of events) store.handle(e);
}

describe("view store", () => {
  it("commits complete lines per frame and keeps only the tail live", () => {
    const s = new ViewStore(info);
    feed(
      s,
      { type: "item.started", ...T, item: { id: "m1", type: "agent_message", text: "" } },
      { type: "agent_message.delta", ...T, item_id: "m1", delta: "# Hi\n- one\n- tw" },
    );
    s.flushNow();
    let snap = s.getSnapshot();
    expect(agentText(snap.committed)).toEqual(["Hi", "• one"]);
    expect(snap.messages[0].text).toBe("- tw");
    feed(
      s,
      { type: "agent_message.delta", ...T, item_id: "m1", delta: "o\n```js\nx" },
      {
        type: "item.completed",
        ...T,
        item: { id: "m1", type: "agent_message", text: "# Hi\n- one\n- two\n```js\nx" },
      },
    );
    s.flushNow();
    snap = s.getSnapshot();
    expect(agentText(snap.committed)).toEqual(["Hi", "• one", "• two", "[js]", "x"]);
    expect(snap.messages).toEqual([]);
    const firsts = snap.committed
      .filter((c) => c.kind === "agent")
      .map((c) => (c as { first: boolean }).first);
    expect(firsts[0]).toBe(true);
    expect(firsts.slice(1).every((f) => !f)).toBe(true);
    s.dispose();
  });

  // Fake timers: the frame fires exactly at 20 ms, whatever the machine's load. Fails if each
  // delta notifies (or arms its own timer) instead of one notification per frame.
  it("throttles notifications to frames", () => {
    vi.useFakeTimers();
    try {
      const s = new ViewStore(info, { frameMs: 20, softWrapChars: 1e9 });
      const listener = vi.fn();
      s.subscribe(listener);
      for (let i = 0; i < 500; i++)
        s.handle({ type: "agent_message.delta", ...T, item_id: "m1", delta: "tok " });
      expect(listener).not.toHaveBeenCalled();
      vi.advanceTimersByTime(19);
      expect(listener).not.toHaveBeenCalled();
      vi.advanceTimersByTime(41);
      expect(listener).toHaveBeenCalledTimes(1);
      expect(s.getSnapshot().messages[0].text.length).toBe(2000);
      s.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it("folds reasoning, commands, steers and the turn end into cells", () => {
    const s = new ViewStore(info, { now: () => 1000 });
    feed(
      s,
      { type: "turn.started", ...T, mode: "plan" },
      { type: "reasoning.delta", ...T, item_id: "r1", delta: "think" },
      { type: "item.completed", ...T, item: { id: "r1", type: "reasoning", text: "thinking hard" } },
      {
        type: "item.started",
        ...T,
        item: {
          id: "c1",
          type: "command_execution",
          command: "ls",
          aggregated_output: "",
          exit_code: null,
          status: "in_progress",
        },
      },
      { type: "exec.output_delta", ...T, item_id: "c1", stream: "stdout", chunk: "a\nb\n" },
    );
    s.flushNow();
    expect(s.getSnapshot().execs[0].output).toBe("a\nb\n");
    expect(s.getSnapshot().status.mode).toBe("plan");
    feed(
      s,
      {
        type: "item.completed",
        ...T,
        item: {
          id: "c1",
          type: "command_execution",
          command: "ls",
          aggregated_output: "a\nb\n",
          exit_code: 0,
          status: "completed",
        },
      },
      { type: "input.queued", ...T, input_id: "u1", text: "also add tests" },
      { type: "input.queued", ...T, input_id: "u2", text: "too late" },
    );
    s.flushNow();
    expect(s.getSnapshot().queued.map((q) => q.text)).toEqual(["also add tests", "too late"]);
    feed(
      s,
      { type: "item.completed", ...T, item: { id: "u1", type: "user_message", text: "also add tests" } },
      { type: "turn.completed", ...T, status: "interrupted", usage: emptyUsage() },
    );
    s.flushNow();
    const snap = s.getSnapshot();
    expect(snap.queued).toEqual([]);
    expect(snap.committed.map((c) => c.kind)).toEqual(["reasoning", "exec", "user", "user", "turn"]);
    expect(snap.committed[3]).toMatchObject({ text: "too late", late: true });
    expect(snap.committed[4]).toMatchObject({ status: "interrupted", ms: 0 });
    expect(snap.status.turnStartedAt).toBeNull();
  });

  it("queues questions, follows deadline changes, and reports who settled them", () => {
    const s = new ViewStore(info);
    const r1 = requestOf([nameQuestion], { id: "q1" });
    const r2 = requestOf([nameQuestion], { id: "q2" });
    feed(
      s,
      { type: "question.requested", ...T, request: r1 },
      { type: "question.requested", ...T, request: r2 },
    );
    s.addPending(r1); // duplicate from broker.list is ignored
    feed(s, { type: "question.deadline_changed", ...T, request_id: "q1", deadline: 99 });
    s.flushNow();
    let snap = s.getSnapshot();
    expect(snap.pending.map((p) => [p.request.request_id, p.request.deadline])).toEqual([
      ["q1", 99],
      ["q2", null],
    ]);
    // Answered by another surface while on screen → "answered elsewhere".
    const outcome = {
      status: "answered" as const,
      answers: { name: { selected: [], other: "x" } },
      unanswered: [],
      responder: { kind: "http" },
    };
    feed(s, { type: "question.answered", ...T, request_id: "q1", outcome, responder: { kind: "http" } });
    s.flushNow();
    snap = s.getSnapshot();
    expect(snap.settled?.text).toBe("Answered elsewhere (by http).");
    expect(snap.pending).toHaveLength(1);
    expect(snap.committed.at(-1)?.kind).toBe("questions");
    s.dismissSettled();
    // Answered by this TUI → no notice.
    s.markOwn("q2");
    feed(s, { type: "question.answered", ...T, request_id: "q2", outcome, responder: { kind: "tui" } });
    s.flushNow();
    expect(s.getSnapshot().settled).toBeNull();
    expect(s.getSnapshot().pending).toEqual([]);
  });

  it("ignores other threads' events", () => {
    const s = new ViewStore(info);
    s.handle({ type: "agent_message.delta", thread_id: "other", turn_id: "x", item_id: "m", delta: "hi\n" });
    s.handle({
      type: "question.requested",
      thread_id: "other",
      turn_id: "x",
      request: requestOf([nameQuestion], { thread: "other" }),
    });
    s.flushNow();
    expect(s.getSnapshot().messages).toEqual([]);
    expect(s.getSnapshot().pending).toEqual([]);
  });
});

describe("view store soft wrap", () => {
  it("commits a long unbroken paragraph in pieces and the final text stays whole", () => {
    const s = new ViewStore(info, { softWrapChars: 100 });
    const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(" ");
    s.handle({ type: "agent_message.delta", ...T, item_id: "m1", delta: words });
    s.flushNow();
    expect(s.getSnapshot().messages[0].text.length).toBeLessThan(words.length);
    s.handle({ type: "item.completed", ...T, item: { id: "m1", type: "agent_message", text: words } });
    s.flushNow();
    expect(agentText(s.getSnapshot().committed).join(" ")).toBe(words);
  });
});

describe("view store richer items", () => {
  it("turns a tool call that finishes as todo_list / file_change into plan and files cells", () => {
    const s = new ViewStore(info);
    const start = (id: string, tool: string): Event => ({
      type: "item.started",
      ...T,
      item: { id, type: "tool_call", tool, arguments: "", status: "in_progress" },
    });
    feed(s, start("p1", "update_plan"), start("f1", "apply_patch"));
    s.flushNow();
    expect(s.getSnapshot().tools).toHaveLength(2);
    feed(
      s,
      {
        type: "item.completed",
        ...T,
        item: {
          id: "p1",
          type: "todo_list",
          items: [],
          explanation: null,
          plan: [{ step: "a", status: "completed" }],
        },
      },
      {
        type: "plan.updated",
        ...T,
        explanation: null,
        plan: [
          { step: "a", status: "completed" },
          { step: "b", status: "pending" },
        ],
      },
      {
        type: "item.completed",
        ...T,
        item: {
          id: "f1",
          type: "file_change",
          changes: [{ path: "x", kind: "add", diff: "+x" }],
          status: "completed",
        },
      },
    );
    s.flushNow();
    const snap = s.getSnapshot();
    expect(snap.tools).toEqual([]);
    expect(snap.committed.map((c) => c.kind)).toEqual(["plan", "files"]);
    expect(snap.status.plan).toEqual({ done: 1, total: 2 });
  });
  // Fails if a failed turn's error is shown twice: an "error:" notice and the "Turn failed" cell.
  it("shows a turn's final error once, in its Turn failed cell", () => {
    const s = new ViewStore(info);
    const error = { kind: "stream" as const, message: "cannot reach http://x/v1: connection refused" };
    feed(
      s,
      { type: "turn.started", ...T, mode: "default" },
      { type: "error", ...T, error, will_retry: false },
      { type: "turn.completed", ...T, status: "failed", usage: emptyUsage(), error },
    );
    s.flushNow();
    const shown = JSON.stringify(s.getSnapshot().committed);
    expect(shown.split("connection refused").length - 1).toBe(1);
    s.dispose();
  });
});
