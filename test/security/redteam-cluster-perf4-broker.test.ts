/**
 * Red team round 4, commit fc6da92 (src/questions/broker.ts settleOrRefuse): a settled question's
 * ask() promise resolves at setImmediate instead of in the settle's own microtask chain. Between
 * the settle (store row `answered`, `question.answered` published, waiter gone, pending count 0)
 * and the asker resuming, any other callback of the same poll phase now runs: another HTTP
 * request, a NATS frame of the same socket read, a SIGTERM, a hand-over.
 *
 * Before fc6da92 the asker's continuation (the tool returning, its output recorded by a blocking
 * store write) ran in the microtasks right after the reply's call, before any other macrotask.
 * fc6da92 was reverted (742d0d2) after these tests broke it; they stay as guards for any later
 * attempt to answer the replier before the asker resumes.
 *
 * Modelled here in-process: the reply and the other operation are issued in the same
 * synchronous run (as two I/O callbacks of one poll phase would be). Real Runtime, real SQLite,
 * the scripted model over real HTTP.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { createRuntime } from "../../src/runtime/create.js";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { type Harness, harness } from "../helpers/index.js";

const ASK = {
  type: "function_call" as const,
  name: "request_user_input",
  call_id: "ask_1",
  arguments: {
    questions: [
      {
        id: "color",
        header: "Color",
        question: "Pick a colour",
        options: [
          { label: "Blue (Recommended)", description: "calm" },
          { label: "Red", description: "bold" },
        ],
      },
    ],
  },
};
/** What Node runs between two I/O callbacks of one poll phase: microtasks, not immediates. */
async function drainMicrotasks(): Promise<void> {
  for (let i = 0; i < 200; i++) await Promise.resolve();
}
const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";

