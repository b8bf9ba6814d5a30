/**
 * Approvals over the `tandem serve` HTTP API (README "Sandbox and approvals", requirements A2/A3, S4, Q16): a real server on
 * port 0, a real runtime with SQLite, the scripted model over real HTTP, real bubblewrap. An
 * escalated `exec_command` shows up in `GET /question` as a request carrying `approval` (listed
 * before any plain question), and `POST /question/:id/reply` with the decision label decides:
 * Accept runs it outside the sandbox, Decline (or `/reject`) tells the model it was declined,
 * Cancel interrupts the turn. History, read back with `GET /thread/:id`, stays well paired.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { isEvent, openSse, type Served, type SseClient, serve, TOKEN } from "../helpers/http.js";
import { outsideDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const hasBwrap = missing("bwrap").length === 0;
const auth = { authorization: `Bearer ${TOKEN}` };
const JUSTIFICATION = "Write the shared build log outside the workspace";
const LABELS = ["Accept", "Accept for session", "Accept and remember", "Decline", "Cancel"];

const escalated = (callId: string, cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: callId,
  arguments: { cmd, sandbox_permissions: "require_escalated", justification: JUSTIFICATION },
});
const askStack = (callId: string) => ({
  type: "function_call" as const,
  name: "request_user_input",
  call_id: callId,
  arguments: {
    questions: [
      {
        id: "stack",
        header: "Stack",
        question: "Which stack should we use?",
        options: [
          { label: "TypeScript (Recommended)", description: "Node 20" },
          { label: "Rust", description: "cargo" },
        ],
      },
    ],
  },
});
const message = (text: string) => ({ type: "message" as const, text });

let sv: Served | undefined;
let sse: SseClient | undefined;
const cleanup: Array<() => void> = [];
afterEach(async () => {
  sse?.close();
  sse = undefined;
  await sv?.close();
  sv = undefined;
  for (const f of cleanup.splice(0)) f();
});

/** A fresh directory outside every sandbox writable root (/var/lib, never $HOME), removed after the test. */
function freshOutside(): string {
  const dir = outsideDir("tandem-http-approval-");
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Creates a thread, attaches an SSE responder for it and starts a turn. */
async function startTurn(s: Served, thread: Record<string, unknown> = {}, text = "go") {
  const created = await s.call("POST", "/thread", thread);
  expect(created.status).toBe(201);
  const threadId: string = created.json.id;
  sse = await openSse(`${s.url}/event?responder=web&thread=${threadId}`, auth);
  await sse.next((f) => f.event === "ready");
  const turn = await s.call("POST", `/thread/${threadId}/turn`, { text });
  expect(turn.status).toBe(202);
  return { threadId, turnId: turn.json.turn_id as string };
}

/** Polls `GET /question` until it lists `count` requests of the thread; returns them. */
async function pending(s: Served, threadId: string, count = 1, timeoutMs = 15_000): Promise<any[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.call("GET", `/question?thread=${threadId}`);
    expect(res.status).toBe(200);
    if (res.json.questions.length >= count) return res.json.questions;
    if (Date.now() > end)
      throw new Error(`GET /question never listed ${count} request(s): ${JSON.stringify(res.json)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits for the turn's `turn.completed` event and returns its status. */
async function turnEnd(turnId: string): Promise<string> {
  const frame = await sse!.next(
    isEvent("turn.completed", (e) => e.turn_id === turnId),
    15_000,
  );
  return JSON.parse(frame.data).event.status;
}

const decide = (s: Served, threadId: string, requestId: string, label: string) =>
  s.call("POST", `/question/${requestId}/reply`, {
    thread_id: threadId,
    answers: { decision: { selected: [label] } },
  });

/** The output the model was sent for `callId` (first request carrying it), or undefined. */
function sentOutput(s: Served, callId: string): string | undefined {
  for (const body of s.h.model.requests as any[]) {
    const out = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return undefined;
}

/**
 * The thread's history over `GET /thread/:id`, checked to be well paired: every call has exactly
 * one output after it, and every output belongs to a call.
 */
async function pairedHistory(s: Served, threadId: string) {
  const res = await s.call("GET", `/thread/${threadId}`);
  expect(res.status).toBe(200);
  const items: any[] = res.json.items;
  const calls = items.flatMap((it, at) =>
    it.type === "function_call" ? [{ id: it.call_id as string, at }] : [],
  );
  const outputs = items.flatMap((it, at) =>
    it.type === "function_call_output" ? [{ id: it.call_id as string, at }] : [],
  );
  for (const call of calls) {
    const mine = outputs.filter((o) => o.id === call.id);
    expect(mine, `outputs of ${call.id}`).toHaveLength(1);
    expect(mine[0].at).toBeGreaterThan(call.at);
  }
  for (const o of outputs) expect(calls.map((c) => c.id)).toContain(o.id);
  const outputOf = (callId: string) =>
    items.find((i) => i.type === "function_call_output" && i.call_id === callId)?.output;
  return { detail: res.json, calls: calls.map((c) => c.id), outputOf };
}

describe.skipIf(!hasBwrap)("approvals over the HTTP API", () => {
  it("accept: listed before the question with command and justification; the command runs unsandboxed", async () => {
    const outside = freshOutside();
    const cmd = `echo HTTP_$((6*7)) > ${outside}/a.txt && cat ${outside}/a.txt`;
    const script: Script = {
      steps: [
        { output: [askStack("call_ask"), escalated("call_acc", cmd)] },
        { expect: { input_contains: ["HTTP_42", '"selected":["Rust"]'] }, output: [message("done")] },
      ],
    };
    sv = await serve({ script });
    const { threadId, turnId } = await startTurn(sv, { mode: "plan" });

    const listed = await pending(sv, threadId, 2);
    const [approval, question] = listed;
    expect(approval).toMatchObject({
      thread_id: threadId,
      turn_id: turnId,
      call_id: "call_acc",
      source: "internal",
      approval: { kind: "exec", command: cmd, justification: JUSTIFICATION, cwd: sv.h.cwd },
    });
    expect(approval.questions).toHaveLength(1);
    expect(approval.questions[0]).toMatchObject({ id: "decision", kind: "single", allow_other: false });
    expect(approval.questions[0].options.map((o: any) => o.label)).toEqual(LABELS);
    expect(question.call_id).toBe("call_ask");
    expect(question.approval).toBeUndefined();
    // The unfiltered inbox and the thread detail agree: the approval goes first.
    const all = await sv.call("GET", "/question");
    expect(all.json.questions.map((r: any) => r.request_id)).toEqual([
      approval.request_id,
      question.request_id,
    ]);
    const detail = await sv.call("GET", `/thread/${threadId}`);
    expect(detail.json.thread).toMatchObject({ status: "waiting_on_user", pending_questions: 2 });
    expect(detail.json.questions.map((r: any) => r.request_id)).toEqual([
      approval.request_id,
      question.request_id,
    ]);
    expect(existsSync(join(outside, "a.txt"))).toBe(false);

    const reply = await decide(sv, threadId, approval.request_id, "Accept");
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      request_id: approval.request_id,
      duplicate: false,
      outcome: {
        status: "answered",
        answers: { decision: { selected: ["Accept"] } },
        responder: { kind: "http" },
      },
    });
    // Settled: no longer listed, and a second decision is refused rather than applied.
    const left = await pending(sv, threadId, 1);
    expect(left.map((r) => r.request_id)).toEqual([question.request_id]);
    const late = await decide(sv, threadId, approval.request_id, "Decline");
    expect(late.status).toBe(409);

    const answered = await sv.call("POST", `/question/${question.request_id}/reply`, {
      thread_id: threadId,
      text: { stack: "2" },
    });
    expect(answered.status).toBe(200);
    expect(await turnEnd(turnId)).toBe("completed");

    expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("HTTP_42\n");
    expect(sv.h.model.requests).toHaveLength(2);
    expect(sentOutput(sv, "call_acc")).toMatch(/Process exited with code 0[\s\S]*HTTP_42/);
    const h = await pairedHistory(sv, threadId);
    expect(h.calls).toEqual(["call_ask", "call_acc"]);
    expect(String(h.outputOf("call_acc"))).toContain("HTTP_42");
    expect((await sv.call("GET", "/question")).json.questions).toEqual([]);
  });

  it("decline (and /reject): nothing runs and the model is told it was declined", async () => {
    const outside = freshOutside();
    const script: Script = {
      steps: [
        { output: [escalated("call_d1", `touch ${outside}/one`)] },
        {
          expect: { input_contains: ["declined"] },
          output: [escalated("call_d2", `touch ${outside}/two`)],
        },
        { output: [message("understood")] },
      ],
    };
    sv = await serve({ script });
    const { threadId, turnId } = await startTurn(sv);

    const [first] = await pending(sv, threadId);
    expect(first).toMatchObject({ call_id: "call_d1", approval: { command: `touch ${outside}/one` } });
    const reply = await decide(sv, threadId, first.request_id, "Decline");
    expect(reply.status).toBe(200);
    expect(reply.json.outcome).toMatchObject({
      status: "answered",
      answers: { decision: { selected: ["Decline"] } },
    });

    // The second escalation is rejected outright: the same as a decline for an approval.
    const [second] = await waitForCall(sv, threadId, "call_d2");
    const rejected = await sv.call("POST", `/question/${second.request_id}/reject`, {
      thread_id: threadId,
      reason: "not on my machine",
    });
    expect(rejected.status).toBe(200);
    expect(rejected.json.outcome).toMatchObject({ status: "declined", reason: "not on my machine" });
    expect(await turnEnd(turnId)).toBe("completed");

    expect(existsSync(join(outside, "one"))).toBe(false);
    expect(existsSync(join(outside, "two"))).toBe(false);
    expect(sentOutput(sv, "call_d1")).toMatch(/declined/);
    expect(sentOutput(sv, "call_d2")).toMatch(/declined/);
    const h = await pairedHistory(sv, threadId);
    expect(h.calls).toEqual(["call_d1", "call_d2"]);
    expect(String(h.outputOf("call_d1"))).toMatch(/declined/);
  });

  it("cancel: the turn ends interrupted, the call is recorded as aborted, the next turn is well paired", async () => {
    const outside = freshOutside();
    const script: Script = {
      steps: [
        { output: [escalated("call_can", `touch ${outside}/never`)] },
        { expect: { input_contains: ["again please"] }, output: [message("ok")] },
      ],
    };
    sv = await serve({ script });
    const { threadId, turnId } = await startTurn(sv);
    const [approval] = await pending(sv, threadId);
    const reply = await decide(sv, threadId, approval.request_id, "Cancel");
    expect(reply.status).toBe(200);
    expect(await turnEnd(turnId)).toBe("interrupted");
    expect(existsSync(join(outside, "never"))).toBe(false);
    expect(sv.h.model.requests).toHaveLength(1);
    expect((await sv.call("GET", "/question")).json.questions).toEqual([]);
    const idle = await sv.call("GET", `/thread/${threadId}`);
    expect(idle.json.thread).toMatchObject({ status: "idle", active_turn_id: null, pending_questions: 0 });
    expect((await pairedHistory(sv, threadId)).outputOf("call_can")).toBe("aborted");

    const next = await sv.call("POST", `/thread/${threadId}/turn`, { text: "again please" });
    expect(next.status).toBe(202);
    expect(await turnEnd(next.json.turn_id)).toBe("completed");
    expect(sentOutput(sv, "call_can")).toBe("aborted");
    const h = await pairedHistory(sv, threadId);
    expect(h.calls).toEqual(["call_can"]);
    expect(existsSync(join(outside, "never"))).toBe(false);
  });
});

/** Polls `GET /question` until the thread's head request belongs to `callId`. */
async function waitForCall(s: Served, threadId: string, callId: string): Promise<any[]> {
  const end = Date.now() + 15_000;
  for (;;) {
    const list = await pending(s, threadId);
    if (list[0]?.call_id === callId) return list;
    if (Date.now() > end) throw new Error(`no pending request for ${callId}: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
