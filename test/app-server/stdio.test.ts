/**
 * `tandem app-server` over stdio (requirements S3): a real app-server process against a real scripted model
 * process. A Plan-mode turn's question arrives as `item/tool/requestUserInput`, the typed answer
 * reaches the next model request, `serverRequest/resolved` follows, the turn completes. Every
 * Codex-named message is validated against the Codex schema.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import {
  answerAndFinish,
  expectDemoQuestion,
  modelRequests,
  PLAN_MODE,
  questionScript,
  serverEnv,
  startPlanTurn,
} from "../helpers/app-server.js";
import { inProcessStdio, processStdio, type TestClient } from "../helpers/app-server-client.js";
import { type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

describe("tandem app-server over stdio", () => {
  let mock: MockProcess | undefined;
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) expect(c.violations).toEqual([]);
    await mock?.stop();
    mock = undefined;
  });

  it("drives a Plan-mode question round trip as a real process, and exits 0 on EOF", async () => {
    mock = await startMockProcess(questionScript());
    const s = processStdio(serverEnv(mock));
    clients.push(s.client);
    const init = await s.client.initialize();
    // Fails if the agent does not lead with the client's own name/version (Codex clients read the
    // server's version there and would warn about an "older" server) or hides that Tandem serves it.
    expect(init).toMatchObject({
      platformFamily: "unix",
      userAgent: expect.stringMatching(/^tandem-test\/1\.0\.0 \(tandem \d+\.\d+\.\d+; /),
    });

    const { threadId, turnId, question } = await startPlanTurn(s.client);
    expectDemoQuestion(question, threadId, turnId);
    const requested = await s.client.notification("tandem/question/requested");
    expect(requested.request).toMatchObject({
      request_id: question.id,
      call_id: "call_q01",
      policy: { type: "wait" },
    });

    await answerAndFinish(s.client, mock, question);
    const settled = await s.client.notification("tandem/question/settled");
    expect(settled.outcome).toMatchObject({ status: "answered", responder: { kind: "app-server" } });
    // The turn's shape on the wire: started → items → completed, usage reported.
    const methods = s.client.methods();
    expect(methods.indexOf("turn/started")).toBeLessThan(methods.indexOf("item/tool/requestUserInput"));
    expect(methods).toContain("thread/tokenUsage/updated");
    expect(methods).toContain("item/agentMessage/delta");
    expect(modelRequests(mock)).toHaveLength(3);

    expect(await s.close()).toBe(0);
    expect(s.stderr()).toBe("");
  });

  it("mirrors jsonrpc 2.0 and reads the finished thread back as Codex items", async () => {
    mock = await startMockProcess(questionScript());
    const home = tempDir("tandem-home-");
    const s = processStdio(serverEnv(mock, home), [], { jsonrpc: true });
    clients.push(s.client);
    await s.client.initialize();
    const { threadId, question } = await startPlanTurn(s.client);
    await answerAndFinish(s.client, mock, question);
    expect(s.client.received.every((m) => m.jsonrpc === "2.0")).toBe(true);

    const read = await s.client.request("thread/read", { threadId, includeTurns: true });
    expect(read.thread).toMatchObject({
      id: threadId,
      preview: "Set up the demo project",
      status: { type: "idle" },
    });
    const [turn] = read.thread.turns;
    expect(turn.status).toBe("completed");
    // The answered question reads back as its call with the answers (question-history.ts).
    expect(turn.items.map((i: any) => i.type)).toEqual([
      "userMessage",
      "reasoning",
      "dynamicToolCall",
      "commandExecution",
      "agentMessage",
    ]);
    expect(turn.items[2]).toMatchObject({ tool: "request_user_input", status: "completed", success: true });
    expect(turn.items[3]).toMatchObject({ id: "call_q02", exitCode: 0, status: "completed" });

    const list = await s.client.request("thread/list", { limit: 10 });
    expect(list.data.map((t: any) => t.id)).toEqual([threadId]);
    expect(list.nextCursor).toBeNull();
    expect(await s.close()).toBe(0);
  });

  it("serves in-process over a stream pair (same code path as the CLI)", async () => {
    mock = await startMockProcess(questionScript());
    const s = inProcessStdio(serverEnv(mock));
    clients.push(s.client);
    await s.client.initialize();
    const { question } = await startPlanTurn(s.client);
    await answerAndFinish(s.client, mock, question);
    expect(await s.close()).toBe(0);
  });

  it("declines on a JSON-RPC error reply, never a fake answer", async () => {
    mock = await startMockProcess(questionScript());
    const s = inProcessStdio(serverEnv(mock));
    clients.push(s.client);
    await s.client.initialize();
    const { threadId, question } = await startPlanTurn(s.client);
    s.client.respondError(question, -32000, "user pressed Esc");
    await s.client.notification("serverRequest/resolved", (p) => p.requestId === question.id);
    const settled = await s.client.notification("tandem/question/settled");
    expect(settled.outcome).toMatchObject({ status: "declined", reason: "user pressed Esc" });
    // The scripted model's next step expects the answer; a decline fails that expectation (400),
    // which proves no answer was invented.
    const done = await s.client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("failed");
    const out = modelRequests(mock)[1].input.find((i: any) => i.call_id === "call_q01" && i.output);
    expect(JSON.parse(out.output)).toMatchObject({ status: "declined" });
    expect(await s.close()).toBe(0);
  });

  it("answers through tandem/question/reply with a typed reply", async () => {
    mock = await startMockProcess(questionScript());
    const s = inProcessStdio(serverEnv(mock));
    clients.push(s.client);
    await s.client.initialize();
    const { threadId, question } = await startPlanTurn(s.client);
    const listed = await s.client.request("tandem/question/list", { threadId });
    expect(listed.requests.map((r: any) => r.request_id)).toEqual([question.id]);
    const r = await s.client.request("tandem/question/reply", {
      threadId,
      requestId: question.id,
      answers: { stack: { selected: ["Rust"] }, name: { other: "demo-app", note: "keep it short" } },
    });
    expect(r).toMatchObject({
      duplicate: false,
      outcome: { status: "answered", responder: { kind: "app-server" } },
    });
    // The Codex request that was pending on this connection is resolved; a late Codex reply that
    // differs is refused (an identical one would be acknowledged as a duplicate).
    await s.client.notification("serverRequest/resolved", (p) => p.requestId === question.id);
    s.client.respond(question, { answers: { stack: { answers: ["TypeScript (Recommended)"] } } });
    const refused = await s.client.notification("tandem/question/replyRefused");
    expect(refused).toMatchObject({ requestId: question.id, code: "already_settled" });
    const done = await s.client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");
    // Replying again with the same typed answer is an idempotent duplicate; another one is refused.
    const again = await s.client.request("tandem/question/reply", {
      threadId,
      requestId: question.id,
      answers: { stack: { selected: ["Rust"] }, name: { other: "demo-app", note: "keep it short" } },
    });
    expect(again.duplicate).toBe(true);
    const late = await s.client.call("tandem/question/reply", {
      threadId,
      requestId: question.id,
      answers: { stack: { selected: ["TypeScript (Recommended)"] } },
    });
    expect(late.error).toMatchObject({ code: -32011, data: { reason: "already_settled" } });
    expect(await s.close()).toBe(0);
  });

  it("a timeout policy: touch snoozes it, the timed_out outcome carries the policy, the request resolves", async () => {
    mock = await startMockProcess(Scripts.questionDemo());
    const s = inProcessStdio(serverEnv(mock));
    clients.push(s.client);
    await s.client.initialize();
    const policy = { type: "timeout", ms: 400, on_timeout: "recommended" };
    const started = await s.client.request("thread/start", {
      cwd: tempDir("tandem-cwd-"),
      config: { "questions.policy": policy },
    });
    const threadId = started.thread.id;
    await s.client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "go" }],
      collaborationMode: PLAN_MODE,
    });
    const question = await s.client.serverRequest("item/tool/requestUserInput");
    expect(question.params.isBlocking).toBe(true);
    expect(question.params.autoResolutionMs).toBeGreaterThan(0);
    expect(question.params.autoResolutionMs).toBeLessThanOrEqual(400);
    const touched = await s.client.request("tandem/question/touch", { requestId: question.id });
    expect(touched.deadline).toBeGreaterThan(Date.now());
    await s.client.notification("tandem/question/deadlineChanged", (p) => p.deadline === touched.deadline);
    const settled = await s.client.notification("tandem/question/settled");
    expect(settled.outcome).toEqual({
      status: "timed_out",
      policy,
      answers: { stack: { selected: ["TypeScript (Recommended)"] } },
      unanswered: ["name"],
    });
    expect(Date.now()).toBeGreaterThanOrEqual(touched.deadline);
    await s.client.notification("serverRequest/resolved", (p) => p.requestId === question.id);
    const done = await s.client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");
    const bad = await s.client.call("thread/start", { config: { "questions.policy": { type: "timeout" } } });
    expect(bad.error).toMatchObject({ code: -32602 });
    expect(await s.close()).toBe(0);
  });

  it("exits 1 without an API key and 2 on bad usage", async () => {
    const home = tempDir("tandem-home-");
    const noKey = await runTandemAppServer([], { TANDEM_HOME: home });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/no API key/);
    const usage = await runTandemAppServer(["--listen", "http://nope"], {
      TANDEM_HOME: home,
      OPENAI_API_KEY: "k",
    });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--listen expects/);
  });
});

/** Runs `tandem app-server` to completion with empty stdin. */
function runTandemAppServer(args: string[], env: Record<string, string>) {
  return runTandem(["app-server", ...args], { env });
}
