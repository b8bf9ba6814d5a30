/**
 * What a stock Codex client (the Codex TUI 0.171, its IDE extension) needs beyond the core methods
 * (README "Answer from anywhere"): startup inventory answers, thread settings and permission profiles, ephemeral helper
 * threads with tools switched off, tandem/* notifications only for clients that opt in, and
 * thread/turns/list. Every message is validated against Codex's schema by the test client.
 * The real TUI drives the same paths end to end in test/codex-tui.test.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { call, quietChild, say as sayItem, spawnCall } from "../helpers/agent-scripts.js";
import { modelRequests, questionScript, serverEnv, startPlanTurn } from "../helpers/app-server.js";
import { inProcessStdio, RpcFailure, type Served, type TestClient } from "../helpers/app-server-client.js";
import { type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING } from "../helpers/mcp.js";
import { missing, sandboxFallback } from "../helpers/system-tools.js";

const SHELL = process.env.SHELL || "/bin/bash";

async function failure(p: Promise<unknown>): Promise<RpcFailure> {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(RpcFailure);
  return err as RpcFailure;
}

describe("tandem app-server: what a Codex client needs", () => {
  const served: Served[] = [];
  const mocks: MockProcess[] = [];

  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      expect(await s.close()).toBe(0);
    }
    for (const m of mocks.splice(0)) await m.stop();
  });

  async function start(script: Script, opts: { config?: string; capabilities?: unknown } = {}) {
    const mock = await startMockProcess(script, { log: true });
    mocks.push(mock);
    const home = tempDir("tandem-home-");
    const env = serverEnv(mock, home);
    if (opts.config) {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(join(home, "config.toml"), opts.config);
    }
    sandboxFallback(home);
    const s = inProcessStdio(env);
    served.push(s);
    await s.client.initialize(
      opts.capabilities === undefined ? {} : { capabilities: opts.capabilities as Record<string, unknown> },
    );
    return { client: s.client, mock, home };
  }

  const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

  // Fails if any startup method a Codex client calls errors (the TUI exits or shows red lines).
  it("answers the startup inventory with valid, honest shapes", async () => {
    const { client } = await start({ steps: [] });
    const cwd = tempDir("tandem-cwd-");
    expect(await client.request("configRequirements/read", null)).toEqual({ requirements: null });
    expect((await client.request("collaborationMode/list", {})).data).toEqual([
      { name: "Plan", mode: "plan", model: null, reasoning_effort: "medium" },
      { name: "Default", mode: "default", model: null, reasoning_effort: null },
    ]);
    const profiles = await client.request("permissionProfile/list", {});
    expect(profiles.data.map((p: any) => [p.id, p.allowed])).toEqual([
      [":read-only", true],
      [":workspace", true],
      [":danger-full-access", true],
    ]);
    expect(await client.request("skills/list", { cwds: [cwd, "/"], forceReload: true })).toEqual({
      data: [
        { cwd, skills: [], errors: [] },
        { cwd: "/", skills: [], errors: [] },
      ],
    });
    expect((await client.request("hooks/list", { cwds: [cwd] })).data).toEqual([
      { cwd, hooks: [], warnings: [], errors: [] },
    ]);
    expect(await client.request("plugin/installed", { cwds: [cwd] })).toEqual({
      marketplaces: [],
      marketplaceLoadErrors: [],
    });
    expect(await client.request("account/bedrock/checkGovCloudRequirements", {})).toEqual({
      isGovCloud: false,
      shouldWarn: false,
    });
    const thread = (await client.request("thread/start", { cwd })).thread.id;
    expect(await client.request("thread/goal/get", { threadId: thread })).toEqual({ goal: null });
    expect(await client.request("thread/backgroundTerminals/list", { threadId: thread })).toEqual({
      data: [],
      nextCursor: null,
    });
    expect((await failure(client.request("thread/goal/get", { threadId: "thr_nope" }))).code).toBe(-32001);
  });

  // Fails if thread/settings/update is dropped: later turns must use the new model, effort, mode
  // and sandbox, and every attached client must hear the full settings.
  it("thread/settings/update changes later turns and reports the settings in force", async () => {
    const { client, mock } = await start(
      { steps: [say("one"), say("two")] },
      { config: "model_context_window = 50000\n" },
    );
    const cwd = tempDir("tandem-cwd-");
    const started = await client.request("thread/start", { cwd, permissions: ":read-only" });
    expect(started.activePermissionProfile).toEqual({ id: ":read-only", extends: null });
    expect(started.sandbox).toMatchObject({ type: "readOnly" });
    const threadId = started.thread.id;

    expect(
      await client.request("thread/settings/update", {
        threadId,
        permissions: ":workspace",
        collaborationMode: { mode: "plan", settings: { model: "gpt-next", reasoning_effort: "high" } },
      }),
    ).toEqual({});
    const updated = await client.notification("thread/settings/updated", (p) => p.threadId === threadId);
    expect(updated.threadSettings).toMatchObject({
      cwd,
      model: "gpt-next",
      effort: "high",
      approvalPolicy: expect.any(String),
      sandboxPolicy: { type: "workspaceWrite" },
      activePermissionProfile: { id: ":workspace", extends: null },
      collaborationMode: { mode: "plan", settings: { model: "gpt-next", reasoning_effort: "high" } },
    });
    await client.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    await client.notification("turn/completed", (p) => p.threadId === threadId);
    // Fails if the configured context window is not reported with the usage.
    const usage = await client.notification("thread/tokenUsage/updated", (p) => p.threadId === threadId);
    expect(usage.tokenUsage.modelContextWindow).toBe(50_000);
    const first = modelRequests(mock)[0];
    expect(first.model).toBe("gpt-next");
    expect(first.reasoning?.effort).toBe("high");

    // A mode without an effort clears the thread's own; a null field keeps what the thread has.
    await client.request("thread/settings/update", {
      threadId,
      collaborationMode: { mode: "default", settings: { model: "gpt-next", reasoning_effort: null } },
    });
    const again = await client.notification(
      "thread/settings/updated",
      (p) => p.threadId === threadId && p.threadSettings.collaborationMode.mode === "default",
    );
    expect(again.threadSettings).toMatchObject({ effort: null, model: "gpt-next" });
    expect(again.threadSettings.activePermissionProfile).toEqual({ id: ":workspace", extends: null });

    const bad = await failure(client.request("thread/settings/update", { threadId, permissions: ":root" }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain(":read-only, :workspace, :danger-full-access");
    const both = await failure(
      client.request("thread/settings/update", {
        threadId,
        permissions: ":workspace",
        sandboxPolicy: { type: "readOnly" },
      }),
    );
    expect(both.code).toBe(-32602);
    expect((await failure(client.request("thread/settings/update", { threadId: "thr_nope" }))).code).toBe(
      -32001,
    );
  });

  // Fails if the permission profile is dropped on thread/start or turn/start (writes stay refused).
  it.skipIf(missing("bwrap").length > 0)(
    "a :workspace profile lets the next turn write where :read-only refused",
    async () => {
      const cmd = (c: string, id: string) => ({
        output: [
          { type: "function_call" as const, name: "exec_command", call_id: id, arguments: { cmd: c } },
        ],
      });
      const { client } = await start(
        {
          steps: [cmd("echo a > a.txt", "c1"), say("tried"), cmd("echo b > b.txt", "c2"), say("wrote")],
        },
        { config: 'approval_policy = "never"\n' },
      );
      const cwd = tempDir("tandem-cwd-");
      const threadId = (await client.request("thread/start", { cwd, permissions: ":read-only" })).thread.id;
      await client.request("turn/start", { threadId, input: [{ type: "text", text: "write a" }] });
      await client.notification("turn/completed", (p) => p.threadId === threadId);
      expect(existsSync(join(cwd, "a.txt"))).toBe(false);
      await client.request("turn/start", {
        threadId,
        input: [{ type: "text", text: "write b" }],
        permissions: ":workspace",
      });
      await client.notification("turn/completed", (p) => p.threadId === threadId && p.turn.items);
      await client.notification(
        "item/completed",
        (p) => p.threadId === threadId && p.item.type === "commandExecution" && p.item.id === "c2",
      );
      expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("b\n");
    },
  );

  // Fails if an ephemeral thread is stored or listed, or if its config cannot switch tools off.
  it("an ephemeral helper thread runs with its tools off and leaves nothing behind", async () => {
    const { client, mock, home } = await start({
      side_steps: [
        { when: { input_contains: ["task title"] }, output: [{ type: "message", text: '{"title":"T"}' }] },
      ],
      steps: [],
    });
    const cwd = tempDir("tandem-cwd-");
    const started = await client.request("thread/start", {
      cwd,
      ephemeral: true,
      permissions: ":read-only",
      approvalPolicy: "never",
      config: {
        "features.shell_tool": false,
        "tools.update_plan.enabled": false,
        "tools.experimental_request_user_input.enabled": false,
        features: { goals: false },
        mcp_servers: {},
      },
    });
    expect(started.thread.ephemeral).toBe(true);
    const threadId = started.thread.id;
    await client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "Generate a concise task title" }],
      outputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
    });
    const done = await client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");
    const tools = modelRequests(mock)[0].tools.map((t: any) => t.name);
    expect(tools).not.toContain("exec_command");
    expect(tools).not.toContain("request_user_input");
    expect(tools).not.toContain("update_plan");
    expect((await client.request("thread/list", {})).data).toEqual([]);
    expect((await client.request("thread/read", { threadId })).thread.ephemeral).toBe(true);
    // The store never saw it: `tandem threads` on the same home lists nothing.
    const listed = await runTandem(["threads", "--json"], { env: { TANDEM_HOME: home } });
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim()).toBe("");
  });

  // Fails if a Codex client (no `extensions.tandem`) gets tandem/* notifications it cannot parse.
  it("sends tandem/* notifications only to clients that opted in", async () => {
    const { client } = await start(questionScript({ hangAfterQuestion: true }), { capabilities: {} });
    const { question } = await startPlanTurn(client);
    expect(question.method).toBe("item/tool/requestUserInput");
    expect(client.notifications.filter((n) => String(n.method).startsWith("tandem/"))).toEqual([]);
  });

  // Fails if thread/turns/list does not page the stored turns newest first.
  it("thread/turns/list pages stored turns", async () => {
    const { client } = await start({ steps: [say("one"), say("two")] });
    const threadId = (await client.request("thread/start", { cwd: tempDir("tandem-cwd-") })).thread.id;
    for (const text of ["first", "second"]) {
      await client.request("turn/start", { threadId, input: [{ type: "text", text }] });
      await client.notification("turn/completed", (p) => p.threadId === threadId && p.turn.status);
      await waitIdle(client, threadId);
    }
    const page = await client.request("thread/turns/list", { threadId, limit: 1, itemsView: "full" });
    expect(page.data).toHaveLength(1);
    expect(page.nextCursor).toBe("1");
    expect(page.data[0].items.map((i: any) => i.text ?? i.content?.[0]?.text)).toEqual(["second", "two"]);
    const asc = await client.request("thread/turns/list", { threadId, sortDirection: "asc" });
    expect(asc.data.map((t: any) => t.itemsView)).toEqual(["notLoaded", "notLoaded"]);
    expect(asc.data[0].id).not.toBe(page.data[0].id);
  });

  // Fails if the configured MCP servers are not reported, or their live status and tools are made up.
  it("mcpServerStatus/list reports configured servers, how they started and their tools", async () => {
    const config = [
      "[mcp_servers.everything]",
      'command = "node"',
      `args = [${JSON.stringify(EVERYTHING)}]`,
      "[mcp_servers.off]",
      'command = "node"',
      "enabled = false",
      "",
    ].join("\n");
    const { client } = await start({ steps: [] }, { config });
    const before = await client.request("mcpServerStatus/list", {});
    expect(before.data.map((s: any) => [s.name, s.runtimeStatus])).toEqual([
      ["everything", "notStarted"],
      ["off", "disabled"],
    ]);
    await client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
    let everything: any;
    for (let i = 0; i < 200 && everything?.runtimeStatus !== "connected"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      everything = (await client.request("mcpServerStatus/list", {})).data[0];
    }
    expect(everything.runtimeStatus).toBe("connected");
    expect(everything.authStatus).toBe("unsupported");
    expect(everything.tools.mcp__everything__echo.inputSchema).toMatchObject({ type: "object" });
  });

  // Fails if a sub-agent is invisible to a Codex client attached to the parent: no thread/started
  // with Codex's sub-agent fields, no child events, or spawn/wait shown as generic tool calls.
  it("sub-agents reach a Codex client as sub-agent threads and collabAgentToolCall items", async () => {
    const { client } = await start({
      steps: [
        { output: [spawnCall("TASK-Q: look around", "sa")] },
        { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        { output: [sayItem("parent done")] },
      ],
      side_steps: quietChild("TASK-Q"),
    });
    const threadId = (await client.request("thread/start", { cwd: tempDir("tandem-cwd-") })).thread.id;
    await client.request("turn/start", { threadId, input: [{ type: "text", text: "delegate" }] });
    const child = await client.notification("thread/started", (p) => p.thread.id !== threadId);
    expect(child.thread).toMatchObject({
      parentThreadId: threadId,
      agentNickname: "Ada",
      source: { subAgent: { thread_spawn: { parent_thread_id: threadId, depth: 1, agent_nickname: "Ada" } } },
    });
    const childDone = await client.notification("turn/completed", (p) => p.threadId === child.thread.id);
    expect(childDone.turn.status).toBe("completed");
    await client.notification("turn/completed", (p) => p.threadId === threadId);
    const spawn = client.notifications.find(
      (n) =>
        n.method === "item/completed" &&
        n.params.item.type === "collabAgentToolCall" &&
        n.params.item.id === "sa",
    );
    expect(spawn?.params.item).toMatchObject({
      tool: "spawnAgent",
      status: "completed",
      senderThreadId: threadId,
      receiverThreadIds: [child.thread.id],
      prompt: "TASK-Q: look around",
    });
    const wait = client.notifications.find((n) => n.method === "item/completed" && n.params.item.id === "w1");
    expect(wait?.params.item).toMatchObject({
      type: "collabAgentToolCall",
      tool: "wait",
      agentsStates: { [child.thread.id]: { status: "completed", message: "TASK-Q finished" } },
    });
    // thread/read of the parent renders the same items from the store.
    const read = await client.request("thread/read", { threadId, includeTurns: true });
    const types = read.thread.turns[0].items.map((i: any) => i.type);
    expect(types.filter((t: string) => t === "collabAgentToolCall")).toHaveLength(2);
    // thread/list filters: the Codex TUI's resume picker asks for ["exec", "appServer"] sources.
    const ids = async (params: Record<string, unknown>) =>
      (await client.request("thread/list", params)).data.map((t: any) => t.id);
    expect(await ids({ sourceKinds: ["exec", "appServer"] })).toEqual([threadId]);
    // …and the Codex TUI's resume picker asks for ["cli", "vscode"]; its agent panel for
    // sub-agents below the thread.
    expect(await ids({ sourceKinds: ["cli", "vscode"] })).toEqual([threadId]);
    expect(await ids({ sourceKinds: ["subAgentThreadSpawn"], ancestorThreadId: threadId })).toEqual([
      child.thread.id,
    ]);
    expect(await ids({ ancestorThreadId: child.thread.id })).toEqual([]);
    expect(await ids({ parentThreadId: threadId })).toEqual([child.thread.id]);
    expect((await ids({})).sort()).toEqual([threadId, child.thread.id].sort());
  });

  // Fails if commands reach a Codex client as the raw script (it re-splits it: 'a' '&&' 'b').
  it("commandExecution items carry the shell-quoted argv and command actions", async () => {
    const { client } = await start(
      {
        steps: [
          {
            output: [
              {
                type: "function_call",
                name: "exec_command",
                call_id: "c1",
                arguments: { cmd: "echo hi > out.txt && cat out.txt" },
              },
            ],
          },
          say("done"),
        ],
      },
      { config: 'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n' },
    );
    const cwd = tempDir("tandem-cwd-");
    const threadId = (await client.request("thread/start", { cwd })).thread.id;
    await client.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    const item = await client.notification(
      "item/completed",
      (p) => p.threadId === threadId && p.item.type === "commandExecution",
    );
    expect(item.item.command).toBe(`${SHELL} -c 'echo hi > out.txt && cat out.txt'`);
    expect(item.item.commandActions).toEqual([
      { type: "unknown", command: "echo hi > out.txt && cat out.txt" },
    ]);
    const read = await client.request("thread/read", { threadId, includeTurns: true });
    const stored = read.thread.turns[0].items.find((i: any) => i.type === "commandExecution");
    expect(stored.command).toBe(item.item.command);
  });
});

async function waitIdle(client: TestClient, threadId: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const t = (await client.request("thread/read", { threadId })).thread;
    if (t.status.type === "idle") return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
