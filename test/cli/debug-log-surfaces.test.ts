/**
 * Surface traffic in the debug log (README "Debugging"), each surface a real `./bin/tandem` process:
 * `tandem serve`'s HTTP requests (method, path, status, duration; the bearer token and `?token=`
 * never written), `tandem app-server --listen ws://` upgrades and frames (the WebSocket token
 * never written), `tandem acp` and `tandem mcp-server` frames, and the frames of an MCP server a
 * thread starts (`tandem exec` with `[mcp_servers]`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAcp } from "../helpers/acp-client.js";
import { wsClient, wsServer } from "../helpers/app-server-client.js";
import { jsonLines, type MockProcess, runTandem, spawnServe, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { ODD } from "../helpers/mcp.js";
import { closeHosts, startHost } from "../helpers/mcp-host.js";
import { waitUntil } from "../helpers/wait.js";

const say = (text: string) => ({ steps: [{ output: [{ type: "message" as const, text }] }] });
const logFile = () => join(tempDir("tandem-log-file-"), "surface.log");
const records = (file: string) => jsonLines(readFileSync(file, "utf8"));

describe("surface traffic in the debug log", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await closeHosts();
    await mock?.stop();
    mock = undefined;
  });

  it("tandem serve: one record per HTTP request, credentials left out", async () => {
    const token = "serve-token-3e9a7c51d2";
    const file = logFile();
    const sv = await spawnServe(["--log-file", file], {
      TANDEM_HOME: tempDir("tandem-log-home-"),
      TANDEM_SERVE_TOKEN: token,
      OPENAI_API_KEY: "sk-serve-key-77aa",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    const url = /listening on (\S+)/.exec(sv.lines[0])![1];
    try {
      const ok = await fetch(`${url}/thread`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect((await fetch(`${url}/thread`)).status).toBe(401);
      // A credential in a query parameter Tandem does not know is still left out of the path.
      const stray = await fetch(`${url}/thread?access_token=stray-cred-51ce`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(stray.status).toBe(200);
      const sse = new AbortController();
      const events = await fetch(`${url}/event?token=${token}&since=0`, { signal: sse.signal });
      expect(events.status).toBe(200);
      await events.body!.getReader().read();
      sse.abort();
      // Its record is written when the server sees the stream close; a SIGTERM before that (a
      // busy machine) would close it from the server's side instead.
      await waitUntil(() => readFileSync(file, "utf8").includes("/event?token="), "the stream's record");
    } finally {
      await new Promise<void>((res) => {
        sv.proc.once("exit", () => res());
        sv.proc.kill("SIGTERM");
      });
    }
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(token);
    expect(text).not.toContain("stray-cred-51ce");
    const http = records(file).filter((r) => r.area === "http" && r.msg === "http");
    expect(http.map((r) => [r.method, r.path, r.status])).toEqual([
      ["GET", "/thread", 200],
      ["GET", "/thread", 401],
      ["GET", "/thread?access_token=[redacted]", 200],
      ["GET", "/event?token=[redacted]&since=0", 200],
    ]);
    expect(http.every((r) => typeof r.ms === "number")).toBe(true);
    expect(http[3].finished).toBe(false); // the stream was cut by the client
  });

  it("tandem app-server --listen ws://: upgrades (accepted and refused) and frames, without the token", async () => {
    mock = await startMockProcess(say("hi"));
    const home = tempDir("tandem-log-home-");
    const { server, url, token } = await wsServer({
      TANDEM_HOME: home,
      TANDEM_LOG: "debug",
      OPENAI_API_KEY: "k-ws-test",
      OPENAI_BASE_URL: mock.url,
    });
    try {
      const refused = await wsClient(url, "bad", { token: "not-the-token-at-all" }).catch((e) => e as Error);
      expect(refused).toBeInstanceOf(Error);
      const c = await wsClient(url);
      await c.client.initialize();
      await c.client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
      await c.close();
    } finally {
      await server.stop();
    }
    const file = /writing a debug log to (\S+)/.exec(server.stderr())![1];
    const text = readFileSync(file, "utf8");
    expect(token && token.length >= 16).toBe(true);
    expect(text).not.toContain(token);
    const recs = records(file).filter((r) => r.area === "app-server");
    expect(recs.filter((r) => r.msg === "websocket upgrade").map((r) => r.status)).toEqual([401, 101]);
    const requests = recs.filter((r) => r.msg === "request in").map((r) => [r.method, r.via]);
    expect(requests).toEqual([
      ["initialize", "ws-1"],
      ["thread/start", "ws-1"],
    ]);
    expect(recs.filter((r) => r.msg === "response out").map((r) => r.id)).toEqual([1, 2]);
  });

  it("tandem acp: the editor's requests and the agent's answers", async () => {
    mock = await startMockProcess(say("hi"));
    const file = logFile();
    const run = startAcp(mock, ["--log-file", file]);
    await run.initialize();
    await run.agent.request("session/new" as never, { cwd: tempDir("tandem-cwd-"), mcpServers: [] } as never);
    expect(await run.close()).toBe(0);
    const recs = records(file).filter((r) => r.area === "acp");
    expect(recs.filter((r) => r.msg === "request in").map((r) => r.method)).toEqual([
      "initialize",
      "session/new",
    ]);
    expect(recs.filter((r) => r.msg === "response out")).toHaveLength(2);
  });

  it("tandem mcp-server: the host's requests and Tandem's answers", async () => {
    const file = logFile();
    const host = await startHost(say("hi"), undefined, { args: ["--log-file", file] });
    const tools = await host.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("tandem");
    await closeHosts();
    const recs = records(file).filter((r) => r.area === "mcp-server");
    expect(recs.filter((r) => r.msg === "request in").map((r) => r.method)).toEqual([
      "initialize",
      "tools/list",
    ]);
    expect(recs.filter((r) => r.msg === "response out").map((r) => r.id)).toEqual([0, 1]);
  });

  it("an MCP server a thread starts: Tandem's frames to it and its answers, whole at trace", async () => {
    mock = await startMockProcess(say("done"));
    const home = tempDir("tandem-log-home-");
    writeFileSync(
      join(home, "config.toml"),
      `[mcp_servers.odd]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(ODD)}, "malformed"]\n`,
    );
    const file = logFile();
    const r = await runTandem(["exec", "-s", "danger-full-access", "--log-file", file, "go"], {
      env: { TANDEM_HOME: home, TANDEM_LOG: "trace", OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url },
      killAfterMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const frames = records(file).filter((x) => x.area === "mcp");
    expect(frames.every((x) => x.via === "odd")).toBe(true);
    const out = frames.filter((x) => x.dir === "out").map((x) => x.frame.method);
    expect(out.slice(0, 3)).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    const answers = frames.filter((x) => x.dir === "in");
    expect(answers[0].frame.result.serverInfo).toBeDefined();
    expect(answers[1].frame.result.tools.length).toBeGreaterThan(0);
  });
});
