/**
 * README "Sandbox and approvals": `tandem app-server --listen ws://…` must not let anyone who can reach the port
 * drive the agent. Real server processes (./bin/tandem), the scripted model as a real process, the
 * `ws` package as the client. The attack: a client without the token starts a `danger-full-access`
 * thread whose scripted model runs `touch <marker>`; nothing may reach the model or run.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Script } from "../../src/mock-model/index.js";
import { serverEnv } from "../helpers/app-server.js";
import { type ServerProcess, spawnAppServer, wsClient, wsServer } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

/** The model runs `touch marker` (the side effect an intruder wants), then says done. */
function touchScript(marker: string): Script {
  return {
    steps: [
      { output: [{ type: "function_call", name: "exec_command", arguments: { cmd: `touch ${marker}` } }] },
      { output: [{ type: "message", text: "done" }] },
    ],
  };
}

/** HTTP status of a websocket upgrade: 101 when it opened, else the refusal's status. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise<number>((res) => {
    const socket = new WebSocket(url, { headers });
    socket.once("unexpected-response", (_req, r) => {
      r.resume();
      res(r.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("open", () => {
      res(101);
      socket.terminate();
    });
    socket.once("error", () => res(0));
  });
}

/** Waits for a server process to exit by itself; one still running after 10 s is stopped (code null). */
async function exitOf(p: ServerProcess): Promise<{ code: number | null; stderr: string }> {
  const exited = new Promise<number | null>((r) => p.proc.once("exit", (code) => r(code)));
  const late = new Promise<null>((r) => setTimeout(() => r(null), 10_000).unref());
  const code = p.proc.exitCode ?? (await Promise.race([exited, late]));
  if (code === null) await p.stop("SIGKILL");
  return { code, stderr: p.stderr() };
}

/** Lines the scripted model logged (one per request it received). */
function modelRequestCount(mock: MockProcess): number {
  if (!existsSync(mock.log)) return 0;
  return readFileSync(mock.log, "utf8")
    .split("\n")
    .filter((l) => l.trim()).length;
}

/** A full-access thread that runs the script to the end; returns the completed turn. */
async function runFullAccessTurn(client: Awaited<ReturnType<typeof wsClient>>["client"], cwd: string) {
  await client.initialize();
  const started = await client.request("thread/start", {
    cwd,
    sandbox: "danger-full-access",
    approvalPolicy: "never",
  });
  const threadId = started.thread.id;
  await client.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
  const done = await client.notification("turn/completed", (p) => p.threadId === threadId, 30_000);
  return done.turn;
}

