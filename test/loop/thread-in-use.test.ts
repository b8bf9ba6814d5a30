/**
 * A thread driven by another process (its lease, README "Sandbox and approvals") is refused by every surface
 * with an error a client can act on: HTTP 409 `thread_in_use`, app-server error -32005, both
 * naming the holder's pid. Real processes: `tandem exec resume` holds the lease while its model
 * hangs; `tandem serve`'s routes (in-process) and `tandem app-server` (a process) try to drive it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { processStdio } from "../helpers/app-server-client.js";
import { BIN, jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { type Served, serve } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";

describe("a thread another process drives", () => {
  let mock: MockProcess | undefined;
  let holder: ChildProcess | undefined;
  let sv: Served | undefined;
  afterEach(async () => {
    holder?.kill("SIGKILL");
    holder = undefined;
    await sv?.close();
    sv = undefined;
    await mock?.stop();
    mock = undefined;
  });

  /** A stored thread whose lease a live `tandem exec resume` holds (its model hangs). */
  async function heldThread() {
    mock = await startMockProcess({
      steps: [{ output: [{ type: "message", text: "first" }] }, { fault: { type: "hang" } }],
    });
    const home = tempDir("tandem-inuse-home-");
    sandboxFallback(home);
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const first = await runTandem(["exec", "--json", "hello"], { env });
    expect(first.code).toBe(0);
    const threadId = jsonLines(first.stdout).find((e) => e.type === "thread.started").thread_id as string;
    const proc = spawn(BIN, ["exec", "resume", threadId, "--json", "again"], {
      env: { ...process.env, ...env },
      cwd: tempDir("tandem-inuse-cwd-"),
      stdio: ["ignore", "pipe", "pipe"],
    });
    holder = proc;
    // The holder has the lease once its turn started.
    await new Promise<void>((res, rej) => {
      let out = "";
      proc.stdout!.on("data", (d) => {
        out += d;
        if (out.includes('"turn.started"')) res();
      });
      proc.once("exit", (c) => rej(new Error(`holder exited ${c}`)));
    });
    return { home, env, threadId, pid: proc.pid! };
  }

  // Fails if the HTTP API answers a lease refusal with 500 (or drives the thread anyway).
  it("HTTP: a turn on it is 409 thread_in_use naming the holder", async () => {
    const { home, threadId, pid } = await heldThread();
    sv = await serve({ script: { steps: [] }, home });
    const r = await sv.call("POST", `/thread/${threadId}/turn`, { text: "drive it" });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ error: { code: "thread_in_use" } });
    expect(JSON.stringify(r.json)).toContain(`pid ${pid}`);
  });

  // Fails if the app-server reports a lease refusal as ThreadNotFound or an internal error.
  it("app-server: thread/resume and turn/start fail with ThreadInUse (-32005) naming the holder", async () => {
    const { env, threadId, pid } = await heldThread();
    const s = processStdio(env);
    try {
      await s.client.request("initialize", { clientInfo: { name: "t", title: null, version: "1" } });
      s.client.notify("initialized");
      const resumed = await s.client.call("thread/resume", { threadId });
      expect(resumed.error).toMatchObject({ code: -32005 });
      expect(resumed.error.message).toContain(`pid ${pid}`);
      const turn = await s.client.call("turn/start", {
        threadId,
        input: [{ type: "text", text: "drive it", text_elements: [] }],
      });
      expect(turn.error).toMatchObject({ code: -32005 });
      expect(s.client.violations).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
