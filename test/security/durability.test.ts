/**
 * Durability escapes (README "Sandbox and approvals"), through real `./bin/tandem` processes, real SQLite
 * and the scripted model over real HTTP:
 * - a sibling call that already finished when the process died is not relabelled `aborted`
 *   (the model would otherwise run its side effect twice);
 * - one thread has one driving process: a second `exec resume` of the same id is refused with a
 *   message naming the holder and writes nothing; a dead holder's lease is taken over.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { processStdio } from "../helpers/app-server-client.js";
import { BIN, jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const ASK = {
  type: "function_call",
  name: "request_user_input",
  call_id: "ask_1",
  arguments: {
    questions: [
      {
        id: "color",
        header: "Color",
        question: "Pick a colour",
        options: [
          { label: "Blue (Recommended)", description: "calm" },
          { label: "Red", description: "bold" },
        ],
      },
    ],
  },
};

const RUN = {
  type: "function_call",
  name: "exec_command",
  call_id: "run_1",
  arguments: { cmd: "echo RAN >> ran.log; echo RAN_OUT" },
};

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

function outputText(item: any): string {
  return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
}

describe("crash recovery of finished siblings", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  // fails if finished outputs are recorded only in call order (the sibling waits behind the
  // pending question and dies with the process, so resume labels it `aborted`), or if the
  // request builder does not restore call order for outputs stored out of order.
  it("kill -9 with a question pending after a sibling ran: resume keeps the sibling's real output", async () => {
    mock = await startMockProcess({
      steps: [
        { output: [ASK, RUN] },
        {
          expect: { input_contains: ['"selected":["Red"]', "RAN_OUT"] },
          output: [{ type: "message", text: "Red it is." }],
        },
      ],
    });
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-cwd-");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const app = processStdio(env);
    let threadId: string;
    try {
      await app.client.initialize();
      const started = await app.client.request("thread/start", { cwd });
      threadId = started.thread.id;
      await app.client.request("turn/start", {
        threadId,
        input: [{ type: "text", text: "pick a colour and run it" }],
        collaborationMode: { mode: "plan", settings: { model: "gpt-5.2-codex" } },
      });
      await app.client.serverRequest("item/tool/requestUserInput", (p) => p.threadId === threadId);
      expect(await until(() => existsSync(join(cwd, "ran.log")), 15_000)).toBe(true);
      // The sibling's completion is what a crash must not lose; give the old code its chance too.
      await app.client
        .notification("item/completed", (p) => p.item?.id === "run_1", 5_000)
        .catch(() => undefined);
    } finally {
      await app.server.stop("SIGKILL");
    }
    expect(app.server.proc.signalCode).toBe("SIGKILL");

    const done = await runTandem(["exec", "resume", threadId, "--json", "--answer", "color=Red"], { env });
    expect(done.code, done.stderr).toBe(0);

    // The side effect happened exactly once: nothing ran it again after resume.
    expect(readFileSync(join(cwd, "ran.log"), "utf8")).toBe("RAN\n");

    const exported = await runTandem(["export", threadId], { env });
    expect(exported.code).toBe(0);
    const items = jsonLines(exported.stdout);
    const calls = items.filter((i) => i.type === "function_call");
    const outputs = items.filter((i) => i.type === "function_call_output");
    expect(calls.map((c) => c.call_id)).toEqual(["ask_1", "run_1"]);
    // Every call paired exactly once, each output after its call.
    for (const c of calls) {
      const mine = outputs.filter((o) => o.call_id === c.call_id);
      expect(mine, c.call_id).toHaveLength(1);
      expect(items.indexOf(mine[0])).toBeGreaterThan(items.indexOf(c));
    }
    const runOut = outputText(outputs.find((o) => o.call_id === "run_1"));
    expect(runOut).not.toBe("aborted");
    expect(runOut).toContain("RAN_OUT");
    expect(runOut).toMatch(/exited with code 0/);

    // The request after resume carries both outputs, in call order, each after its call.
    const requests = jsonLines(readFileSync(mock.log, "utf8"));
    expect(requests).toHaveLength(2);
    const input: any[] = requests[1].input;
    const kinds = input
      .filter((i) => i.type === "function_call" || i.type === "function_call_output")
      .map((i) => `${i.type === "function_call" ? "call" : "out"}:${i.call_id}`);
    expect(kinds).toEqual(["call:ask_1", "call:run_1", "out:ask_1", "out:run_1"]);
    expect(
      outputText(input.find((i) => i.call_id === "run_1" && i.type === "function_call_output")),
    ).toContain("RAN_OUT");
  });
});

/** Starts `tandem exec resume <id> --json <prompt>`; resolves `started` once its turn began. */
function startResume(threadId: string, prompt: string, env: Record<string, string>) {
  const fullEnv: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...env };
  delete fullEnv.CODEX_API_KEY;
  const proc: ChildProcess = spawn(BIN, ["exec", "resume", threadId, "--json", prompt], {
    env: fullEnv,
    cwd: tempDir("tandem-run-cwd-"),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr!.on("data", (d) => {
    stderr += d;
  });
  const started = new Promise<void>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`no turn.started; stderr: ${stderr}`)), 20_000);
    createInterface({ input: proc.stdout! }).on("line", (l) => {
      if (l.includes('"turn.started"')) {
        clearTimeout(t);
        res();
      }
    });
  });
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return { proc, started, exited, stderr: () => stderr };
}