describe("red team 4: between a question's settle and its asker resuming", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Broke fc6da92 (reverted in 742d0d2); guards that an answer stays recorded: failed because an answer accepted (reply ok:true, store row `answered`,
  // question.answered published) just before a graceful shutdown is lost. shutdown() runs in the
  // window fc6da92 opened: it sets `suspended` and cancelAll finds no waiter (already settled), so
  // when the asker resumes at setImmediate its output is dropped by recordItem (suspended). The
  // next process sees a call with no output and no pending question: planResume records it as
  // "aborted" and the model is told the user's question was aborted. shutdown()'s contract
  // (core.ts): "questions stay pending in the store with their calls unanswered, exactly as after
  // a crash, so the next process re-asks them". Before fc6da92 the output was recorded in the
  // reply's own microtasks, before shutdown could run.
  it("an answer accepted right before shutdown reaches the model after restart", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [ASK] },
          { output: [{ type: "message", text: "after restart" }] },
          { output: [{ type: "message", text: "spare" }] },
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    thread.startTurn("pick");
    const ev = await h.waitFor(requested);
    // One poll phase: the reply's HTTP request, then SIGTERM's handler.
    const r = h.runtime.questions.reply(
      thread.id,
      ev.request.request_id,
      { answers: { color: { selected: ["Red"] } } },
      { kind: "test" },
    );
    expect(r.ok).toBe(true);
    // Node drains every microtask between two I/O callbacks of one poll phase, never the check
    // phase (setImmediate): the next callback (SIGTERM's handler here) runs after this.
    await drainMicrotasks();
    await h.runtime.shutdown();

    const { runtime } = createRuntime({
      home: h.home,
      overrides: [`openai_base_url="${h.model.url}"`, "retry_base_ms=10"],
      env: { OPENAI_API_KEY: "k" },
    });
    try {
      const pendingAgain = runtime.questions.stored(thread.id).map((q) => q.request_id);
      const reopened = runtime.threads.open(thread.id);
      await reopened.active?.done;
      const outs = runtime.threads
        .history(thread.id)
        .map((s) => s.item)
        .filter((i: any) => i.type === "function_call_output" && i.call_id === "ask_1") as any[];
      const output = outs.map((o) => (typeof o.output === "string" ? o.output : JSON.stringify(o.output)));
      console.log("[redteam4] after restart:", JSON.stringify({ pendingAgain, output }));
      // Either the answer was recorded, or the question is asked again: never "aborted".
      const answered = output.some((o) => o.includes("Red"));
      expect(answered || pendingAgain.length > 0, `ask_1's output after restart: ${output}`).toBe(true);
    } finally {
      await runtime.shutdown();
    }
  });

  // Broke fc6da92 (reverted in 742d0d2); guards that an answer stays recorded: failed because the same window loses an accepted answer when the thread is handed
  // over (ownership.relinquish: another node's thread/resume or POST …/turn asked for it, or a
  // fenced write; in a cluster the forwarded reply and the hand-over request can come in one
  // NATS socket read, i.e. one macrotask). relinquish sets `suspended`, its cancelAll finds no
  // waiter, the lease is released; the asker then resumes and recordItem drops the output. The
  // node that takes the thread finds the question `answered` in the store and the call without
  // output: "aborted". Before fc6da92 the output was stored before the hand-over could run.
  it("an answer accepted right before a hand-over reaches the next owner", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [ASK] },
          { output: [{ type: "message", text: "on the new owner" }] },
          { output: [{ type: "message", text: "spare" }] },
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    thread.startTurn("pick");
    const ev = await h.waitFor(requested);
    const r = h.runtime.questions.reply(
      thread.id,
      ev.request.request_id,
      { answers: { color: { selected: ["Red"] } } },
      { kind: "test" },
    );
    expect(r.ok).toBe(true);
    await drainMicrotasks();
    await runtimeInternals(h.runtime).ownership.relinquish(thread.id, { release: true });

    const { runtime } = createRuntime({
      home: h.home,
      overrides: [`openai_base_url="${h.model.url}"`, "retry_base_ms=10"],
      env: { OPENAI_API_KEY: "k" },
    });
    try {
      const pendingAgain = runtime.questions.stored(thread.id).map((q) => q.request_id);
      const reopened = runtime.threads.open(thread.id);
      await reopened.active?.done;
      const output = runtime.threads
        .history(thread.id)
        .map((s) => s.item as any)
        .filter((i) => i.type === "function_call_output" && i.call_id === "ask_1")
        .map((o) => (typeof o.output === "string" ? o.output : JSON.stringify(o.output)));
      console.log("[redteam4] after hand-over:", JSON.stringify({ pendingAgain, output }));
      const answered = output.some((o: string) => o.includes("Red"));
      expect(answered || pendingAgain.length > 0, `ask_1's output on the next owner: ${output}`).toBe(true);
    } finally {
      await runtime.shutdown();
    }
  });

  // HELD (regression guard): an approval accepted, then a hand-over in the same window. Fails if the
  // stale node starts the approved command after it gave the thread up (lease released, the next
  // owner may already run it): the asker resumes with "accept" after relinquish's kill.
  it("an approval accepted right before a hand-over does not start its command afterwards", async () => {
    const marker = `m${Date.now()}`;
    h = await harness({
      overrides: ['approval_policy="untrusted"', 'sandbox_mode="danger-full-access"'],
      script: {
        steps: [
          {
            output: [
              {
                type: "function_call",
                name: "exec_command",
                call_id: "x1",
                arguments: { cmd: `sleep 0.2; touch ${marker}` },
              },
            ],
          },
          { output: [{ type: "message", text: "done" }] },
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    thread.startTurn("run it");
    const ev = await h.waitFor(requested);
    const label = ev.request.questions[0].options![0].label;
    const r = h.runtime.questions.reply(
      thread.id,
      ev.request.request_id,
      { answers: { decision: { selected: [label] } } },
      { kind: "test" },
    );
    expect(r.ok).toBe(true);
    await drainMicrotasks();
    await runtimeInternals(h.runtime).ownership.relinquish(thread.id, { release: true });
    await new Promise((res) => setTimeout(res, 800));
    expect(existsSync(join(h.cwd, marker)), "the stale node ran the approved command").toBe(false);
  });

  // HELD (regression guard): an interrupt in the same window. The answer is still recorded (the
  // thread is not suspended), exactly one question.answered, no question.cancelled, and the turn
  // ends interrupted. Fails if the late resume records "aborted" over an accepted answer, or if
  // the ask resolves twice (two outputs for ask_1).
  it("an interrupt right after a reply keeps the accepted answer in the history", async () => {
    h = await harness({
      script: { steps: [{ output: [ASK] }, { output: [{ type: "message", text: "x" }] }] },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("pick");
    const ev = await h.waitFor(requested);
    const reply = { answers: { color: { selected: ["Red"] } } };
    expect(h.runtime.questions.reply(thread.id, ev.request.request_id, reply, { kind: "test" }).ok).toBe(
      true,
    );
    await drainMicrotasks();
    thread.interrupt();
    // A second identical reply in the window is a duplicate, not a second settle.
    expect(
      h.runtime.questions.reply(thread.id, ev.request.request_id, reply, { kind: "test" }),
    ).toMatchObject({
      ok: true,
      duplicate: true,
    });
    const outcome = await turn.done;
    expect(outcome.status).toBe("interrupted");
    const outs = h.runtime.threads
      .history(thread.id)
      .map((s) => s.item)
      .filter((i: any) => i.type === "function_call_output" && i.call_id === "ask_1") as any[];
    expect(outs).toHaveLength(1);
    expect(JSON.stringify(outs[0].output)).toContain("Red");
    const types = h.events.map((e) => e.event.type);
    expect(types.filter((t) => t === "question.answered")).toHaveLength(1);
    expect(types.filter((t) => t === "question.cancelled")).toHaveLength(0);
  });
});
