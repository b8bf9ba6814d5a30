/**
 * Loose ends of the core (README "Use it"), end to end over a real Runtime, real SQLite and the
 * scripted model over HTTP:
 * - a thread's token totals are stored, so every surface reads them back after a restart;
 * - a background job a finished command left behind dies with its thread (and at shutdown);
 * - the turn diff covers files changed by shell commands.
 */
import { describe, expect, it } from "vitest";
import { sleepers } from "../../src/tools/exec/test-helpers.js";
import { inProcessStdio } from "../helpers/app-server-client.js";
import { runTandem } from "../helpers/cli.js";
import { serve, until } from "../helpers/http.js";
import { harness, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const USAGE = { input_tokens: 100, output_tokens: 20, cached_tokens: 30, reasoning_tokens: 5 };

describe("token totals are stored with the thread", () => {
  it("survive a restart: the runtime continues them, tandem threads, HTTP and app-server read them", async () => {
    const home = tempDir("tandem-home-");
    const steps = [
      { output: [{ type: "message" as const, text: "one" }], usage: USAGE },
      { output: [{ type: "message" as const, text: "two" }], usage: USAGE },
    ];
    const first = await harness({ script: { steps }, home });
    const t = first.runtime.threads.start({ cwd: first.cwd });
    await t.startTurn("first").done;
    const threadId = t.id;
    await first.close();

    // fails if totals live only in Thread.totalUsage (per process): a new process starts at 0.
    const second = await harness({ script: { steps: steps.slice(1) }, home });
    const again = second.runtime.threads.open(threadId);
    expect(again.totalUsage).toMatchObject({ input_tokens: 100, output_tokens: 20, total_tokens: 120 });
    await again.startTurn("second").done;
    const usage = second.events
      .map((s) => s.event)
      .filter((e) => e.type === "token.usage")
      .at(-1);
    // fails if the token.usage total of a resumed thread restarts from zero.
    expect(usage).toMatchObject({ total: { input_tokens: 200, cached_input_tokens: 60, total_tokens: 240 } });
    // fails if turns.usage is not written per response (the second turn's own usage only).
    expect(second.runtime.threads.turns(threadId).map((r) => r.usage?.total_tokens)).toEqual([120, 120]);
    await second.close();

    // fails if `tandem threads` does not read the stored total.
    const listed = await runTandem(["threads"], { env: { TANDEM_HOME: home } });
    expect(listed.stdout).toContain("240 tokens");
    const json = await runTandem(["threads", "--json"], { env: { TANDEM_HOME: home } });
    expect(JSON.parse(json.stdout.trim().split("\n")[0]).usage).toMatchObject({ total_tokens: 240 });

    // fails if the HTTP thread summary leaves the stored total out.
    const http = await serve({ script: { steps: [] }, home });
    try {
      const read = await http.call("GET", `/thread/${threadId}`);
      expect(read.json.thread.usage).toMatchObject({ total_tokens: 240, output_tokens: 40 });
    } finally {
      await http.close();
    }

    // fails if app-server thread/resume does not report the stored totals.
    const app = inProcessStdio({
      TANDEM_HOME: home,
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    try {
      await app.client.initialize();
      await app.client.request("thread/resume", { threadId });
      const note = await app.client.notification("thread/tokenUsage/updated", (p) => p.threadId === threadId);
      expect(note.tokenUsage.total).toMatchObject({ totalTokens: 240, inputTokens: 200 });
      expect(note.tokenUsage.last).toMatchObject({ totalTokens: 120 });
      expect(app.client.violations).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

const exec = (cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  arguments: { cmd, yield_time_ms: 10_000 },
});

describe.skipIf(process.platform !== "linux")("a background job left by a finished command", () => {
  const cases: Array<{ sandbox: string; end: "close" | "shutdown"; needs: "bwrap"[] }> = [
    { sandbox: "danger-full-access", end: "close", needs: [] },
    { sandbox: "danger-full-access", end: "shutdown", needs: [] },
    { sandbox: "workspace-write", end: "close", needs: ["bwrap"] },
  ];
  for (const [i, c] of cases.entries()) {
    it.skipIf(missing(...c.needs).length > 0)(
      `dies at ${c.end === "close" ? "thread close" : "runtime shutdown"} (${c.sandbox})`,
      async () => {
        const tag = `${process.pid}${i}7`;
        const h = await harness({
          script: {
            steps: [
              { output: [exec(`sleep ${tag} >/dev/null 2>&1 & echo started`)] },
              { output: [{ type: "message" as const, text: "left a job" }] },
            ],
          },
          overrides: [`sandbox_mode="${c.sandbox}"`],
        });
        try {
          const t = h.runtime.threads.start({ cwd: h.cwd });
          expect((await t.startTurn("start a job").done).status).toBe("completed");
          // Outside the sandbox the job outlives its command (inside, bwrap's PID namespace ends it).
          if (c.sandbox === "danger-full-access") expect(sleepers(tag)).toHaveLength(1);
          if (c.end === "close") await t.close();
          else await h.runtime.shutdown();
          // fails if thread close / runtime shutdown kills only live exec sessions, not leftovers.
          await until(() => sleepers(tag).length === 0, 10_000);
        } finally {
          for (const pid of sleepers(tag)) process.kill(pid, "SIGKILL");
          await h.close();
        }
      },
    );
  }
});

describe("the turn diff covers shell commands", () => {
  it("a file a command writes and one it deletes appear in turn.diff", async () => {
    const cwd = tempDir("tandem-cwd-");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${cwd}/old.txt`, "old\n");
    const h = await harness({
      cwd,
      script: {
        steps: [
          { output: [exec("printf 'hi\\n' > made.txt && rm old.txt")] },
          { output: [{ type: "message" as const, text: "done" }] },
        ],
      },
    });
    try {
      const t = h.runtime.threads.start({ cwd });
      expect((await t.startTurn("make a file").done).status).toBe("completed");
      const diffs = h.events.map((s) => s.event).filter((e) => e.type === "turn.diff");
      // fails if turn.diff covers apply_patch only (commands' changes are not compared)
      const diff = (diffs.at(-1) as { diff: string } | undefined)?.diff ?? "";
      expect(diff).toContain("+++ b/made.txt");
      expect(diff).toContain("+hi");
      expect(diff).toContain("--- a/old.txt");
      expect(diff).toContain("-old");
    } finally {
      await h.close();
    }
  });
});
