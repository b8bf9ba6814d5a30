/**
 * `tandem app-server --listen ws://…` (requirements S3, Q13): a real server process, real sockets, the
 * scripted model as a real process. Several clients on one thread: the first valid answer wins, the
 * others see `serverRequest/resolved` and a late answer is refused; an interrupt with a question
 * pending ends the turn `interrupted` and resolves the request.
 */

import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  ANSWER,
  answerAndFinish,
  expectDemoQuestion,
  questionScript,
  serverEnv,
  startPlanTurn,
} from "../helpers/app-server.js";
import { type ServerProcess, type TestClient, wsClient, wsServer } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";

describe("tandem app-server over websockets", () => {
  let mock: MockProcess | undefined;
  let server: ServerProcess | undefined;
  const clients: TestClient[] = [];
  const sockets: Array<{ close(): Promise<void> }> = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) expect(c.violations).toEqual([]);
    for (const s of sockets.splice(0)) await s.close();
    if (server) expect(await server.stop()).toBe(143); // SIGTERM
    server = undefined;
    await mock?.stop();
    mock = undefined;
  });

  async function connect(url: string, name: string) {
    const c = await wsClient(url, name);
    clients.push(c.client);
    sockets.push(c);
    await c.client.initialize();
    return c;
  }

  it("drives a Plan-mode question round trip", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    expect(started.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const { client } = await connect(started.url, "ws");
    const { threadId, turnId, question } = await startPlanTurn(client);
    expectDemoQuestion(question, threadId, turnId);
    await answerAndFinish(client, mock, question);
  });

  it("two clients on one thread: the first answer wins, the other is resolved and refused", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    const a = await connect(started.url, "a");
    const b = await connect(started.url, "b");
    const { threadId, question } = await startPlanTurn(a.client);

    // b attaches to the running thread and gets the pending question too, under the same id.
    const resumed = await b.client.request("thread/resume", { threadId });
    expect(resumed.thread.status).toEqual({ type: "active", activeFlags: ["waitingOnUserInput"] });
    expect(resumed.thread.turns.at(-1).status).toBe("inProgress");
    const bQuestion = await b.client.serverRequest("item/tool/requestUserInput");
    expect(bQuestion.id).toBe(question.id);

    await answerAndFinish(b.client, mock, bQuestion);
    // a sees it resolved, the outcome names who answered, and a's late answer is refused.
    await a.client.notification("serverRequest/resolved", (p) => p.requestId === question.id);
    const settled = await a.client.notification("tandem/question/settled");
    expect(settled.outcome).toMatchObject({ status: "answered", responder: { kind: "app-server" } });
    a.client.respond(question, { answers: { stack: { answers: ["TypeScript (Recommended)"] } } });
    const refused = await a.client.notification("tandem/question/replyRefused");
    expect(refused).toMatchObject({ threadId, requestId: question.id, code: "already_settled" });
    expect(refused.message).toMatch(/already answered/);
    const warning = await a.client.notification("warning");
    expect(warning.message).toMatch(/answer not used/);
    const late = await a.client.call("tandem/question/reply", {
      threadId,
      requestId: question.id,
      answers: { stack: { selected: ["Rust"] } },
    });
    expect(late.error).toMatchObject({ code: -32011, data: { reason: "already_settled" } });
    await a.client.notification("turn/completed", (p) => p.turn.status === "completed");
  });

  it("interrupt with a question pending ends the turn interrupted and resolves the request", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    const { client } = await connect(started.url, "ws");
    const { threadId, turnId, question } = await startPlanTurn(client);
    expect(await client.request("turn/interrupt", { threadId, turnId })).toEqual({});
    await client.notification("serverRequest/resolved", (p) => p.requestId === question.id);
    const settled = await client.notification("tandem/question/settled");
    expect(settled.outcome).toMatchObject({ status: "cancelled" });
    const done = await client.notification("turn/completed", (p) => p.turn.id === turnId);
    expect(done.turn).toMatchObject({ status: "interrupted", error: null });
    // Answering now is refused: the request was cancelled.
    client.respond(question, ANSWER);
    const refused = await client.notification("tandem/question/replyRefused");
    expect(refused.code).toBe("cancelled");
    // Interrupting the ended turn again is done already (a Ctrl+C racing turn/completed must not
    // become an error in the Codex TUI); fails if it errors. An unknown turn is still refused.
    expect(await client.request("turn/interrupt", { threadId, turnId })).toEqual({});
    const unknown = await client.call("turn/interrupt", { threadId, turnId: "turn_nope" });
    expect(unknown.error).toMatchObject({ code: -32003 });
    const status = await client.request("thread/read", { threadId });
    expect(status.thread.status).toEqual({ type: "idle" });
  });

  it("refuses browser origins", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    const socket = new WebSocket(started.url, { headers: { Origin: "https://example.com" } });
    const status = await new Promise<number>((res) => {
      socket.once("unexpected-response", (_req, r) => res(r.statusCode ?? 0));
      socket.once("open", () => res(101));
      socket.once("error", () => {});
    });
    expect(status).toBe(403);
    expect(server.stderr()).toMatch(/refused a websocket from origin https:\/\/example\.com/);
  });
});
