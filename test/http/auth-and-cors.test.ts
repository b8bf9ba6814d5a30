/**
 * `tandem serve` API end to end (requirements S4, Q3, Q11, Q13): real server on port 0, real SSE over
 * fetch, real runtime and SQLite, scripted model over real HTTP. Nothing of Tandem's is mocked.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { Scripts } from "../../src/mock-model/index.js";
import { REDACTED } from "../../src/protocol/questions.js";
import { isEvent, openSse, type Served, serve, TOKEN } from "../helpers/http.js";

/** questionDemo with expectations on what reaches the model after the question. */
function demo(expectAfterQuestion: string[]): Script {
  const s = Scripts.questionDemo();
  s.steps[1] = { ...s.steps[1], expect: { input_contains: expectAfterQuestion } };
  return s;
}

/** Creates a plan-mode thread, attaches an SSE responder, starts the turn, waits for the question. */
async function askDemo(sv: Served) {
  const created = await sv.call("POST", "/thread", { mode: "plan" });
  expect(created.status).toBe(201);
  const threadId: string = created.json.id;
  const sse = await openSse(`${sv.url}/event?responder=api&thread=${threadId}`, {
    authorization: `Bearer ${TOKEN}`,
  });
  await sse.next((f) => f.event === "ready");
  const turn = await sv.call("POST", `/thread/${threadId}/turn`, { text: "Set up the demo project" });
  expect(turn.status).toBe(202);
  const asked = await sse.next(isEvent("question.requested"));
  const request = JSON.parse(asked.data).event.request;
  return { threadId, turnId: turn.json.turn_id as string, sse, request };
}

let sv: Served | undefined;
afterEach(async () => {
  await sv?.close();
  sv = undefined;
});

