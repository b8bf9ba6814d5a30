/**
 * The one `Store` contract suite (requirements P1), run against every implementation by
 * ./contract.test.ts: SQLite files and PostgreSQL databases. `newTarget()` gives a fresh,
 * empty store target (a path or a URL) per test; `store()` opens it (again) and closes every
 * opened store after the test. Implementation-specific behaviour (file modes, pragmas, schema
 * refusal, fencing) is tested beside each implementation.
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Usage } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";
import type { QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import { openStore, type Store, StoreError } from "./index.js";
import type { Lease } from "./lease.js";
import type { ThreadRecord, TurnRecord } from "./types.js";

export function storeContract(newTarget: () => string): void {
  let target: string;
  const open: Store[] = [];
  function store(t = target): Store {
    const s = openStore(t);
    open.push(s);
    return s;
  }
  beforeEach(() => {
    target = newTarget();
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  describe("threads", () => {
    it("round-trips a record, including settings JSON", () => {
      const s = store();
      const t = thread("t1", { parent_id: "t0", mode: "plan", status: "running" });
      s.createThread(t);
      expect(s.getThread("t1")).toEqual(t);
      expect(s.getThread("nope")).toBeUndefined();
    });

    it("reads settings typed: a value that does not fit its key is dropped, unknown keys are kept", () => {
      const s = store();
      // As a hand-edited database might hold them (JSON.parse: no type to satisfy).
      const stored = JSON.parse(
        '{"effort":5,"sandbox_mode":"read-only","approval_policy":"sometimes","x":[1]}',
      );
      s.createThread(thread("t1", { settings: stored }));
      expect(s.getThread("t1")!.settings).toEqual({ sandbox_mode: "read-only", x: [1] });
      expect(s.listThreads()[0].settings).toEqual({ sandbox_mode: "read-only", x: [1] });
    });

    it("refuses a duplicate id with a conflict error", () => {
      const s = store();
      s.createThread(thread("t1"));
      expect(() => s.createThread(thread("t1"))).toThrowError(/already exists/);
      try {
        s.createThread(thread("t1"));
      } catch (e) {
        expect(StoreError.isInstance(e) && e.code).toBe("conflict");
      }
    });

    it("patches fields, ignores undefined, bumps updated_at unless given", () => {
      const s = store();
      s.createThread(thread("t1"));
      const before = Date.now();
      s.updateThread("t1", {
        title: "renamed",
        status: "waiting_on_user",
        model: undefined,
        settings: { a: 1 },
      });
      const got = s.getThread("t1")!;
      expect(got).toMatchObject({
        title: "renamed",
        status: "waiting_on_user",
        model: "gpt-test",
        settings: { a: 1 },
      });
      expect(got.updated_at).toBeGreaterThanOrEqual(before);
      s.updateThread("t1", { updated_at: 5 });
      expect(s.getThread("t1")!.updated_at).toBe(5);
      expect(() => s.updateThread("ghost", { title: "x" })).toThrowError(/ghost does not exist/);
    });

    it("lists most recently updated first, with a limit", () => {
      const s = store();
      s.createThread(thread("a", { updated_at: 10 }));
      s.createThread(thread("b", { updated_at: 30 }));
      s.createThread(thread("c", { updated_at: 20 }));
      expect(s.listThreads().map((t) => t.id)).toEqual(["b", "c", "a"]);
      expect(s.listThreads({ limit: 2 }).map((t) => t.id)).toEqual(["b", "c"]);
      s.appendItem("a", null, msg("bump")); // appending touches the thread
      expect(s.listThreads({ limit: 1 })[0].id).toBe("a");
    });
  });

  describe("items", () => {
    it("assigns contiguous 1-based seqs per thread and loads them in order", () => {
      const s = store();
      s.createThread(thread("t1", { updated_at: 0 }));
      s.createThread(thread("t2"));
      const items: ResponseItem[] = [
        msg("hello"),
        {
          type: "reasoning",
          summary: [{ type: "summary_text", text: "thinking" }],
          encrypted_content: "enc",
        },
        { type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}', call_id: "c1" },
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "out" }] },
        { type: "custom_tool_call", name: "apply_patch", input: "*** Begin", call_id: "c2" },
        { type: "custom_tool_call_output", call_id: "c2", output: "done" },
      ];
      const seqs = items.map((it, i) => s.appendItem("t1", i < 2 ? null : "turn_1", it));
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
      expect(s.appendItem("t2", "turn_9", msg("other"))).toBe(1);

      const loaded = s.loadItems("t1");
      expect(loaded.map((r) => r.item)).toEqual(items);
      expect(loaded.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(loaded[0]).toMatchObject({ thread_id: "t1", turn_id: null });
      expect(loaded[2].turn_id).toBe("turn_1");
      expect(loaded[5].created_at).toBeGreaterThan(0);
      expect(s.getThread("t1")!.updated_at).toBe(loaded[5].created_at);
      expect(s.countItems("t1")).toBe(6);
      expect(s.countItems("t2")).toBe(1);
      expect(s.countItems("none")).toBe(0);
      expect(s.loadItems("none")).toEqual([]);
    });

    // Fails if items past the cut survive, the dropped turns stay, or the next seq skips/repeats.
    it("truncateHistory keeps the first N items, drops the named turns, continues the seqs", () => {
      const s = store();
      s.createThread(thread("t1"));
      s.createThread(thread("t2"));
      for (const [i, turn] of ["a", "a", "b", "b", "c"].entries())
        s.appendItem("t1", `turn_${turn}`, msg(`m${i}`));
      s.appendItem("t2", "turn_x", msg("other"));
      for (const id of ["turn_a", "turn_b", "turn_c"])
        s.putTurn({
          id,
          thread_id: "t1",
          started_at: 1,
          ended_at: 2,
          status: "completed",
          usage: null,
          error: null,
        });
      s.truncateHistory("t1", 2, ["turn_b", "turn_c"]);
      expect(s.loadItems("t1").map((r) => [r.seq, r.item])).toEqual([
        [1, msg("m0")],
        [2, msg("m1")],
      ]);
      expect(s.countItems("t1")).toBe(2);
      expect(s.listTurns("t1").map((t) => t.id)).toEqual(["turn_a"]);
      expect(s.appendItem("t1", "turn_d", msg("next"))).toBe(3);
      expect(s.loadItems("t2")).toHaveLength(1);
      expect(() => s.truncateHistory("ghost", 0, [])).toThrowError(/thread ghost does not exist/);
    });

    it("refuses items for an unknown thread with a not_found error", () => {
      const s = store();
      expect(() => s.appendItem("ghost", null, msg("x"))).toThrowError(/thread ghost does not exist/);
    });

    // Fails if seqs skip or repeat, or loadItems reorders or drops items. (Speed is a figure in
    // `npm run bench`, not asserted here.)
    it("appends and loads 10,000 items in order with consecutive seqs", () => {
      const s = store();
      s.createThread(thread("big"));
      for (let i = 1; i <= 10_000; i++) {
        const item: ResponseItem = {
          type: "function_call_output",
          call_id: `c${i}`,
          output: "y".repeat(300),
        };
        expect(s.appendItem("big", "turn", item)).toBe(i);
      }
      const loaded = s.loadItems("big");
      expect(loaded).toHaveLength(10_000);
      loaded.forEach((row, i) => {
        expect(row.seq).toBe(i + 1);
        expect((row.item as { call_id: string }).call_id).toBe(`c${i + 1}`);
      });
    });
  });

  describe("turns", () => {
    const turn = (id: string, startedAt: number): TurnRecord => ({
      id,
      thread_id: "t1",
      started_at: startedAt,
      ended_at: null,
      status: "running",
      usage: null,
      error: null,
    });

    it("puts (upserts), patches and lists turns in start order", () => {
      const s = store();
      s.createThread(thread("t1"));
      s.putTurn(turn("u2", 200));
      s.putTurn(turn("u1", 100));
      expect(s.listTurns("t1").map((t) => t.id)).toEqual(["u1", "u2"]);
      expect(s.lastTurn("t1")?.id).toBe("u2");
      expect(s.lastTurn("other")).toBeUndefined();

      const usage = {
        input_tokens: 10,
        cached_input_tokens: 2,
        output_tokens: 5,
        reasoning_output_tokens: 1,
        total_tokens: 15,
      };
      s.updateTurn("u1", { status: "completed", ended_at: 150, usage, error: undefined });
      expect(s.listTurns("t1")[0]).toEqual({ ...turn("u1", 100), status: "completed", ended_at: 150, usage });

      s.putTurn({ ...turn("u2", 200), status: "failed", error: "boom" });
      expect(s.listTurns("t1")[1]).toMatchObject({ status: "failed", error: "boom" });
      expect(s.lastTurn("t1")).toEqual(s.listTurns("t1")[1]);
      // Started in the same millisecond: the one put last is the latest, as listTurns orders them.
      s.putTurn(turn("u4", 200));
      expect(s.lastTurn("t1")?.id).toBe("u4");
      expect(s.listTurns("t1").at(-1)?.id).toBe("u4");
      expect(s.listTurns("other")).toEqual([]);
      expect(() => s.updateTurn("ghost", { status: "failed" })).toThrowError(/ghost does not exist/);
      expect(() => s.putTurn({ ...turn("u3", 1), thread_id: "ghost" })).toThrowError(/ghost does not exist/);
    });

    // Fails if the diff column is not written by updateTurn/putTurn, not read back (after a
    // reopen too), if a patch without `diff` erases it, or if a turn without one reads a diff.
    it("keeps each turn's diff, across a reopen", () => {
      const diff = "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old\n+new\n";
      let s = store();
      s.createThread(thread("t1"));
      s.putTurn(turn("u1", 100));
      s.putTurn({ ...turn("u2", 200), status: "completed", diff: "put diff" });
      expect(s.listTurns("t1")[0].diff).toBeUndefined();
      s.updateTurn("u1", { status: "completed", ended_at: 150, diff });
      s.updateTurn("u1", { error: "later patch" });
      expect(s.listTurns("t1").map((t) => t.diff)).toEqual([diff, "put diff"]);
      s.updateTurn("u2", { diff: null });
      s.close();
      s = store();
      expect(s.listTurns("t1").map((t) => t.diff)).toEqual([diff, undefined]);
    });
  });

  describe("questions", () => {
    it("saves idempotently, keeping the first request", () => {
      const s = store();
      s.createThread(thread("t1"));
      const q = question("r1", "t1", 100);
      s.saveQuestion(q);
      s.saveQuestion({ ...q, call_id: "changed", created_at: 999 });
      expect(s.getQuestion("r1")).toEqual({ request: q, outcome: null });
      expect(s.getQuestion("nope")).toBeUndefined();
    });

    it("settles once; the first outcome wins and leaves the pending list", () => {
      const s = store();
      s.createThread(thread("t1"));
      s.saveQuestion(question("r1", "t1", 100));
      s.settleQuestion("r1", answered);
      s.settleQuestion("r1", { status: "cancelled", reason: "late" });
      s.settleQuestion("unknown", answered); // no-op
      expect(s.getQuestion("r1")!.outcome).toEqual(answered);
      expect(s.pendingQuestions()).toEqual([]);
    });

    it("lists pending questions by created_at, optionally for one thread", () => {
      const s = store();
      s.createThread(thread("t1"));
      s.createThread(thread("t2"));
      s.saveQuestion(question("late", "t1", 300));
      s.saveQuestion(question("early", "t2", 100));
      s.saveQuestion(question("mid", "t1", 200));
      s.saveQuestion(question("done", "t1", 50));
      s.settleQuestion("done", { status: "declined", responder: { kind: "web", id: "phone" } });
      expect(s.pendingQuestions().map((q) => q.request_id)).toEqual(["early", "mid", "late"]);
      expect(s.pendingQuestions("t1").map((q) => q.request_id)).toEqual(["mid", "late"]);
      expect(s.pendingQuestions("t3")).toEqual([]);
    });

    it("moves the deadline of a pending request only", () => {
      const s = store();
      s.createThread(thread("t1"));
      s.saveQuestion(question("r1", "t1", 100));
      s.updateQuestionDeadline("r1", 1_700_000_000_123);
      expect(s.getQuestion("r1")!.request.deadline).toBe(1_700_000_000_123);
      s.updateQuestionDeadline("r1", null);
      expect(s.pendingQuestions()[0].deadline).toBeNull();
      s.settleQuestion("r1", answered);
      s.updateQuestionDeadline("r1", 42);
      expect(s.getQuestion("r1")!.request.deadline).toBeNull();
    });

    it("refuses a question for an unknown thread", () => {
      const s = store();
      expect(() => s.saveQuestion(question("r1", "ghost", 1))).toThrowError(/ghost does not exist/);
    });
  });

  describe("meta", () => {
    it("gets, sets and overwrites", () => {
      const s = store();
      expect(s.getMeta("k")).toBeUndefined();
      s.setMeta("k", "v1");
      s.setMeta("k", "v2");
      expect(s.getMeta("k")).toBe("v2");
    });
  });

  describe("durability and sharing", () => {
    it("sees the same data after close and reopen", () => {
      const a = store();
      a.createThread(thread("t1"));
      a.appendItem("t1", "turn_1", msg("one"));
      a.appendItem("t1", "turn_1", msg("two"));
      a.putTurn({
        id: "turn_1",
        thread_id: "t1",
        started_at: 1,
        ended_at: null,
        status: "running",
        usage: null,
        error: null,
      });
      a.saveQuestion(question("r1", "t1", 10));
      a.setMeta("schema_note", "x");
      const snapshot = {
        thread: a.getThread("t1"),
        items: a.loadItems("t1"),
        turns: a.listTurns("t1"),
        pending: a.pendingQuestions(),
      };
      a.close();

      const b = store();
      expect(b.getThread("t1")).toEqual(snapshot.thread);
      expect(b.loadItems("t1")).toEqual(snapshot.items);
      expect(b.listTurns("t1")).toEqual(snapshot.turns);
      expect(b.pendingQuestions()).toEqual(snapshot.pending);
      expect(b.getMeta("schema_note")).toBe("x");
      expect(b.appendItem("t1", null, msg("three"))).toBe(3); // seq continues
    });

    it("lets two open instances share one file", () => {
      const a = store();
      const b = store();
      a.createThread(thread("t1"));
      expect(b.getThread("t1")?.id).toBe("t1");
      const seqs: number[] = [];
      for (let i = 0; i < 50; i++) seqs.push((i % 2 ? a : b).appendItem("t1", null, msg(`m${i}`)));
      expect(seqs).toEqual(Array.from({ length: 50 }, (_, k) => k + 1));
      expect(a.loadItems("t1").map((r) => r.item)).toEqual(b.loadItems("t1").map((r) => r.item));

      // The same request saved and settled from both: one row, first outcome wins.
      a.saveQuestion(question("r1", "t1", 1));
      b.saveQuestion(question("r1", "t1", 2));
      b.settleQuestion("r1", answered);
      a.settleQuestion("r1", { status: "cancelled", reason: "shutdown" });
      expect(a.getQuestion("r1")).toEqual({ request: question("r1", "t1", 1), outcome: answered });
      b.updateThread("t1", { title: "from b" });
      expect(a.getThread("t1")!.title).toBe("from b");
    });
  });

  describe("thread leases", () => {
    const me = (token: string, since = Date.now()): Lease => ({
      pid: process.pid,
      host: hostname(),
      since,
      token,
    });

    // fails if a live holder's lease can be taken by another owner, or release ignores the token.
    it("grants a free lease, refuses a live holder, and frees only on the holder's release", () => {
      const a = store();
      a.createThread(thread("t1"));
      const b = store();
      const held = me("tok-a");
      expect(a.acquireLease("t1", held)).toEqual({ ok: true });
      const refused = b.acquireLease("t1", me("tok-b"));
      expect(refused.ok).toBe(false);
      expect(!refused.ok && refused.holder).toMatchObject(held);
      // The holder again (same token) keeps its lease and its `since`.
      expect(a.acquireLease("t1", me("tok-a", held.since + 5))).toEqual({ ok: true });
      expect(b.getLease("t1")).toMatchObject(held);
      b.releaseLease("t1", "tok-b");
      expect(b.getLease("t1")).toMatchObject(held);
      a.releaseLease("t1", "tok-a");
      expect(b.getLease("t1")).toBeUndefined();
      expect(b.acquireLease("t1", me("tok-b"))).toEqual({ ok: true });
    });

    // fails if a holder killed with -9 (never released) blocks the thread until anything else.
    it("takes over a lease whose holder is a dead pid on this host", () => {
      const s = store();
      s.createThread(thread("t1"));
      const dead: Lease = { pid: spawnSync("true").pid!, host: hostname(), since: Date.now(), token: "dead" };
      expect(s.acquireLease("t1", dead)).toEqual({ ok: true });
      const next = me("next");
      expect(store().acquireLease("t1", next)).toEqual({ ok: true });
      expect(s.getLease("t1")).toMatchObject(next);
    });

    it("refuses a lease on an unknown thread with not_found", () => {
      let caught: unknown;
      try {
        store().acquireLease("nope", me("x"));
      } catch (e) {
        caught = e;
      }
      expect(StoreError.isInstance(caught) && caught.code).toBe("not_found");
    });
  });

  describe("thread token totals", () => {
    const u = (input: number, output: number): Usage => ({
      input_tokens: input,
      cached_input_tokens: 1,
      output_tokens: output,
      reasoning_output_tokens: 0,
      total_tokens: input + output,
    });
    const turn = (id: string, threadId: string): TurnRecord => ({
      id,
      thread_id: threadId,
      started_at: 1,
      ended_at: null,
      status: "running",
      usage: null,
      error: null,
    });

    it("addUsage sums into the thread and the turn, and every read returns the total", () => {
      const s = store();
      s.createThread(thread("t1"));
      s.putTurn(turn("u1", "t1"));
      // fails if a thread starts with a usage before any response
      expect(s.getThread("t1")?.usage).toBeUndefined();
      s.addUsage("t1", "u1", u(10, 2));
      // fails if addUsage replaces instead of adding
      expect(s.addUsage("t1", "u1", u(5, 1))).toMatchObject({ input_tokens: 15, total_tokens: 18 });
      expect(s.getThread("t1")?.usage).toMatchObject({ total_tokens: 18, cached_input_tokens: 2 });
      expect(s.listThreads()[0].usage).toMatchObject({ total_tokens: 18 });
      expect(s.listTurns("t1")[0].usage).toMatchObject({ total_tokens: 18 });
      // fails if updateThread writes the usage column (a stale record would roll the total back)
      s.updateThread("t1", { ...thread("t1"), usage: u(0, 0) });
      expect(s.getThread("t1")?.usage?.total_tokens).toBe(18);
      // fails if a turn of another thread is charged
      s.createThread(thread("t2"));
      s.addUsage("t2", "u1", u(1, 1));
      expect(s.listTurns("t1")[0].usage?.total_tokens).toBe(18);
      s.close();
      // fails if the total is not stored (read back by a new connection)
      expect(store().getThread("t1")?.usage?.total_tokens).toBe(18);
      // fails if usage of an unknown thread is silently dropped
      let err: unknown;
      try {
        store().addUsage("nope", null, u(1, 1));
      } catch (e) {
        err = e;
      }
      expect(StoreError.isInstance(err) && err.code).toBe("not_found");
    });
  });

  describe("thread ids", () => {
    // fails if a fragment is matched as a pattern (LIKE wildcards) or from the wrong end.
    it("matches a prefix or a suffix literally, most recently updated first", () => {
      const s = store();
      s.createThread(thread("abc_1", { updated_at: 1 }));
      s.createThread(thread("abc_2", { updated_at: 2 }));
      s.createThread(thread("xbc_1", { updated_at: 3 }));
      expect(s.matchThreadIds("abc")).toEqual(["abc_2", "abc_1"]);
      expect(s.matchThreadIds("a_c")).toEqual([]);
      expect(s.matchThreadIds("_1", { suffix: true })).toEqual(["xbc_1", "abc_1"]);
      expect(s.matchThreadIds("abc", { limit: 1 })).toEqual(["abc_2"]);
    });
  });
}

function thread(id: string, over: Partial<ThreadRecord> = {}): ThreadRecord {
  return {
    id,
    session_id: id,
    parent_id: null,
    created_at: 1000,
    updated_at: 1000,
    cwd: "/work",
    model: "gpt-test",
    mode: "default",
    title: `thread ${id}`,
    status: "idle",
    settings: { effort: "high", nested: { policies: ["a", "b"] } },
    ...over,
  };
}

function question(id: string, threadId: string, createdAt: number): QuestionRequest {
  return {
    request_id: id,
    thread_id: threadId,
    turn_id: "turn_1",
    call_id: `call_${id}`,
    source: "model",
    questions: [
      {
        id: "color",
        header: "Color",
        prompt: "Which color?",
        kind: "single",
        options: [
          { label: "Red (Recommended)", description: "warm" },
          { label: "Blue", description: "cool" },
        ],
        allow_other: true,
        secret: false,
      },
    ],
    policy: { type: "timeout", ms: 5000, on_timeout: "recommended" },
    deadline: createdAt + 5000,
    created_at: createdAt,
  };
}

const answered: QuestionOutcome = {
  status: "answered",
  answers: { color: { selected: ["Blue"], note: "fine" } },
  unanswered: [],
  responder: { kind: "tui" },
};

const msg = (text: string): ResponseItem => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});
