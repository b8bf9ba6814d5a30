/**
 * Caps on questions (README "Limits on questions"): a hostile model issues many parallel
 * `request_user_input` calls, and oversized ones. Past a cap the model gets a precise error (which
 * cap, its value) and nothing of the refused call is stored or shown — not in `GET /question`, the
 * store or the events. Internal requests (approvals) have their own allowance, so a flood of the
 * model's questions does not starve them.
 *
 * Through the real loop (scripted model over HTTP, real SQLite) and the HTTP API (`GET /question`,
 * `POST /question/:id/reject` on a real server).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { requestIdFor } from "../../src/questions/broker.js";
import { isEvent, openSse, type Served, type SseClient, serve, TOKEN } from "../helpers/http.js";
import { type Harness, harness } from "../helpers/index.js";
import { waitUntil } from "../helpers/wait.js";

const auth = { authorization: `Bearer ${TOKEN}` };

const ask = (callId: string, question: string, extra: Record<string, unknown> = {}) => ({
  type: "function_call" as const,
  name: "request_user_input",
  call_id: callId,
  arguments: { questions: [{ id: "pick", header: "Pick", question, ...extra }] },
});
const escalated = (callId: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: callId,
  arguments: { cmd: "true", sandbox_permissions: "require_escalated", justification: "needs the host" },
});
const say = (text: string) => ({ type: "message" as const, text });
const calls = (n: number) => Array.from({ length: n }, (_, i) => ask(`q${i}`, `Question number ${i}?`));

/** What the model was sent for `callId`. */
function sentOutput(requests: unknown[], callId: string): string | undefined {
  for (const body of requests as any[]) {
    const out = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return undefined;
}

describe("caps on pending questions, over the HTTP API", () => {
  let sv: Served | undefined;
  let sse: SseClient | undefined;
  afterEach(async () => {
    sse?.close();
    sse = undefined;
    await sv?.close();
    sv = undefined;
  });

  // Fails if there is no per-thread cap (all 12 become pending, GET /question lists 12), if a
  // refused call is stored or announced anyway, if the model's error does not name the cap and
  // its value, or if approvals share the model's allowance (the escalation is then refused too).
  it("12 parallel calls: 8 pending, 4 refused with the cap named; an approval is still asked", async () => {
    sv = await serve({
      script: { steps: [{ output: [...calls(12), escalated("e1")] }, { output: [say("done")] }] },
    });
    const created = await sv.call("POST", "/thread", { mode: "plan" });
    const threadId: string = created.json.id;
    sse = await openSse(`${sv.url}/event?responder=web&thread=${threadId}`, auth);
    await sse.next((f) => f.event === "ready");
    const turn = await sv.call("POST", `/thread/${threadId}/turn`, { text: "ask away" });
    expect(turn.status).toBe(202);

    // Every call was dispatched once the approval is listed with 8 questions.
    let listed: any[] = [];
    await waitUntil(async () => {
      listed = (await sv!.call("GET", `/question?thread=${threadId}`)).json.questions;
      return listed.length >= 9;
    }, "8 questions and the approval in GET /question");
    expect(listed.filter((q) => q.approval)).toHaveLength(1);
    expect(listed.filter((q) => !q.approval)).toHaveLength(8);

    for (const q of listed) {
      const r = await sv.call("POST", `/question/${q.request_id}/reject`, { thread_id: threadId });
      expect(r.status, r.text).toBe(200);
    }
    const end = await sse.next(
      isEvent("turn.completed", (e) => e.thread_id === threadId),
      15_000,
    );
    expect(JSON.parse(end.data).event.status).toBe("completed");

    const refused = Array.from({ length: 12 }, (_, i) => `q${i}`).filter(
      (id) => !listed.some((q) => q.call_id === id),
    );
    expect(refused).toHaveLength(4);
    const { questions } = sv.h.runtime;
    const announced = sv.h.events.filter((s) => s.event.type === "question.requested").length;
    expect(announced).toBe(9);
    for (const id of refused) {
      expect(sentOutput(sv.h.model.requests, id)).toBe(
        "request_user_input refused, not asked: this thread already has 8 questions waiting for the user " +
          "(limit: questions.max_pending_per_thread = 8); wait for answers before asking more",
      );
      expect(questions.ofCall(threadId, id)).toBeUndefined();
    }
  });

  // Fails if the cap is per thread only: two threads together then hold 16.
  it("the process-wide cap counts every thread", async () => {
    sv = await serve({
      overrides: ["questions.max_pending=10"],
      script: {
        steps: [
          { output: calls(8) },
          { output: calls(8) },
          { output: [say("done")] },
          { output: [say("done")] },
        ],
      },
    });
    const ids: string[] = [];
    sse = await openSse(`${sv.url}/event?responder=web`, auth);
    await sse.next((f) => f.event === "ready");
    for (const _ of [1, 2]) {
      const id: string = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
      ids.push(id);
      await sv.call("POST", `/thread/${id}/turn`, { text: "ask" });
      // One thread's calls at a time, so which of them are refused is known.
      await waitUntil(
        () => sv!.h.runtime.questions.pendingCount(id) === (ids.length === 1 ? 8 : 2),
        `thread ${ids.length}'s questions pending`,
      );
    }
    const all = (await sv.call("GET", "/question")).json.questions;
    expect(all).toHaveLength(10);
    for (const q of all)
      await sv.call("POST", `/question/${q.request_id}/reject`, { thread_id: q.thread_id });
    await waitUntil(() => ids.every((id) => !sv!.h.runtime.threads.get(id)?.active), "both turns to end");
    const second = ids[1];
    const refusedHere = all.filter((q: any) => q.thread_id === second).length;
    expect(refusedHere).toBe(2);
    const ofSecond = sv.h.model.requests.filter((b: any) => b.prompt_cache_key === second);
    const texts = Array.from({ length: 8 }, (_, i) => sentOutput(ofSecond, `q${i}`));
    expect(texts.filter((t) => t?.includes("(limit: questions.max_pending = 10)"))).toHaveLength(6);
  });
});

describe("caps on the size of a question, through the loop", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Fails if a size cap is missing or named wrongly: the 20 KB question, the long option and
  // the oversized request are then asked (stored, announced) instead of refused.
  it("a too-long text, option or request is refused with the cap named; nothing is stored or shown", async () => {
    const long = "x".repeat(20_000);
    const three = Array.from({ length: 3 }, (_, i) => ({
      id: `q${i}`,
      header: "H",
      question: "y".repeat(1_900),
    }));
    h = await harness({
      overrides: ["questions.max_request_bytes=4000"],
      script: {
        steps: [
          {
            output: [
              ask("big", long),
              ask("opt", "Which?", {
                options: [
                  { label: "A", description: "z".repeat(600) },
                  { label: "B", description: "fine" },
                ],
              }),
              {
                type: "function_call",
                name: "request_user_input",
                call_id: "req",
                arguments: { questions: three },
              },
            ],
          },
          { output: [say("done")] },
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    expect((await thread.startTurn("ask").done).status).toBe("completed");
    const sent = (id: string) => sentOutput(h!.model.requests, id);
    expect(sent("big")).toBe(
      'request_user_input refused, not asked: question "pick": its text is 20000 characters ' +
        "(limit: questions.max_prompt_chars = 2000); shorten it",
    );
    expect(sent("opt")).toMatch(
      /option 1's description is 600 characters \(limit: questions\.max_option_chars = 500\)/,
    );
    expect(sent("req")).toMatch(/the request is \d+ bytes \(limit: questions\.max_request_bytes = 4000\)/);
    expect(h.events.some((s) => s.event.type.startsWith("question."))).toBe(false);
    for (const id of ["big", "opt", "req"])
      expect(h.runtime.questions.get(requestIdFor(thread.id, id))).toBeUndefined();
  });

  // Fails if an approval over its cap is turned into a plain decline (the model then thinks the
  // user said no) instead of an error naming the cap, or if the command runs anyway.
  it("an approval over its cap is not asked; the command's output names the cap and nothing runs", async () => {
    h = await harness({
      overrides: ["questions.max_pending_internal_per_thread=1", 'approval_policy="on-request"'],
      script: {
        steps: [
          {
            output: [
              escalated("e1"),
              { ...escalated("e2"), arguments: { ...escalated("e2").arguments, cmd: "touch ran.txt" } },
            ],
          },
          { output: [say("done")] },
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    await waitUntil(() => h!.runtime.questions.list().length === 1, "the first approval");
    const [first] = h.runtime.questions.list();
    h.runtime.questions.decline(thread.id, first.request_id, { kind: "test" });
    expect((await turn.done).status).toBe("completed");
    const other = first.call_id === "e1" ? "e2" : "e1";
    expect(sentOutput(h.model.requests, other)).toMatch(
      /approval not requested: this thread already has 1 approvals waiting for the user \(limit: questions\.max_pending_internal_per_thread = 1\)/,
    );
    expect(h.events.filter((s) => s.event.type === "question.requested")).toHaveLength(1);
    expect(existsSync(join(h.cwd, "ran.txt"))).toBe(false);
  });
});
