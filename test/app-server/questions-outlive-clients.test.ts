/**
 * Questions outlive their clients (requirements Q11): a client that disconnects never settles a question;
 * the next client that resumes the thread gets it and its answer completes the turn — also after the
 * app server itself was stopped and started again.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  answerAndFinish,
  expectDemoQuestion,
  questionScript,
  serverEnv,
  startPlanTurn,
} from "../helpers/app-server.js";
import {
  processStdio,
  type ServerProcess,
  type TestClient,
  wsClient,
  wsServer,
} from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

describe("tandem app-server: questions outlive clients", () => {
  let mock: MockProcess | undefined;
  let server: ServerProcess | undefined;
  const clients: TestClient[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) expect(c.violations).toEqual([]);
    if (server) await server.stop();
    server = undefined;
    await mock?.stop();
    mock = undefined;
  });

  it("a client disconnects with a question pending; a new client resumes, answers, the turn completes", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    const first = await wsClient(started.url, "first");
    clients.push(first.client);
    await first.client.initialize();
    const { threadId, turnId, question } = await startPlanTurn(first.client);
    await first.close();

    const second = await wsClient(started.url, "second");
    clients.push(second.client);
    await second.client.initialize();
    // Still pending: the disconnect settled nothing.
    const listed = await second.client.request("tandem/question/list", {});
    expect(listed.requests.map((r: any) => r.request_id)).toEqual([question.id]);
    const resumed = await second.client.request("thread/resume", { threadId });
    expect(resumed.thread.turns.at(-1)).toMatchObject({ id: turnId, status: "inProgress" });
    const again = await second.client.serverRequest("item/tool/requestUserInput");
    expectDemoQuestion(again, threadId, turnId);
    expect(again.id).toBe(question.id);
    await answerAndFinish(second.client, mock, again);
    await second.close();
  });

  it("the app server restarts with a question pending; resuming re-asks it and the answer completes the turn", async () => {
    mock = await startMockProcess(questionScript());
    const home = tempDir("tandem-home-");
    const before = processStdio(serverEnv(mock, home));
    clients.push(before.client);
    await before.client.initialize();
    const { threadId, turnId, question } = await startPlanTurn(before.client);
    expect(await before.server.stop("SIGTERM")).toBe(143);

    const after = processStdio(serverEnv(mock, home));
    server = after.server;
    clients.push(after.client);
    await after.client.initialize();
    const list = await after.client.request("thread/list", {});
    expect(list.data[0]).toMatchObject({ id: threadId, status: { type: "notLoaded" } });
    const resumed = await after.client.request("thread/resume", { threadId });
    expect(resumed.thread.status).toEqual({ type: "active", activeFlags: ["waitingOnUserInput"] });
    const reasked = await after.client.serverRequest("item/tool/requestUserInput");
    expect(reasked.id).toBe(question.id);
    expectDemoQuestion(reasked, threadId, turnId);
    // The resumed turn was announced after the response.
    const methods = after.client.received.map((m) => m.method ?? "response");
    expect(methods.indexOf("turn/started")).toBeGreaterThan(methods.indexOf("response"));
    await answerAndFinish(after.client, mock, reasked);
    expect(await after.close()).toBe(0);
    server = undefined;
  });
});