describe("one driver per thread", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  const message = (text: string) => ({ output: [{ type: "message", text }] });

  async function newThread(env: Record<string, string>): Promise<string> {
    const first = await runTandem(["exec", "--json", "first"], { env });
    expect(first.code, first.stderr).toBe(0);
    return jsonLines(first.stdout).find((l) => l.type === "thread.started").thread_id;
  }

  // fails if opening a thread for driving takes no lease (the second process runs its own turn
  // interleaved with the first), or if the refusal happens after something was written.
  it("a second exec resume of a thread being driven fails fast naming the holder and writes nothing", async () => {
    mock = await startMockProcess({
      steps: [
        message("one"),
        { delay_ms: 6000, ...message("slow two") },
        { expect: { input_contains: ["slow two", "four"] }, ...message("four done") },
      ],
    });
    const env = { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const id = await newThread(env);
    const before = await runTandem(["export", id], { env });

    const a = startResume(id, "two", env);
    await a.started;
    const b = await runTandem(["exec", "resume", id, "--json", "three"], { env });
    expect(b.code).not.toBe(0);
    expect(b.code).not.toBeNull();
    expect(b.stderr).toMatch(
      new RegExp(
        `thread ${id} is in use by pid ${a.proc.pid} on host ${hostname()} since \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    expect(b.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(a.proc.exitCode).toBeNull(); // failed fast: the holder is still running
    // The refused process did not touch the thread record either (it would reset the status).
    const listed = jsonLines((await runTandem(["threads", "--json"], { env })).stdout);
    expect(listed.find((t) => t.id === id)?.status).toBe("running");
    expect(await a.exited, a.stderr()).toBe(0);

    // Nothing of the second process reached the store or the model.
    const after = await runTandem(["export", id], { env });
    const items = jsonLines(after.stdout);
    const texts = items.map((i) => JSON.stringify(i));
    expect(texts.some((t) => t.includes("three"))).toBe(false);
    expect(texts.filter((t) => t.includes('"two"')).length).toBe(1);
    expect(items.length).toBeGreaterThan(jsonLines(before.stdout).length);
    expect(jsonLines(readFileSync(mock.log, "utf8"))).toHaveLength(2);

    // Reads need no lease, and once the holder is gone a resume drives the thread again.
    const c = await runTandem(["exec", "resume", id, "--json", "four"], { env });
    expect(c.code, c.stderr).toBe(0);
    expect(jsonLines(readFileSync(mock.log, "utf8"))).toHaveLength(3);
  });

  // fails if a lease whose holder died (kill -9, never released) blocks the thread forever, or if
  // a lease of a live process is taken over.
  it("after kill -9 of the holder, resume takes over the stale lease", async () => {
    mock = await startMockProcess({
      steps: [
        message("one"),
        { fault: { type: "hang" } },
        { expect: { input_contains: ["three"] }, ...message("three done") },
      ],
    });
    const env = { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const id = await newThread(env);
    const a = startResume(id, "two", env);
    await a.started;
    // While the holder lives the lease holds.
    const refused = await runTandem(["exec", "resume", id, "--json", "never"], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`in use by pid ${a.proc.pid}`);
    a.proc.kill("SIGKILL");
    await a.exited;
    expect(a.proc.signalCode).toBe("SIGKILL");

    const c = await runTandem(["exec", "resume", id, "--json", "three"], { env });
    expect(c.code, c.stderr).toBe(0);
    const events = jsonLines(c.stdout);
    expect(events.at(-1).type).toBe("turn.completed");
    const threads = await runTandem(["threads", "--json"], { env });
    expect(threads.code).toBe(0);
  });
});
