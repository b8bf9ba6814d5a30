/**
 * Durability of questions (requirements Q11, Q12): a pending question survives kill -9 of the
 * process that asked it; `tandem exec --questions defer` exits 3 and `exec resume --answer`
 * completes the task. Real processes, real SQLite, the scripted model over real HTTP.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { createRuntime } from "../../src/runtime/create.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";

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

describe("durable questions", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  it("kill -9 while a question is pending, restart, resume, answer: the turn completes", async () => {
    mock = await startMockProcess({
      steps: [
        { output: [ASK] },
        {
          expect: { input_contains: ['"selected":["Red"]', "ask_1"] },
          output: [{ type: "message", text: "Red it is." }],
        },
      ],
    });
    const home = tempDir();
    const env = {
      ...process.env,
      TANDEM_HOME: home,
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: mock.url,
      WORK_DIR: tempDir(),
    };
    // Run by node itself with tsx as a loader (`--import tsx`; the tsx CLI would run it in a child
    // of its own) so that SIGKILL hits the very process that holds the question. Nothing is
    // written into the repository (no bundle in test-artifacts/).
    const child = spawn(
      process.execPath,
      ["--import", "tsx", resolve(import.meta.dirname, "../fixtures/ask-and-wait.ts")],
      {
        env,
        cwd: resolve(import.meta.dirname, "../.."), // resolves `tsx`; the thread runs in WORK_DIR
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const first = await new Promise<{ thread_id: string; request_id: string }>((res) => {
      createInterface({ input: child.stdout! }).once("line", (l) => res(JSON.parse(l)));
    });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(child.signalCode).toBe("SIGKILL");

    const { runtime } = createRuntime({
      home,
      overrides: [`openai_base_url="${mock.url}"`],
      env: { OPENAI_API_KEY: "k" },
    });
    try {
      expect(runtime.questions.stored(first.thread_id).map((q) => q.request_id)).toEqual([first.request_id]);
      const seen: string[] = [];
      runtime.subscribe((s) => seen.push(s.event.type));
      const thread = runtime.threads.open(first.thread_id);
      expect(thread.active).toBeDefined();
      // The question is re-asked under the same request id; replies are idempotent by it.
      const pending = runtime.questions.list({ threadId: thread.id });
      expect(pending.map((p) => p.request_id)).toEqual([first.request_id]);
      expect(seen).toContain("question.requested");
      const reply = { answers: { color: { selected: ["Red"] } } };
      expect(runtime.questions.reply(thread.id, first.request_id, reply, { kind: "test" }).ok).toBe(true);
      expect(runtime.questions.reply(thread.id, first.request_id, reply, { kind: "test" })).toMatchObject({
        ok: true,
        duplicate: true,
      });
      const outcome = await thread.active!.done;
      expect(outcome.status).toBe("completed");
      expect(outcome.lastMessage).toBe("Red it is.");
      const items = runtime.threads.history(thread.id).map((s) => s.item);
      const outs = items.filter((i) => i.type === "function_call_output");
      expect(outs).toHaveLength(1);
      expect(runtime.questions.stored(thread.id)).toEqual([]);
    } finally {
      await runtime.shutdown();
    }
  });

  it("exec --questions defer exits 3 with the question; exec resume --answer completes the task", async () => {
    mock = await startMockProcess(Scripts.questionDemo());
    const home = tempDir();
    const cwd = tempDir();
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const first = await runTandem(
      ["exec", "--json", "--mode", "plan", "--questions", "defer", "--cd", cwd, "set up the project"],
      { env },
    );
    expect(first.code).toBe(3);
    const lines = jsonLines(first.stdout);
    const q = lines.find((l) => l.type === "question.requested");
    expect(q.questions.map((x: any) => x.id)).toEqual(["stack", "name"]);
    // The stream ends with a terminal event the Codex SDK reads: input is needed, naming the request.
    expect(lines.some((l) => l.type === "turn.completed")).toBe(false);
    expect(lines.at(-1)).toMatchObject({
      type: "turn.failed",
      error: { message: expect.stringContaining(`input needed: question request ${q.request_id}`) },
    });

    // Human mode prints the question and how to answer it; still exit 3 while unanswered.
    const again = await runTandem(["exec", "resume", q.thread_id, "--questions", "defer"], { env });
    expect(again.code, again.stderr + again.stdout).toBe(3);
    expect(again.stderr).toContain("Which stack");
    expect(again.stderr).toContain(`tandem exec resume ${q.thread_id}`);

    const bad = await runTandem(["exec", "resume", q.thread_id, "--answer", "stack=7"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/stack/);

    const done = await runTandem(
      [
        "exec",
        "resume",
        q.thread_id,
        "--json",
        "--answer",
        "stack=1 -- keep it short",
        "--answer",
        "name=tandem-demo",
      ],
      { env },
    );
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const events = jsonLines(done.stdout);
    expect(events[events.length - 1].type).toBe("turn.completed");
    const log = jsonLines(readFileSync(mock.log, "utf8"));
    const answerOut = log[1].input.find((i: any) => i.type === "function_call_output");
    const result = JSON.parse(answerOut.output);
    expect(result.status).toBe("answered");
    expect(result.answers.stack).toEqual({ selected: ["TypeScript (Recommended)"], note: "keep it short" });
    expect(result.answers.name).toEqual({ selected: [], other: "tandem-demo" });
    expect(readFileSync(join(cwd, "README.md"), "utf8").length).toBeGreaterThan(0);
  });

  it("exec without --questions never offers the tool; a model that calls it anyway is told no one can answer", async () => {
    mock = await startMockProcess({
      steps: [{ output: [ASK] }, { output: [{ type: "message", text: "assumed blue" }] }],
    });
    const r = await runTandem(["exec", "--mode", "plan", "pick"], {
      env: { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url },
    });
    expect(r.code).toBe(0);
    const log = jsonLines(readFileSync(mock.log, "utf8"));
    expect(log[0].tools.map((t: any) => t.name)).not.toContain("request_user_input");
    const out = log[1].input.find((i: any) => i.type === "function_call_output");
    expect(out.output).toMatch(/disabled|unavailable/);
  });
});

describe("deferred approvals", () => {
  it("exec --questions defer stops at an approval (exit 3); resume --answer decision=Accept runs the command", async () => {
    const { existsSync, rmSync } = await import("node:fs");
    // Outside the sandbox's writable roots, never in $HOME; removed below.
    const outside = outsideDir("tandem-defer-");
    const mock = await startMockProcess({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              call_id: "esc_1",
              arguments: {
                cmd: `echo ran > ${outside}/ran.txt; echo DONE_OK`,
                sandbox_permissions: "require_escalated",
                justification: "write outside",
              },
            },
          ],
        },
        { expect: { input_contains: ["DONE_OK"] }, output: [{ type: "message", text: "finished" }] },
      ],
    });
    try {
      const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
      const first = await runTandem(["exec", "--json", "--questions", "defer", "do it"], { env });
      expect(first.code).toBe(3);
      const q = jsonLines(first.stdout).find((l) => l.type === "question.requested");
      expect(q.questions[0].id).toBe("decision");
      expect(existsSync(join(outside, "ran.txt"))).toBe(false);
      const done = await runTandem(["exec", "resume", q.thread_id, "--json", "--answer", "decision=Accept"], {
        env,
      });
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      expect(readFileSync(join(outside, "ran.txt"), "utf8")).toBe("ran\n");
      const events = jsonLines(done.stdout);
      expect(
        events.find((e) => e.type === "item.completed" && e.item.type === "agent_message").item.text,
      ).toBe("finished");
    } finally {
      await mock.stop();
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