describe("app-server websocket authentication", () => {
  let mock: MockProcess | undefined;
  let server: ServerProcess | undefined;
  const sockets: Array<{ close(): Promise<void> }> = [];

  afterEach(async () => {
    for (const s of sockets.splice(0)) await s.close();
    if (server) await server.stop();
    server = undefined;
    await mock?.stop();
    mock = undefined;
  });

  async function start(args: string[] = [], token?: string) {
    const dir = tempDir("tandem-wsauth-");
    const marker = join(dir, "pwned");
    mock = await startMockProcess(touchScript(marker));
    const started = await wsServer(serverEnv(mock), args, { token });
    server = started.server;
    if (!started.token) throw new Error(`no token: ${started.server.stderr()}`);
    return { ...started, token: started.token, marker, cwd: dir };
  }

  // fails if the upgrade is accepted without an Authorization header (no auth at all).
  it("no token: the upgrade is refused with 401 and nothing reaches the model", async () => {
    const { url, marker, token } = await start();
    expect(await upgradeStatus(url)).toBe(401);
    await expect(wsClient(url, "intruder", { token: null })).rejects.toThrow(/401/);
    expect(modelRequestCount(mock!)).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(server!.stderr()).toMatch(/refused a websocket: missing bearer token/);
    // The generated token was printed once (on purpose) and never logged again.
    expect(server!.stderr().split(token).length - 1).toBe(1);
  });

  // fails if any token is accepted, if only a prefix is compared, or if the given token is logged.
  it("wrong token (same length, longer, other scheme): 401, and the wrong token is not logged", async () => {
    const { url, token, marker } = await start();
    const sameLength = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    expect(await upgradeStatus(url, { Authorization: `Bearer ${sameLength}` })).toBe(401);
    expect(await upgradeStatus(url, { Authorization: `Bearer ${token}x` })).toBe(401);
    expect(await upgradeStatus(url, { Authorization: `Bearer ${token.slice(0, 10)}` })).toBe(401);
    expect(await upgradeStatus(url, { Authorization: `Basic ${token}` })).toBe(401);
    expect(await upgradeStatus(url, { Authorization: "Bearer" })).toBe(401);
    expect(modelRequestCount(mock!)).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(server!.stderr()).toMatch(/refused a websocket: wrong bearer token/);
    expect(server!.stderr()).not.toContain(sameLength);
  });

  // fails if the right bearer token does not open the socket (auth that locks everyone out), or
  // if the generated token is not printed where the contract says.
  it("generated token: printed on stderr, and with it a full-access thread runs", async () => {
    const { url, token, marker, cwd } = await start();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const c = await wsClient(url, "owner", { token });
    sockets.push(c);
    const turn = await runFullAccessTurn(c.client, cwd);
    expect(turn.status).toBe("completed");
    expect(existsSync(marker)).toBe(true);
    expect(c.client.violations).toEqual([]);
  });

  // fails if --ws-token-file is ignored (a generated token would be used instead), if the file's
  // trailing newline is kept, or if a token the user chose is echoed anywhere.
  it("--ws-token-file: that token works, it is never printed, and argv does not carry it", async () => {
    const token = "file-token-0123456789abcdef";
    const file = join(tempDir("tandem-wstoken-"), "token");
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const { url, marker, cwd } = await start(["--ws-token-file", file], token);
    expect(readFileSync(`/proc/${server!.proc.pid}/cmdline`, "utf8")).not.toContain(token);
    expect(await upgradeStatus(url)).toBe(401);
    const c = await wsClient(url, "owner", { token });
    sockets.push(c);
    expect((await runFullAccessTurn(c.client, cwd)).status).toBe("completed");
    expect(existsSync(marker)).toBe(true);
    expect(server!.stderr()).not.toContain(token);
    expect(server!.stderr()).not.toMatch(/app-server token:/);
  });

  // fails if --ws-token is ignored or echoed to the logs.
  it("--ws-token: that token works and is never printed", async () => {
    const token = "argv-token-0123456789abcdef";
    const { url } = await start(["--ws-token", token], token);
    expect(await upgradeStatus(url, { Authorization: "Bearer argv-token-0123456789abcdeX" })).toBe(401);
    expect(await upgradeStatus(url, { Authorization: `bearer ${token}` })).toBe(101);
    const c = await wsClient(url, "owner", { token });
    sockets.push(c);
    await c.client.initialize();
    expect(server!.stderr()).not.toContain(token);
  });

  // fails if a valid token lets a browser page (Origin header) in: the token could be phished or
  // a page on another origin could ride a token it was given.
  it("a browser origin is refused even with the right token", async () => {
    const { url, token } = await start();
    expect(
      await upgradeStatus(url, { Authorization: `Bearer ${token}`, Origin: "https://evil.example" }),
    ).toBe(403);
    expect(modelRequestCount(mock!)).toBe(0);
  });

  // fails if a non-loopback listen without an explicit token only warns (or generates a token
  // that then travels in clear text over the network) instead of refusing to start.
  it("non-loopback --listen without --ws-token/--ws-token-file exits 2 before listening", async () => {
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
    const hosts = ["ws://0.0.0.0:0", "ws://[::]:0", ...(lan ? [`ws://${lan}:0`] : [])];
    const env = { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "test-key" };
    for (const listen of hosts) {
      const r = await exitOf(spawnAppServer(env, ["--listen", listen]));
      expect(r.code, listen).toBe(2);
      expect(r.stderr).toMatch(/not loopback.*--ws-token-file/s);
      expect(r.stderr).not.toMatch(/listening on/);
    }
    // With a token file it starts (and warns that ws:// is clear text).
    const file = join(tempDir("tandem-wstoken-"), "token");
    writeFileSync(file, "lan-token-0123456789abcdef\n", { mode: 0o600 });
    const srv = spawnAppServer(env, ["--listen", "ws://0.0.0.0:0", "--ws-token-file", file]);
    server = srv;
    await new Promise<void>((res, rej) => {
      const t = setTimeout(() => rej(new Error(srv.stderr())), 15_000);
      srv.proc.stderr!.on("data", () => {
        if (/listening on/.test(srv.stderr())) {
          clearTimeout(t);
          res();
        }
      });
    });
    expect(srv.stderr()).toMatch(/warning: listening on 0\.0\.0\.0/);
  });

  // fails if token options are silently accepted where they protect nothing, or a bad token source
  // starts a server anyway.
  it("usage errors: token with stdio, both options, empty or missing file, short token", async () => {
    const env = { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "test-key" };
    const dir = tempDir("tandem-wstoken-");
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n");
    const cases: Array<[string[], RegExp]> = [
      [["--ws-token", "stdio-token-0123456789"], /only with --listen ws:\/\//],
      [["--listen", "stdio://", "--ws-token-file", empty], /only with --listen ws:\/\//],
      [["--listen", "ws://127.0.0.1:0", "--ws-token", "aaaaaaaaaaaa", "--ws-token-file", empty], /not both/],
      [["--listen", "ws://127.0.0.1:0", "--ws-token-file", empty], /is empty/],
      [["--listen", "ws://127.0.0.1:0", "--ws-token-file", join(dir, "missing")], /cannot read/],
      [["--listen", "ws://127.0.0.1:0", "--ws-token", "short"], /at least 16 characters/],
    ];
    for (const [args, message] of cases) {
      const r = await exitOf(spawnAppServer(env, args));
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
