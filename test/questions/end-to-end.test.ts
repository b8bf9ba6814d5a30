/**
 * The question protocol through the real loop and the scripted model over HTTP (README "Questions"'s
 * matrix): gates, round trips, parallel questions, decline/interrupt/late replies, wrong
 * thread, timeouts and touch, secrets, hooks.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import type { QuestionRequest } from "../../src/protocol/questions.js";
import { withheldModelResult } from "../../src/questions/model.js";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { checkpointBlobs, homeFiles } from "../helpers/checkpoints.js";
import { type Harness, harness } from "../helpers/index.js";

type Q = {
  id: string;
  header: string;
  question: string;
  options?: { label: string; description: string }[];
  multi_select?: boolean;
  secret?: boolean;
};
const ask = (call_id: string, questions: Q[]) => ({
  type: "function_call" as const,
  name: "request_user_input",
  arguments: { questions },
  call_id,
});
const say = (text: string) => ({ type: "message" as const, text });
const STACK: Q = {
  id: "stack",
  header: "Stack",
  question: "Which stack?",
  options: [
    { label: "TypeScript (Recommended)", description: "fast to start" },
    { label: "Rust", description: "fast to run" },
  ],
};
const NAME: Q = { id: "name", header: "Name", question: "Project name?" };
const TESTS: Q = {
  id: "tests",
  header: "Tests",
  question: "Which test kinds?",
  multi_select: true,
  options: [
    { label: "unit", description: "" },
    { label: "e2e", description: "" },
    { label: "bench", description: "" },
  ],
};

/** The JSON the model got for call `id` in the request after it. */
function resultFor(h: Harness, callId: string): any {
  for (const body of h.model.requests as any[]) {
    const out = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (out) return out.output.startsWith("{") ? JSON.parse(out.output) : out.output;
  }
  return undefined;
}

const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";

