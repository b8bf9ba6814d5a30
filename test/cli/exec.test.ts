/**
 * `tandem exec` as a real process against `tandem mock-model` as a real process (S2):
 * JSONL shape, human output, exit codes, threads/export, resume, kill -9 durability.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { openStore } from "../../src/store/index.js";
import { BIN, jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";
import { waitUntil } from "../helpers/wait.js";

/** Pids of live processes whose command line contains `needle` (read from /proc). */
function procsMatching(needle: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ");
      const state = readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmd.includes(needle) && state !== "Z") out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

const PROMPT = "请创建 README.md，内容如下：\n\n# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。";

describe("tandem exec (processes)", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  const envFor = (m: MockProcess, home: string) => ({
    TANDEM_HOME: home,
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: m.url,
  });

  it("runs the seed task with --json: Codex-exec JSONL, README written, requests paired", async () => {
    mock = await startMockProcess(Scripts.readmeDemo());
    const home = tempDir();
    const cwd = tempDir();
    const r = await runTandem(["exec", "--json", "--cd", cwd, "--skip-git-repo-check", PROMPT], {
      env: envFor(mock, home),
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events[0].type).toBe("thread.started");
    expect(events[1]).toEqual({ type: "turn.started" });
    const completed = events.filter((e) => e.type === "item.completed");
    const commands = completed.filter((e) => e.item.type === "command_execution");
    expect(commands).toHaveLength(3);
    expect(commands[0].item).toMatchObject({
      command: "printf 'README absent\\n'",
      exit_code: 0,
      status: "completed",
    });
    expect(commands[2].item.aggregated_output).toContain("# Codex Demo");
    const message = completed.find((e) => e.item.type === "agent_message");
    expect(message.item.text).toBe("README.md 已创建并完成验证，内容符合你给出的标题和中文说明。");
    const last = events[events.length - 1];
    expect(last.type).toBe("turn.completed");
    expect(Object.keys(last.usage).sort()).toEqual([
      "cached_input_tokens",
      "input_tokens",
      "output_tokens",
      "reasoning_output_tokens",
    ]);
    expect(last.usage.input_tokens).toBeGreaterThan(0);
    expect(readFileSync(join(cwd, "README.md"), "utf8")).toBe(
      "# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。\n",
    );
    // The scripted model's log: 4 requests, each pairing every call it carries.
    const bodies = jsonLines(readFileSync(mock.log, "utf8"));
    expect(bodies).toHaveLength(4);
    const lastInput = bodies[3].input;
    const calls = lastInput.filter((i: any) => i.type === "function_call").map((i: any) => i.call_id);
    const outs = lastInput.filter((i: any) => i.type === "function_call_output").map((i: any) => i.call_id);
    expect(calls).toEqual(["call_001", "call_002", "call_003"]);
    expect(outs).toEqual(calls);

    // threads / export see the same thread.
    const threadId = events[0].thread_id;
    const list = await runTandem(["threads"], { env: { TANDEM_HOME: home } });
    // Piped: no header row, each line starts with a thread's id (scripts take the first word).
    expect(list.stdout.split(/\s/)[0]).toBe(threadId);
    expect(list.stdout).toContain("请创建 README.md");
    const exported = await runTandem(["export", threadId], { env: { TANDEM_HOME: home } });
    const items = jsonLines(exported.stdout);
    expect(items.filter((i) => i.type === "function_call_output")).toHaveLength(3);
  });

  it("streams human output and reads the prompt from stdin", async () => {
    mock = await startMockProcess({
      steps: [{ output: [{ type: "message", text: "Hello from the script." }] }],
    });
    const r = await runTandem(["exec"], { env: envFor(mock, tempDir()), input: "say hello\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Hello from the script.\n");
    const body = jsonLines(readFileSync(mock.log, "utf8"))[0];
    expect(JSON.stringify(body.input)).toContain("say hello");
  });

  it("exit codes: 2 on usage errors, 1 on failed turns, and no key fails fast naming the variable", async () => {
    const usage = await runTandem(["exec", "--mode", "weird", "x"], { env: { TANDEM_HOME: tempDir() } });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--mode must be plan or default");
    const unknown = await runTandem(["exec", "--frobnicate", "x"], { env: { TANDEM_HOME: tempDir() } });
    expect(unknown.code).toBe(2);
    const nokey = await runTandem(["exec", "hello"], { env: { TANDEM_HOME: tempDir() } });
    expect(nokey.code).toBe(1);
    expect(nokey.stderr).toContain("OPENAI_API_KEY");
    expect(nokey.stderr).toContain("tandem demo");
    mock = await startMockProcess({
      steps: [{ fault: { type: "http", status: 400, message: "bad request from server" } }],
    });
    const failed = await runTandem(["exec", "--json", "hi"], { env: envFor(mock, tempDir()) });
    expect(failed.code).toBe(1);
    const events = jsonLines(failed.stdout);
    expect(events[events.length - 1]).toEqual({
      type: "turn.failed",
      error: { message: "bad request from server" },
    });
  });

  it("accepts the Codex SDK flags and --config overrides; warns on unknown keys", async () => {
    mock = await startMockProcess({ steps: [{ output: [{ type: "message", text: "ok" }] }] });
    const home = tempDir();
    const schemaFile = join(tempDir(), "schema.json");
    const schema = {
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
      additionalProperties: false,
    };
    writeFileSync(schemaFile, JSON.stringify(schema));
    const imageFile = join(tempDir(), "pixel.png");
    writeFileSync(
      imageFile,
      Buffer.from(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
        "base64",
      ),
    );
    const r = await runTandem(
      [
        "exec",
        "--experimental-json",
        "--config",
        `openai_base_url="${mock.url}"`,
        "--model",
        "gpt-test",
        "--sandbox",
        "workspace-write",
        "--cd",
        tempDir(),
        "--add-dir",
        tempDir(),
        "--skip-git-repo-check",
        "--config",
        'model_reasoning_effort="high"',
        "--config",
        'approval_policy="never"',
        "--config",
        'web_search="disabled"',
        "--output-schema",
        schemaFile,
        "--image",
        imageFile,
        "hi",
      ],
      { env: { TANDEM_HOME: home, OPENAI_API_KEY: "k" } },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('unknown config key "web_search" ignored');
    const body = jsonLines(readFileSync(mock.log, "utf8"))[0];
    expect(body.model).toBe("gpt-test");
    expect(body.reasoning).toEqual({ effort: "high" });
    expect(body.text).toEqual({ format: { type: "json_schema", name: "output", strict: true, schema } });
    const user = body.input.find(
      (i: any) => i.role === "user" && i.content.some((c: any) => c.type === "input_image"),
    );
    expect(user.content[1].image_url).toMatch(/^data:image\/png;base64,iVBOR/);
  });

  it("kill -9 mid-turn, then resume: the thread loads with every call paired", async () => {
    mock = await startMockProcess({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: "echo started; sleep 30" },
              call_id: "long_1",
            },
          ],
        },
        {
          expect: { input_contains: ["long_1", "aborted", "continue please"] },
          output: [{ type: "message", text: "resumed fine" }],
        },
      ],
    });
    const home = tempDir();
    sandboxFallback(home);
    const env = { ...process.env, ...envFor(mock, home) };
    // The model's command runs in a temp workspace, never in the repository.
    const child = spawn(BIN, ["exec", "--json", "start the long thing"], {
      env,
      cwd: tempDir("tandem-exec-cwd-"),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const threadId = await new Promise<string>((res) => {
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes('"command_execution"'))
          res(jsonLines(out.split("\n").slice(0, -1).join("\n"))[0].thread_id);
      });
    });
    // Killed once the call is on disk (polled, not a fixed 200 ms). Fails if a started call is
    // not stored before its command runs: the kill finds no unpaired call to resume.
    const store = openStore(join(home, "state.db"));
    const stored = () => store.loadItems(threadId).map((s) => s.item);
    await waitUntil(
      () => stored().some((i) => i.type === "function_call" && i.call_id === "long_1"),
      "the call to be stored",
    );
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const before = stored();
    store.close();
    expect(before.some((i) => i.type === "function_call" && i.call_id === "long_1")).toBe(true);
    expect(before.some((i) => i.type === "function_call_output")).toBe(false);

    const r = await runTandem(["exec", "resume", threadId, "--json", "continue please"], {
      env: envFor(mock, home),
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events.find((e) => e.type === "item.completed" && e.item.type === "agent_message").item.text).toBe(
      "resumed fine",
    );
    const after = openStore(join(home, "state.db"));
    const items = after.loadItems(threadId).map((s) => s.item);
    after.close();
    const outs = items.filter((i) => i.type === "function_call_output");
    expect(outs).toEqual([{ type: "function_call_output", call_id: "long_1", output: "aborted" }]);
  });
});

