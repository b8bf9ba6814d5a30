/**
 * SIGTERM and SIGINT end every surface within a bound (README "Stopping Tandem"; util/signals.ts):
 * `exec` (under a terminal, asking inline), `serve`, `app-server` over stdio and websocket, `acp`,
 * `mcp-server`, the TUI and `mock-model`. Each is a real `./bin/tandem` process against the
 * scripted model, left with a turn whose question is pending and whose command ignores SIGTERM
 * (`trap '' TERM; sleep …`). After the signal: the exit code (143, or 130 for SIGINT), one stderr
 * line saying so, no process of the command left, and the question still pending in the store for
 * the next process to ask again.
 */
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { startAcp } from "../helpers/acp-client.js";
import { processStdio, wsClient, wsServer } from "../helpers/app-server-client.js";
import { BIN, type MockProcess, spawnServe, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import {
  commandRunning,
  exitWithin,
  expectStopped,
  marker,
  pendingStep,
  procsMatching,
} from "../helpers/signals.js";
import { sandboxFallback } from "../helpers/system-tools.js";
import { hasTmux, tuiHarness } from "../helpers/tui-harness.js";
import { waitUntil } from "../helpers/wait.js";

const ASKS = ["-c", "questions.default_mode=true"];
/** How long a surface may take to stop (its own grace is 5 s). */
const BOUND_MS = 15_000;

const exitOf = (proc: ChildProcess) =>
  new Promise<number | null>((r) =>
    proc.exitCode !== null ? r(proc.exitCode) : proc.once("exit", (c) => r(c)),
  );

let mock: MockProcess | undefined;
const kills: Array<() => void> = [];
afterEach(async () => {
  for (const k of kills.splice(0)) k();
  await mock?.stop();
  mock = undefined;
});

async function setup() {
  const mark = marker();
  mock = await startMockProcess({
    steps: [pendingStep(mark), { output: [{ type: "message", text: "unused" }] }],
  });
  const home = tempDir("tandem-sig-home-");
  sandboxFallback(home);
  const env = { TANDEM_HOME: home, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: mock.url, NO_COLOR: "1" };
  return { mark, home, env, cwd: tempDir("tandem-sig-cwd-") };
}

describe("SIGTERM / SIGINT end every surface", () => {
  // fails if exec only interrupts the turn (the question is then settled, not left pending), exits
  // 1, or waits on a command that ignores SIGTERM.
  it.each(["SIGTERM", "SIGINT"] as const)("exec (asking inline on a terminal): %s", async (signal) => {
    const { mark, home, env, cwd } = await setup();
    const term = ptySpawn(BIN, ["exec", "--questions", "stdin", "go"], {
      cwd,
      env: { ...process.env, ...env } as Record<string, string>,
      cols: 120,
      rows: 40,
    });
    let out = "";
    term.onData((d) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => term.onExit((e) => r(e.exitCode)));
    kills.push(() => {
      try {
        process.kill(term.pid, "SIGKILL");
      } catch {
        // gone already
      }
    });
    await waitUntil(() => out.includes("Which one should stay pending?"), "the question on the terminal", {
      timeoutMs: 20_000,
    });
    await commandRunning(mark);
    process.kill(term.pid, signal);
    const code = await exitWithin(exited, BOUND_MS, () => out);
    await expectStopped({ surface: "exec", signal, code, output: out.replace(/\r/g, ""), mark, home });
  });

  // fails if nothing bounds the shutdown: the turn waits on a host-side call (here the turn
  // diff's `git`, which ignores SIGTERM and never returns), so without the watchdog exec never exits.
  // Tandem runs no git of its own any more (test/security/host-side.test.ts); the host process
  // that can still hang a run is a configured MCP server. fails if SIGTERM waits on it (the run
  // would wait out its 600 s start-up timeout) or leaves it running.
  it("exec waiting on an MCP server that hangs and ignores SIGTERM still exits, and the server dies", async () => {
    const { env, cwd, home } = await setup();
    const mark = marker();
    writeFileSync(
      join(home, "config.toml"),
      `${existsSync(join(home, "config.toml")) ? readFileSync(join(home, "config.toml"), "utf8") : ""}\n[mcp_servers.hang]\ncommand = "sh"\nargs = ["-c", "trap '' TERM; exec sleep ${mark}"]\nstartup_timeout_sec = 600\n`,
    );
    kills.push(() => {
      for (const pid of procsMatching(`sleep ${mark}`)) process.kill(pid, "SIGKILL");
    });
    const proc = spawn(BIN, ["exec", "go"], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    kills.push(() => proc.kill("SIGKILL"));
    let stderr = "";
    proc.stderr.on("data", (d) => {
      stderr += d;
    });
    await waitUntil(() => procsMatching(`sleep ${mark}`).length > 0, "the hanging MCP server to run", {
      timeoutMs: 20_000,
    });
    const exited = exitOf(proc);
    proc.kill("SIGTERM");
    expect(await exitWithin(exited, BOUND_MS, () => stderr)).toBe(143);
    await waitUntil(() => procsMatching(`sleep ${mark}`).length === 0, "the MCP server to be killed", {
      timeoutMs: 5_000,
    });
  });

  // fails if serve resolves 0 without the line, or its shutdown waits on the command.
  it("serve", async () => {
    const { mark, home, env, cwd } = await setup();
    const served = await spawnServe(["--responder", "--token", "sig-token-0123456789", ...ASKS], env);
    kills.push(() => served.proc.kill("SIGKILL"));
    const base = /listening on (\S+)/.exec(served.lines[0])![1];
    const call = (method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: { authorization: "Bearer sig-token-0123456789", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const thread = await call("POST", "/thread", { cwd });
    await call("POST", `/thread/${thread.id}/turn`, { text: "go" });
    await waitUntil(
      async () => (await call("GET", "/question")).questions.length === 1,
      "GET /question to list it",
    );
    await commandRunning(mark);
    const exited = exitOf(served.proc);
    served.proc.kill("SIGTERM");
    const code = await exitWithin(exited, BOUND_MS, served.stderr);
    await expectStopped({ surface: "serve", signal: "SIGTERM", code, output: served.stderr(), mark, home });
  });

  it.each(["stdio", "websocket"] as const)("app-server over %s", async (transport) => {
    const { mark, home, env, cwd } = await setup();
    const { client, server } =
      transport === "stdio"
        ? processStdio(env, ASKS)
        : await (async () => {
            const ws = await wsServer(env, ASKS);
            return { ...(await wsClient(ws.url)), server: ws.server };
          })();
    kills.push(() => server.proc.kill("SIGKILL"));
    await client.initialize();
    const started = await client.request("thread/start", { cwd });
    await client.request("turn/start", {
      threadId: started.thread.id,
      input: [{ type: "text", text: "go" }],
    });
    await client.serverRequest("item/tool/requestUserInput", () => true);
    await commandRunning(mark);
    const exited = exitOf(server.proc);
    server.proc.kill("SIGTERM");
    const code = await exitWithin(exited, BOUND_MS, server.stderr);
    await expectStopped({
      surface: "app-server",
      signal: "SIGTERM",
      code,
      output: server.stderr(),
      mark,
      home,
    });
  });

  it("acp", async () => {
    const { mark, home, cwd } = await setup();
    const run = startAcp(mock!, ASKS, home);
    kills.push(() => run.proc.kill("SIGKILL"));
    await run.initialize({ elicitation: { form: {} } });
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    void run.agent
      .request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] })
      .catch(() => {});
    await run.elicitations.next("elicitation");
    await commandRunning(mark);
    const exited = exitOf(run.proc);
    run.proc.kill("SIGTERM");
    const code = await exitWithin(exited, BOUND_MS, run.stderr);
    await expectStopped({ surface: "acp", signal: "SIGTERM", code, output: run.stderr(), mark, home });
  });

  it("mcp-server", async () => {
    const { mark, home, env, cwd } = await setup();
    const proc = spawn(BIN, ["mcp-server", ...ASKS], { cwd, env: { ...process.env, ...env }, stdio: "pipe" });
    kills.push(() => proc.kill("SIGKILL"));
    let stderr = "";
    proc.stderr.on("data", (d) => {
      stderr += d;
    });
    const client = new Client(
      { name: "sig-host", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    let asked = false;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked = true;
      return new Promise(() => {}); // the host's user never answers
    });
    await client.connect(childTransport(proc));
    void client
      .callTool({ name: "tandem", arguments: { prompt: "go", cwd } }, undefined, { timeout: 600_000 })
      .catch(() => {});
    await waitUntil(() => asked, "the question as an elicitation form", { timeoutMs: 20_000 });
    await commandRunning(mark);
    const exited = exitOf(proc);
    proc.kill("SIGTERM");
    const code = await exitWithin(exited, BOUND_MS, () => stderr);
    await expectStopped({ surface: "mcp-server", signal: "SIGTERM", code, output: stderr, mark, home });
  });

  it("mock-model", async () => {
    const { env } = await setup();
    const script = join(tempDir("tandem-sig-mock-"), "script.json");
    writeFileSync(script, JSON.stringify({ steps: [] }));
    const proc = spawn(BIN, ["mock-model", "--script", script, "--port", "0"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (d) => {
      stderr += d;
    });
    let stdout = "";
    proc.stdout.on("data", (d) => {
      stdout += d;
    });
    kills.push(() => proc.kill("SIGKILL"));
    await waitUntil(() => stdout.includes("listening") || proc.exitCode !== null, "mock-model to listen");
    expect(stdout, stderr).toContain("mock-model listening on");
    const exited = exitOf(proc);
    proc.kill("SIGTERM");
    expect(await exitWithin(exited, BOUND_MS, () => stderr)).toBe(143);
    expect(stderr).toBe(
      "tandem mock-model: SIGTERM received, shutting down (send it again to quit at once)\n",
    );
  });
});

describe.skipIf(!hasTmux)("SIGTERM ends the TUI's process", () => {
  const tui = tuiHarness({ name: "tandem-sig", afterExit: "" });

  it("the TUI", async () => {
    const { mark, home, cwd } = await setup();
    tui.launch({ url: mock!.url, home, cwd, args: [...ASKS, "go"] });
    await tui.waitFor("Which one should stay pending?");
    await commandRunning(mark);
    const [pid] = procsMatching(`--cd ${cwd}`).filter((p) => procsMatching(BIN).includes(p));
    expect(pid, "the TUI's process").toBeDefined();
    process.kill(pid, "SIGTERM");
    const pane = await tui.waitFor(/\[exited \d+\]/, BOUND_MS);
    const code = Number(/\[exited (\d+)\]/.exec(pane)![1]);
    await expectStopped({
      surface: "tui",
      signal: "SIGTERM",
      code,
      output: pane.replace(/\n(?!tandem)/g, " "),
      mark,
      home,
    });
  });
});

/** An MCP client transport over a process we spawned ourselves (so its exit code is ours to see). */
function childTransport(proc: ChildProcessWithoutNullStreams): Transport {
  const buffer = new ReadBuffer();
  const t: Transport = {
    async start() {
      proc.stdout.on("data", (chunk: Buffer) => {
        buffer.append(chunk);
        for (let m = buffer.readMessage(); m; m = buffer.readMessage()) t.onmessage?.(m);
      });
      proc.once("exit", () => t.onclose?.());
    },
    async send(message) {
      proc.stdin.write(serializeMessage(message));
    },
    async close() {
      proc.stdin.end();
    },
  };
  return t;
}