describe("questions end to end", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function planThread(script: unknown, overrides: string[] = [], responder = true) {
    h = await harness({ script: script as any, overrides });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    if (responder) h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    return thread;
  }

  it("gates: default mode, no responder and sub-agent get distinct errors and never wait", async () => {
    const steps = { steps: [{ output: [ask("g1", [STACK])] }, { output: [say("ok")] }] };
    // Default mode, default_mode=false
    h = await harness({ script: steps });
    let t = h.runtime.threads.start({ cwd: h.cwd, mode: "default" });
    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    expect((await t.startTurn("x").done).status).toBe("completed");
    expect(resultFor(h, "g1")).toMatch(/unavailable in Default mode/);
    await h.close();
    // Plan mode, no responder: unavailable JSON, no wait.
    h = await harness({ script: steps });
    t = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    expect((await t.startTurn("x").done).status).toBe("completed");
    expect(resultFor(h, "g1").status).toBe("unavailable");
    expect(h.events.some((e) => e.event.type === "question.requested")).toBe(false);
    await h.close();
    // Sub-agent with sub_agents=deny: root-thread error first, even in plan mode with a responder.
    h = await harness({ script: steps, overrides: ['questions.sub_agents="deny"'] });
    t = h.runtime.threads.start({ cwd: h.cwd, mode: "plan", parentId: "parent_thread" });
    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    expect((await t.startTurn("x").done).status).toBe("completed");
    expect(resultFor(h, "g1")).toMatch(/only be used by the root thread/);
  });

  it("round trip: single with note, multi, free text; the answer reaches the next request", async () => {
    const thread = await planThread({
      steps: [
        { output: [ask("c1", [STACK, TESTS, NAME])] },
        {
          expect: { input_contains: ["Rust", "e2e", "tandem-demo", "keep it small"] },
          output: [say("thanks")],
        },
      ],
    });
    const turn = thread.startTurn("plan it");
    const ev = (await h!.waitFor(requested)) as EventOf<"question.requested">;
    expect(ev.request.questions.map((q) => q.kind)).toEqual(["single", "multi", "text"]);
    expect(ev.request.questions.every((q) => q.allow_other)).toBe(true);
    expect(thread.status).toBe("waiting_on_user");
    const r = h!.runtime.questions.reply(
      thread.id,
      ev.request.request_id,
      {
        answers: {
          stack: { selected: ["Rust"], note: "keep it small" },
          tests: { selected: ["unit", "e2e"] },
          name: { selected: [], other: "tandem-demo" },
        },
      },
      { kind: "test", id: "me" },
    );
    expect(r.ok).toBe(true);
    expect((await turn.done).status).toBe("completed");
    expect(resultFor(h!, "c1")).toEqual({
      status: "answered",
      answers: {
        stack: { selected: ["Rust"], note: "keep it small" },
        tests: { selected: ["unit", "e2e"] },
        name: { selected: [], other: "tandem-demo" },
      },
      unanswered: [],
    });
    const answered = h!.events.find((e) => e.event.type === "question.answered")!.event as any;
    expect(answered.responder).toEqual({ kind: "test", id: "me" });
  });

  it('rejects a misplaced "(Recommended)" with a precise error and no wait', async () => {
    await planThread({
      steps: [
        {
          output: [
            ask("r1", [
              {
                ...STACK,
                options: [
                  { label: "Rust", description: "" },
                  { label: "Go (Recommended)", description: "" },
                ],
              },
            ]),
          ],
        },
        { output: [say("ok")] },
      ],
    });
    const t = h!.runtime.threads.loaded()[0];
    expect((await t.startTurn("x").done).status).toBe("completed");
    expect(resultFor(h!, "r1")).toMatch(/Recommended/);
    expect(h!.events.some((e) => e.event.type === "question.requested")).toBe(false);
  });

  it("two questions pending in one turn (parallel calls), answered in reverse order, reach their own calls", async () => {
    const thread = await planThread({
      steps: [{ output: [ask("pa", [STACK]), ask("pb", [NAME])] }, { output: [say("both")] }],
    });
    const turn = thread.startTurn("two at once");
    await h!.waitFor((e) => e.type === "question.requested" && e.request.call_id === "pb");
    await h!.waitFor((e) => e.type === "question.requested" && e.request.call_id === "pa");
    const pending = h!.runtime.questions.list({ threadId: thread.id });
    expect(pending).toHaveLength(2);
    const byCall = (c: string) => pending.find((p) => p.call_id === c)!;
    expect(
      h!.runtime.questions.reply(
        thread.id,
        byCall("pb").request_id,
        { answers: { name: { selected: [], other: "second-first" } } },
        { kind: "test" },
      ).ok,
    ).toBe(true);
    expect(
      h!.runtime.questions.reply(
        thread.id,
        byCall("pa").request_id,
        { answers: { stack: { selected: ["TypeScript (Recommended)"] } } },
        { kind: "test" },
      ).ok,
    ).toBe(true);
    expect((await turn.done).status).toBe("completed");
    expect(resultFor(h!, "pa").answers.stack.selected).toEqual(["TypeScript (Recommended)"]);
    expect(resultFor(h!, "pb").answers.name.other).toBe("second-first");
    const outs = (h!.model.requests as any[])[1].input
      .filter((i: any) => i.type === "function_call_output")
      .map((i: any) => i.call_id);
    expect(outs).toEqual(["pa", "pb"]);
  });

  it("decline reaches the model as declined, never as an answer", async () => {
    const thread = await planThread({ steps: [{ output: [ask("d1", [STACK])] }, { output: [say("ok")] }] });
    const turn = thread.startTurn("x");
    const ev = (await h!.waitFor(requested)) as EventOf<"question.requested">;
    expect(
      h!.runtime.questions.decline(thread.id, ev.request.request_id, { kind: "test" }, "not now").ok,
    ).toBe(true);
    await turn.done;
    const res = resultFor(h!, "d1");
    expect(res.status).toBe("declined");
    expect(res.answers).toEqual({});
    expect(res.unanswered).toEqual(["stack"]);
  });

  it("interrupt cancels pending questions promptly, records the call aborted, and refuses a late reply", async () => {
    const thread = await planThread({ steps: [{ output: [ask("i1", [STACK])] }] });
    const turn = thread.startTurn("x");
    const ev = (await h!.waitFor(requested)) as EventOf<"question.requested">;
    thread.interrupt();
    const outcome = await turn.done;
    expect(outcome.status).toBe("interrupted");
    expect(h!.events.some((e) => e.event.type === "question.cancelled")).toBe(true);
    const items = h!.runtime.threads.history(thread.id).map((s) => s.item);
    expect(items.find((i) => i.type === "function_call_output")).toEqual({
      type: "function_call_output",
      call_id: "i1",
      output: "aborted",
    });
    const late = h!.runtime.questions.reply(
      thread.id,
      ev.request.request_id,
      { answers: { stack: { selected: ["Rust"] } } },
      { kind: "test" },
    );
    expect(late).toMatchObject({ ok: false, code: "cancelled" });
    expect(runtimeInternals(h!.runtime).broker.size).toBe(0);
    expect(h!.runtime.questions.stored(thread.id)).toEqual([]);
    expect(thread.status).toBe("idle");
  });

  it("a reply naming another thread is refused and changes nothing", async () => {
    const thread = await planThread({ steps: [{ output: [ask("w1", [STACK])] }, { output: [say("ok")] }] });
    const other = h!.runtime.threads.start({ cwd: h!.cwd });
    const turn = thread.startTurn("x");
    const ev = (await h!.waitFor(requested)) as EventOf<"question.requested">;
    const wrong = h!.runtime.questions.reply(
      other.id,
      ev.request.request_id,
      { answers: { stack: { selected: ["Rust"] } } },
      { kind: "test" },
    );
    expect(wrong).toMatchObject({ ok: false, code: "wrong_thread" });
    expect(h!.runtime.questions.list({ threadId: thread.id })).toHaveLength(1);
    expect(
      h!.runtime.questions.reply(
        thread.id,
        ev.request.request_id,
        { answers: { stack: { selected: ["Rust"] } } },
        { kind: "test" },
      ).ok,
    ).toBe(true);
    expect((await turn.done).status).toBe("completed");
  });

  it("timeout policy fires with on_timeout=recommended; touch snoozes it", async () => {
    const thread = await planThread({
      steps: [{ output: [ask("t1", [STACK])] }, { output: [say("ok")] }],
    });
    const turn = thread.startTurn("x", {
      options: { question_policy: { type: "timeout", ms: 400, on_timeout: "recommended" } },
    });
    const ev = (await h!.waitFor(requested)) as EventOf<"question.requested">;
    expect(ev.request.deadline).toBe(ev.request.created_at + 400);
    // No sleep raced against the 400 ms timer: touch in the same macrotask that delivered the
    // request (the timer cannot fire in between), spinning synchronously only until the clock
    // ticks so the new deadline is strictly later. Fails if touch leaves the deadline unchanged.
    while (Date.now() <= ev.request.created_at) {
      // a millisecond at most
    }
    const touched = h!.runtime.questions.touch(ev.request.request_id, { kind: "test" });
    expect(touched.ok).toBe(true);
    const changed = (await h!.waitFor((e) => e.type === "question.deadline_changed")) as any;
    expect(changed.deadline).toBeGreaterThan(ev.request.deadline!);
    const timedOut = h!.events.find((e) => e.event.type === "question.timed_out");
    expect(timedOut).toBeUndefined();
    await turn.done;
    const fired = h!.events.find((e) => e.event.type === "question.timed_out")!;
    expect(fired.time).toBeGreaterThanOrEqual(changed.deadline);
    const res = resultFor(h!, "t1");
    expect(res.status).toBe("timed_out");
    expect(res.policy).toEqual({ type: "timeout", ms: 400, on_timeout: "recommended" });
    expect(res.answers.stack.selected).toEqual(["TypeScript (Recommended)"]);
  });

  it("timeout with on_timeout=empty reports timed_out with nothing answered", async () => {
    const thread = await planThread({
      steps: [{ output: [ask("t2", [STACK, NAME])] }, { output: [say("ok")] }],
    });
    await thread.startTurn("x", {
      options: { question_policy: { type: "timeout", ms: 100, on_timeout: "empty" } },
    }).done;
    const res = resultFor(h!, "t2");
    expect(res).toMatchObject({ status: "timed_out", answers: {}, unanswered: ["stack", "name"] });
  });

  it("secrets never reach the db file, events or model requests; exec expands the handle", async () => {
    const SECRET = "sk-SECRET-8f3a91c2d7";
    const thread = await planThread({
      steps: [
        {
          output: [
            ask("s1", [{ id: "api_key", header: "API key", question: "Paste your API key", secret: true }]),
          ],
        },
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: {
                cmd: 'printf "%s" "$TANDEM_SECRET_API_KEY" > key.txt; echo "key is $TANDEM_SECRET_API_KEY"',
              },
              call_id: "s2",
            },
          ],
        },
        { output: [say("stored")] },
      ],
    });
    const turn = thread.startTurn("configure the key");
    const ev = (await h!.waitFor(requested)) as EventOf<"question.requested">;
    expect(ev.request.questions[0].secret).toBe(true);
    expect(
      h!.runtime.questions.reply(
        thread.id,
        ev.request.request_id,
        { answers: { api_key: { selected: [], other: SECRET } } },
        { kind: "test" },
      ).ok,
    ).toBe(true);
    expect((await turn.done).status).toBe("completed");
    // The command got the real value through its environment...
    expect(readFileSync(join(h!.cwd, "key.txt"), "utf8")).toBe(SECRET);
    // ...while the model saw only the handle and a masked output.
    expect(resultFor(h!, "s1").answers.api_key.other).toBe("$TANDEM_SECRET_API_KEY");
    expect(resultFor(h!, "s2")).toContain("key is [redacted secret]");
    expect(JSON.stringify(h!.model.requests)).not.toContain(SECRET);
    expect(JSON.stringify(h!.events)).not.toContain(SECRET);
    await h!.runtime.shutdown();
    for (const f of homeFiles(h!.home)) {
      expect(readFileSync(join(h!.home, f)).includes(SECRET), `${f} contains the secret`).toBe(false);
    }
    // key.txt holds the secret: it is kept out of the workspace's checkpoint store.
    for (const blob of checkpointBlobs(h!.home))
      expect(blob.includes(SECRET), "a checkpoint holds it").toBe(false);
  });

  it("hooks: a pre hook rewrites questions before they are shown; a post hook withholds the answer", async () => {
    const thread = await planThread({ steps: [{ output: [ask("h1", [STACK])] }, { output: [say("ok")] }] });
    h!.runtime.addToolHooks({
      pre: (call) =>
        call.name === "request_user_input"
          ? { args: { questions: [{ ...STACK, question: "Which stack (rewritten by policy)?" }] } }
          : undefined,
      post: (call) =>
        call.name === "request_user_input" ? { output: withheldModelResult(["stack"], "policy") } : undefined,
    });
    const turn = thread.startTurn("x");
    const ev = (await h!.waitFor(requested)) as EventOf<"question.requested">;
    expect(ev.request.questions[0].prompt).toBe("Which stack (rewritten by policy)?");
    h!.runtime.questions.reply(
      thread.id,
      ev.request.request_id,
      { answers: { stack: { selected: ["Rust"] } } },
      { kind: "test" },
    );
    await turn.done;
    expect(resultFor(h!, "h1").status).toBe("withheld");
    expect(JSON.stringify(resultFor(h!, "h1"))).not.toContain("Rust");
    // The interaction itself happened and is on record.
    expect(h!.events.some((e) => e.event.type === "question.answered")).toBe(true);
  });

  it("a pre hook can block the question before anything is shown", async () => {
    const thread = await planThread({ steps: [{ output: [ask("b1", [STACK])] }, { output: [say("ok")] }] });
    h!.runtime.addToolHooks({
      pre: (call) =>
        call.name === "request_user_input" ? { block: "questions are off during CI" } : undefined,
    });
    await thread.startTurn("x").done;
    expect(resultFor(h!, "b1")).toBe("blocked by hook: questions are off during CI");
    expect(h!.events.some((e) => e.event.type === "question.requested")).toBe(false);
  });

  // Fails if the broker's list is not oldest-first across threads (e.g. queueOrder reversed), or
  // if an answered secret leaks into the pending list.
  it("keeps a list of pending requests that is secret-free and FIFO", async () => {
    const SECRET = "sk-FIFO-5e2d8c1b9a";
    const KEY: Q = { id: "api_key", header: "API key", question: "Paste your API key", secret: true };
    h = await harness({
      script: {
        steps: [
          { output: [ask("f1", [STACK])] },
          { output: [ask("s1", [KEY])] },
          { output: [ask("f2", [NAME])] },
          { output: [ask("f3", [TESTS])] },
        ],
      },
    });
    const open = () => {
      const t = h!.runtime.threads.start({ cwd: h!.cwd, mode: "plan" });
      h!.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
      return t;
    };
    const asked = async (callId: string) => {
      const e = (await h!.waitFor(
        (e) => requested(e) && e.request.call_id === callId,
      )) as EventOf<"question.requested">;
      // The next request must be strictly younger, so FIFO is decided by order, not a tie.
      while (Date.now() <= e.request.created_at) await new Promise((r) => setTimeout(r, 1));
      return e.request;
    };
    const a = open();
    a.startTurn("a");
    await asked("f1");
    const b = open();
    b.startTurn("b");
    const secret = await asked("s1");
    expect(
      h.runtime.questions.reply(
        b.id,
        secret.request_id,
        { answers: { api_key: { selected: [], other: SECRET } } },
        { kind: "test" },
      ).ok,
    ).toBe(true);
    await asked("f2");
    const c = open();
    c.startTurn("c");
    await asked("f3");
    const list: QuestionRequest[] = h.runtime.questions.list();
    expect(list.map((q) => q.call_id)).toEqual(["f1", "f2", "f3"]);
    expect(list.map((q) => q.thread_id)).toEqual([a.id, b.id, c.id]);
    expect(JSON.stringify(list)).not.toContain(SECRET);
  });
});