describe("tandem exec signals", () => {
  // SIGINT goes once the command runs (polled in /proc, not a fixed 200 ms); then the command
  // must be gone. Fails if SIGINT exits without killing the command's tree (it outlives tandem).
  // A signal shuts the process down like a crash would be recovered (README "Stopping Tandem"):
  // nothing more is written, and the next process records the cut-off call as aborted.
  it("SIGINT ends the run: the command's tree is killed, exit 130, the call left for the next run", async () => {
    const marker = `41.${process.pid}`;
    const mock = await startMockProcess({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: `sleep ${marker}` },
              call_id: "s1",
            },
          ],
        },
      ],
    });
    try {
      const home = tempDir();
      sandboxFallback(home);
      const child = spawn(BIN, ["exec", "--json", "go"], {
        env: { ...process.env, TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url },
        cwd: tempDir("tandem-exec-cwd-"), // the model's command never runs in the repository
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      await new Promise<void>((res) =>
        child.stdout.on("data", (d) => {
          out += d;
          if (out.includes('"command_execution"')) res();
        }),
      );
      await waitUntil(() => procsMatching(`sleep ${marker}`).length > 0, "the command to start");
      child.kill("SIGINT");
      const code = await new Promise<number | null>((r) => child.once("exit", r));
      expect(code).toBe(130);
      await waitUntil(() => procsMatching(`sleep ${marker}`).length === 0, "the command's tree to die").catch(
        () => {},
      );
      expect(procsMatching(`sleep ${marker}`)).toEqual([]);
      const events = jsonLines(out);
      const store = openStore(join(home, "state.db"));
      const items = store.loadItems(events[0].thread_id).map((s) => s.item);
      store.close();
      expect(items.some((i) => i.type === "function_call" && i.call_id === "s1")).toBe(true);
      expect(items.filter((i) => i.type === "function_call_output")).toEqual([]);
    } finally {
      await mock.stop();
    }
  });
});
