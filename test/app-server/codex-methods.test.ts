/**
 * The Codex methods beyond the core set that a stock Codex client calls at start-up or in normal
 * use: model/list, config/read, account/read, thread/loaded/list, thread/unsubscribe,
 * thread/name/set, thread/archive, thread/unarchive — every response validated against the Codex
 * schema by the test client — and the methods Tandem does not implement, which stay -32601.
 */
import { afterEach, describe, expect, it } from "vitest";
import { answerAndFinish, questionScript, serverEnv, startPlanTurn } from "../helpers/app-server.js";
import {
  inProcessStdio,
  RpcFailure,
  type Served,
  type ServerProcess,
  type TestClient,
  wsClient,
  wsServer,
} from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

/** No model request is made by these tests: the base URL points nowhere. */
const offlineEnv = (home = tempDir("tandem-home-")) => ({
  TANDEM_HOME: home,
  OPENAI_API_KEY: "test-key",
  OPENAI_BASE_URL: "http://127.0.0.1:9",
});

async function failure(p: Promise<unknown>): Promise<RpcFailure> {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(RpcFailure);
  return err as RpcFailure;
}

describe("tandem app-server: Codex methods beyond the core set", () => {
  const served: Served[] = [];

  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      expect(await s.close()).toBe(0);
    }
  });

  async function start(env: Record<string, string> = offlineEnv(), args: string[] = []) {
    const s = inProcessStdio(env, args);
    served.push(s);
    await s.client.initialize();
    return s.client;
  }

  it("model/list reports the configured model as the default, per provider", async () => {
    const client = await start(offlineEnv(), ["-m", "gpt-test-1", "-c", 'model_reasoning_effort="high"']);
    const r = await client.request("model/list", {});
    expect(r.nextCursor).toBeNull();
    expect(r.data).toHaveLength(1);
    expect(r.data[0]).toMatchObject({
      id: "gpt-test-1",
      model: "gpt-test-1",
      isDefault: true,
      hidden: false,
      defaultReasoningEffort: "high",
    });
    expect(r.data[0].supportedReasoningEfforts.map((e: any) => e.reasoningEffort)).toEqual([
      "minimal",
      "low",
      "medium",
      "high",
      "xhigh",
    ]);
    expect(await client.request("model/list", { modelProvider: "openai", limit: 5 })).toEqual(r);
    const err = await failure(client.request("model/list", { modelProvider: "nowhere" }));
    expect(err.code).toBe(-32602);
    expect(err.message).toMatch(/no provider "nowhere"/);
    expect((await failure(client.request("model/list", { cursor: "x" }))).code).toBe(-32602);
  });

  it("model/list lists nothing for another configured provider", async () => {
    const client = await start(offlineEnv(), ["-c", 'model_providers.local.base_url="http://127.0.0.1:9"']);
    expect(await client.request("model/list", { modelProvider: "local" })).toEqual({
      data: [],
      nextCursor: null,
    });
  });

  it("config/read maps the effective settings; unset ones are absent", async () => {
    const client = await start(offlineEnv(), [
      "-m",
      "gpt-test-2",
      "-c",
      'approval_policy="never"',
      "-c",
      'sandbox_mode="read-only"',
    ]);
    const r = await client.request("config/read", { includeLayers: true, cwd: tempDir() });
    expect(r).toEqual({
      config: {
        model: "gpt-test-2",
        model_provider: "openai",
        approval_policy: "never",
        approvals_reviewer: "user",
        sandbox_mode: "read-only",
        sandbox_workspace_write: { network_access: false, writable_roots: [] },
      },
      origins: {},
      layers: null,
    });
    const other = await start(offlineEnv(), [
      "-c",
      'approval_policy="on-failure"',
      "-c",
      'service_tier="flex"',
    ]);
    const c = (await other.request("config/read", {})).config;
    expect(c).toMatchObject({ approval_policy: "on-request", service_tier: "flex" });
    expect(c).not.toHaveProperty("model_reasoning_effort");
  });

  it("account/read reports the API key, never an account", async () => {
    const client = await start();
    expect(await client.request("account/read", { refreshToken: false })).toEqual({
      account: { type: "apiKey" },
      requiresOpenaiAuth: true,
    });
    const custom = await start({ ...offlineEnv(), LOCAL_KEY: "k" }, [
      "-c",
      'model_provider="local"',
      "-c",
      'model_providers.local.base_url="http://127.0.0.1:9"',
      "-c",
      'model_providers.local.env_key="LOCAL_KEY"',
    ]);
    expect(await custom.request("account/read", {})).toEqual({ account: null, requiresOpenaiAuth: false });
    const text = JSON.stringify(custom.received);
    expect(text).not.toContain("test-key");
  });

  it("thread/loaded/list, thread/name/set and thread/unsubscribe on an idle thread", async () => {
    const client = await start();
    expect(await client.request("thread/loaded/list", {})).toEqual({ data: [], nextCursor: null });
    const a = (await client.request("thread/start", { cwd: tempDir() })).thread.id;
    const b = (await client.request("thread/start", { cwd: tempDir() })).thread.id;
    const loaded = await client.request("thread/loaded/list", {});
    expect([...loaded.data].sort()).toEqual([a, b].sort());
    const page = await client.request("thread/loaded/list", { limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.nextCursor).toBe("1");
    const rest = await client.request("thread/loaded/list", { limit: 1, cursor: page.nextCursor });
    expect(rest).toEqual({ data: loaded.data.filter((id: string) => id !== page.data[0]), nextCursor: null });

    expect(await client.request("thread/name/set", { threadId: a, name: "  Release notes  " })).toEqual({});
    expect(await client.notification("thread/name/updated")).toEqual({
      threadId: a,
      threadName: "Release notes",
    });
    expect((await client.request("thread/read", { threadId: a })).thread.name).toBe("Release notes");
    // Fails if a thread nobody wrote to is listed (Codex lists a thread from its first user message).
    const listed = await client.request("thread/list", {});
    expect(listed.data.map((t: any) => t.id)).not.toContain(a);
    const empty = await failure(client.request("thread/name/set", { threadId: a, name: "   " }));
    expect(empty.code).toBe(-32602);
    expect((await failure(client.request("thread/name/set", { threadId: "thr_nope", name: "x" }))).code).toBe(
      -32001,
    );

    expect(await client.request("thread/unsubscribe", { threadId: a })).toEqual({ status: "unsubscribed" });
    expect(await client.request("thread/unsubscribe", { threadId: a })).toEqual({ status: "notSubscribed" });
    expect((await failure(client.request("thread/unsubscribe", { threadId: "thr_nope" }))).code).toBe(-32001);
  });

  it("thread/archive hides a thread from thread/list until thread/unarchive, across restarts", async () => {
    const home = tempDir("tandem-home-");
    // A thread is stored by its first turn (README "Use it"): each gets one so a restart knows it.
    const model = await startMockProcess({
      steps: [1, 2].map(() => ({ output: [{ type: "message", text: "ok" }] })),
    });
    const client = await start(serverEnv(model, home));
    const cwd = tempDir();
    const keep = (await client.request("thread/start", { cwd })).thread.id;
    const gone = (await client.request("thread/start", { cwd })).thread.id;
    for (const threadId of [keep, gone]) {
      await client.request("turn/start", { threadId, input: [{ type: "text", text: "hi" }] });
      await client.notification("turn/completed", (p) => p.threadId === threadId);
    }
    await model.stop();
    await client.request("thread/name/set", { threadId: gone, name: "Old work" });

    expect(await client.request("thread/archive", { threadId: gone })).toEqual({});
    expect(await client.notification("thread/archived")).toEqual({ threadId: gone });
    expect(await client.request("thread/archive", { threadId: gone })).toEqual({});
    expect(client.notifications.filter((n) => n.method === "thread/archived")).toHaveLength(1);
    const ids = async (params: Record<string, unknown>) =>
      (await client.request("thread/list", params)).data.map((t: any) => t.id);
    expect(await ids({})).toEqual([keep]);
    expect(await ids({ archived: false, cwd })).toEqual([keep]);
    expect(await ids({ archived: true })).toEqual([gone]);
    // Still readable, and still loaded.
    expect((await client.request("thread/read", { threadId: gone })).thread.name).toBe("Old work");

    // The flag is stored: a new server on the same home still hides it.
    const again = await start(offlineEnv(home));
    const listed = await again.request("thread/list", {});
    expect(listed.data.map((t: any) => t.id)).toEqual([keep]);
    const un = await again.request("thread/unarchive", { threadId: gone });
    expect(un.thread).toMatchObject({ id: gone, name: "Old work", status: { type: "notLoaded" } });
    expect(await again.notification("thread/unarchived")).toEqual({ threadId: gone });
    expect((await again.request("thread/list", {})).data.map((t: any) => t.id).sort()).toEqual(
      [keep, gone].sort(),
    );
    expect(await again.request("thread/list", { archived: true })).toEqual({ data: [], nextCursor: null });
    expect((await failure(again.request("thread/archive", { threadId: "thr_nope" }))).code).toBe(-32001);
  });

  it("methods Tandem does not implement stay -32601 with a clear message", async () => {
    const client = await start();
    const login = await failure(client.request("account/login/start", { type: "apiKey", apiKey: "sk-x" }));
    expect(login.code).toBe(-32601);
    expect(login.message).toMatch(
      /^-32601: method not found: account\/login\/start is not supported by Tandem \(/,
    );
    const fs = await failure(client.request("fs/readFile", { path: "/etc/hostname" }));
    expect(fs).toMatchObject({ code: -32601, message: "-32601: method not found: fs/readFile" });
  });
});