describe("auth and CORS", () => {
  it("refuses API routes without the token, with a wrong one, and ?token= outside /event", async () => {
    sv = await serve({ script: Scripts.questionDemo() });
    for (const path of ["/thread", "/question", "/event"]) {
      const none = await fetch(sv.url + path);
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toContain("Bearer");
      expect(((await none.json()) as any).error).toMatchObject({ code: "unauthorized" });
      const wrong = await fetch(sv.url + path, { headers: { authorization: "Bearer nope" } });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as any).error.message).toContain("wrong bearer token");
    }
    const prefix = await fetch(sv.url + "/thread", { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(prefix.status).toBe(401);
    const basic = await fetch(sv.url + "/thread", { headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.status).toBe(401);
    expect((await fetch(`${sv.url}/thread?token=${TOKEN}`)).status).toBe(401);
    const post = await fetch(sv.url + "/thread", { method: "POST", body: "{}" });
    expect(post.status).toBe(401);
    expect(sv.h.runtime.threads.list()).toHaveLength(0);
    const sse = await openSse(`${sv.url}/event?token=${TOKEN}`);
    expect(sse.status).toBe(200);
    sse.close();
    // The page and the API description are public and hold no data.
    expect((await fetch(sv.url + "/")).status).toBe(200);
    expect((await fetch(sv.url + "/openapi.json")).status).toBe(200);
  });

  it("sends no CORS headers, even to a preflight from another origin", async () => {
    sv = await serve({ script: Scripts.questionDemo() });
    const origin = { origin: "https://evil.example" };
    const get = await sv.call("GET", "/thread", undefined, origin);
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await fetch(sv.url + "/thread", {
      method: "OPTIONS",
      headers: { ...origin, "access-control-request-method": "POST" },
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    expect(pre.headers.get("access-control-allow-methods")).toBeNull();
  });
});

describe("questions over HTTP", () => {
  it("lists a pending question; a typed reply completes the turn and reaches the model", async () => {
    sv = await serve({ script: demo(["Rust", "needs cargo first", "tandem-demo"]) });
    const { threadId, sse, request } = await askDemo(sv);

    const list = await sv.call("GET", "/question");
    expect(list.status).toBe(200);
    expect(list.json.questions).toHaveLength(1);
    expect(list.json.questions[0]).toMatchObject({ request_id: request.request_id, thread_id: threadId });
    expect(list.json.questions[0].questions.map((q: any) => q.id)).toEqual(["stack", "name"]);
    expect((await sv.call("GET", `/question?thread=${threadId}`)).json.questions).toHaveLength(1);
    const detail = await sv.call("GET", `/thread/${threadId}`);
    expect(detail.json.thread.status).toBe("waiting_on_user");
    expect(detail.json.questions).toHaveLength(1);

    const reply = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      answers: { stack: { selected: ["Rust"], note: "needs cargo first" }, name: { other: "tandem-demo" } },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      request_id: request.request_id,
      duplicate: false,
      outcome: { status: "answered", responder: { kind: "http" }, unanswered: [] },
    });
    const answered = await sse.next(isEvent("question.answered"));
    expect(JSON.parse(answered.data).event.responder).toEqual({ kind: "http" });
    const done = await sse.next(isEvent("turn.completed"));
    expect(JSON.parse(done.data).event.status).toBe("completed");
    expect(sv.h.model.requests).toHaveLength(3);
    expect((await sv.call("GET", "/question")).json.questions).toEqual([]);

    // Replies are idempotent by request id (Q11); a different late reply is refused.
    const again = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      answers: { stack: { selected: ["Rust"], note: "needs cargo first" }, name: { other: "tandem-demo" } },
    });
    expect(again.status).toBe(200);
    expect(again.json.duplicate).toBe(true);
    const late = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      answers: { stack: { selected: ["TypeScript (Recommended)"] } },
    });
    expect(late.status).toBe(409);
    expect(late.json.error.code).toBe("already_settled");
    sse.close();
  });

  it("accepts text replies parsed by the shared parser, with the web responder", async () => {
    sv = await serve({ script: demo(["Rust", "a note here", "my-app"]) });
    const { threadId, sse, request } = await askDemo(sv);
    const reply = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      text: { stack: "2 -- a note here", name: "my-app" },
      responder: { kind: "web", id: "web-1" },
    });
    expect(reply.status).toBe(200);
    expect(reply.json.outcome.answers).toEqual({
      stack: { selected: ["Rust"], note: "a note here" },
      name: { selected: [], other: "my-app" },
    });
    expect(reply.json.outcome.responder).toEqual({ kind: "web", id: "web-1" });
    expect(JSON.parse((await sse.next(isEvent("turn.completed"))).data).event.status).toBe("completed");
    sse.close();
  });

  it("reports text the parser refuses as 400 and leaves the question pending", async () => {
    sv = await serve({ script: demo(["TypeScript"]) });
    const { threadId, sse, request } = await askDemo(sv);
    const bad = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      text: { stack: "7" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: "invalid_reply" });
    expect(bad.json.error.message).toContain("no option 7");
    const unknown = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      text: { colour: "1" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toContain('unknown question "colour"');
    const ok = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      text: { stack: "1" },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.outcome.unanswered).toEqual(["name"]);
    await sse.next(isEvent("turn.completed"));
    sse.close();
  });

  it("reject: the model is told the user declined", async () => {
    sv = await serve({ script: demo(['"status":"declined"', "not now"]) });
    const { threadId, sse, request } = await askDemo(sv);
    const r = await sv.call("POST", `/question/${request.request_id}/reject`, {
      thread_id: threadId,
      reason: "not now",
    });
    expect(r.status).toBe(200);
    expect(r.json.outcome).toEqual({ status: "declined", responder: { kind: "http" }, reason: "not now" });
    await sse.next(isEvent("question.declined"));
    const done = await sse.next(isEvent("turn.completed"));
    expect(JSON.parse(done.data).event.status).toBe("completed");
    const again = await sv.call("POST", `/question/${request.request_id}/reject`, { thread_id: threadId });
    expect(again.json.duplicate).toBe(true);
    sse.close();
  });

  it("without a responder attached the model is told no one can answer, and nothing waits (Q3)", async () => {
    sv = await serve({ script: demo(['"status":"unavailable"']) });
    const created = await sv.call("POST", "/thread", { mode: "plan" });
    const listener = await openSse(`${sv.url}/event?thread=${created.json.id}`, {
      authorization: `Bearer ${TOKEN}`,
    });
    await sv.call("POST", `/thread/${created.json.id}/turn`, { text: "go" });
    const done = await listener.next(isEvent("turn.completed"));
    expect(JSON.parse(done.data).event.status).toBe("completed");
    expect(listener.frames.some(isEvent("question.requested"))).toBe(false);
    listener.close();
  });

  it("interrupt with a pending question ends the turn interrupted and cancels the question", async () => {
    sv = await serve({ script: demo([]) });
    const { threadId, sse, request } = await askDemo(sv);
    const r = await sv.call("POST", `/thread/${threadId}/interrupt`);
    expect(r.json).toEqual({ thread_id: threadId, interrupted: true });
    const cancelled = await sse.next(isEvent("question.cancelled"));
    expect(JSON.parse(cancelled.data).event.request_id).toBe(request.request_id);
    const done = await sse.next(isEvent("turn.completed"));
    expect(JSON.parse(done.data).event.status).toBe("interrupted");
    const late = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      text: { stack: "1" },
    });
    expect(late.status).toBe(409);
    expect(late.json.error.code).toBe("cancelled");
    expect((await sv.call("POST", `/thread/${threadId}/interrupt`)).json.interrupted).toBe(false);
    sse.close();
  });

  it("touch snoozes a timeout policy and the new deadline is streamed", async () => {
    sv = await serve({ script: demo([]) });
    const created = await sv.call("POST", "/thread", {
      mode: "plan",
      question_policy: { type: "timeout", ms: 60_000, on_timeout: "recommended" },
    });
    const threadId = created.json.id;
    const sse = await openSse(`${sv.url}/event?responder=web&thread=${threadId}`, {
      authorization: `Bearer ${TOKEN}`,
    });
    await sv.call("POST", `/thread/${threadId}/turn`, { text: "go" });
    const asked = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request;
    expect(asked.deadline).toBeGreaterThan(Date.now() + 50_000);
    await new Promise((r) => setTimeout(r, 30));
    const t = await sv.call("POST", `/question/${asked.request_id}/touch`);
    expect(t.status).toBe(200);
    expect(t.json.deadline).toBeGreaterThan(asked.deadline);
    const changed = await sse.next(isEvent("question.deadline_changed"));
    expect(JSON.parse(changed.data).event.deadline).toBe(t.json.deadline);
    expect((await sv.call("POST", "/question/q_nope/touch", {})).status).toBe(404);
    await sv.call("POST", `/thread/${threadId}/interrupt`);
    sse.close();
  });

  it("never echoes a secret answer: reply result, events and history hold only the redaction", async () => {
    const s: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "request_user_input",
              arguments: {
                questions: [{ id: "api_key", header: "Key", question: "Paste the API key", secret: true }],
              },
            },
          ],
        },
        { expect: { input_contains: ["$TANDEM_SECRET"] }, output: [{ type: "message", text: "ok" }] },
      ],
    };
    sv = await serve({ script: s });
    const { threadId, sse, request } = await askDemo(sv);
    expect(request.questions[0].secret).toBe(true);
    const secret = "sk-live-ABCDEF-very-secret";
    const r = await sv.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: threadId,
      answers: { api_key: { other: secret, note: secret } },
    });
    expect(r.status).toBe(200);
    expect(r.json.outcome.answers.api_key).toEqual({ selected: [], other: REDACTED, note: REDACTED });
    await sse.next(isEvent("turn.completed"));
    const everything = [
      r.text,
      JSON.stringify(sse.frames),
      (await sv.call("GET", `/thread/${threadId}`)).text,
    ];
    for (const text of everything) expect(text).not.toContain(secret);
    sse.close();
  });
});