describe("tandem app-server: thread/unsubscribe with a question pending", () => {
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
    return c.client;
  }

  it("stops the events and the responder role; the question stays pending for the others", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    const a = await connect(started.url, "a");
    const b = await connect(started.url, "b");
    const { threadId, question } = await startPlanTurn(a);
    await b.request("thread/resume", { threadId });
    const bQuestion = await b.serverRequest("item/tool/requestUserInput");
    expect(bQuestion.id).toBe(question.id);

    expect(await a.request("thread/unsubscribe", { threadId })).toEqual({ status: "unsubscribed" });
    const cut = a.received.length;
    // Nothing settled: the question is still pending.
    const pending = await b.request("tandem/question/list", { threadId });
    expect(pending.requests.map((r: any) => r.request_id)).toEqual([question.id]);
    expect((await b.request("thread/loaded/list", {})).data).toEqual([threadId]);

    await answerAndFinish(b, mock, bQuestion);
    // a heard nothing more of the thread: no resolved, no items, no turn/completed.
    await a.request("thread/loaded/list", {});
    const after = a.received.slice(cut).filter((m) => m.method !== undefined);
    expect(after).toEqual([]);
    expect(a.serverRequests).toHaveLength(1);
  });

  it("a client that unsubscribed and resumes gets the pending question again and can answer it", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    const a = await connect(started.url, "a");
    const { threadId, question } = await startPlanTurn(a);
    expect(await a.request("thread/unsubscribe", { threadId })).toEqual({ status: "unsubscribed" });
    const listed = await a.request("tandem/question/list", { threadId });
    expect(listed.requests.map((r: any) => r.request_id)).toEqual([question.id]);
    await a.request("thread/resume", { threadId });
    const again = await a.waitFor((m) => m.method === "item/tool/requestUserInput" && m !== question);
    expect(again.id).toBe(question.id);
    await answerAndFinish(a, mock, again);
  });
});
