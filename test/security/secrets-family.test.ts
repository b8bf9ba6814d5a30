/**
 * A sub-agent unmasks its parent's secret (README "Secret answers"): the parent thread gets a
 * secret answer, writes it into `.env` through `$TANDEM_SECRET_API_KEY`, then spawns a child
 * that spawns a grandchild, and each runs `cat .env`. Masking covers the whole thread family —
 * and still does after a restart, when a resumed parent and a new child cat the file again in a
 * new process that never saw the value (it is never stored in clear; the mask survives it).
 *
 * Real processes only: `tandem exec --json` answering over its real surface (`exec resume
 * --answer api_key=-`, the value on stdin), the scripted model as its own process with `--log`.
 * The value must be absent from every request the model received (the log), from every byte of
 * the store's files, and from every `exec --json` line; the commands did get it (`.env` holds
 * it) and printed the masked form. Sandboxing is not the point: danger-full-access, so it runs
 * without bubblewrap too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REDACTED } from "../../src/protocol/questions.js";
import { CHILD, call, say, spawnCall } from "../helpers/agent-scripts.js";
import { checkpointBlobs, homeFiles } from "../helpers/checkpoints.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const SECRET = "sk-FAMILY-7d41c09e2b";
const cat = (id: string) => call("exec_command", { cmd: "cat .env" }, id);

/** Child steps key on their depth (in the context every sub-agent gets) and their markers. */
const script = {
  steps: [
    // Process 1: ask, deferred (exit 3).
    {
      output: [
        call(
          "request_user_input",
          { questions: [{ id: "api_key", header: "API key", question: "Your API key?", secret: true }] },
          "ask1",
        ),
      ],
    },
    // Process 2, after the answer: write .env, delegate, wait.
    {
      output: [
        call("exec_command", { cmd: "printf 'API_KEY=%s\\n' \"$TANDEM_SECRET_API_KEY\" > .env" }, "w1"),
      ],
    },
    { output: [spawnCall("TASK-C: check the env file", "sp1")] },
    { output: [call("wait_agent", { ids: ["Ada"], timeout_ms: 60_000 }, "wt1")] },
    { output: [say("parent done")] },
    // Process 3 (a restart): the parent reads it itself, and through a new child.
    { output: [cat("CAT-P2")] },
    { output: [spawnCall("TASK-R: check the env file again", "sp2")] },
    { output: [call("wait_agent", { ids: ["Curie"], timeout_ms: 60_000 }, "wt2")] },
    { output: [say("parent done again")] },
  ],
  side_steps: [
    // The grandchild (depth 2): cat, then done.
    { when: { input_contains: [CHILD, "depth 2)", "CAT-G"] }, output: [say("grandchild done")] },
    { when: { input_contains: [CHILD, "depth 2)"] }, output: [cat("CAT-G")] },
    // The child of the restarted parent.
    { when: { input_contains: [CHILD, "TASK-R", "CAT-R"] }, output: [say("child R done")] },
    { when: { input_contains: [CHILD, "TASK-R"] }, output: [cat("CAT-R")] },
    // The first child: cat, spawn the grandchild, wait for it, done.
    { when: { input_contains: [CHILD, "TASK-C", "WAIT-G"] }, output: [say("child done")] },
    {
      when: { input_contains: [CHILD, "TASK-C", "SPAWN-G"] },
      output: [call("wait_agent", { ids: ["Babbage"], timeout_ms: 60_000 }, "WAIT-G")],
    },
    {
      when: { input_contains: [CHILD, "TASK-C", "CAT-C"] },
      output: [spawnCall("TASK-G: check it too", "SPAWN-G")],
    },
    { when: { input_contains: [CHILD, "TASK-C"] }, output: [cat("CAT-C")] },
  ],
};

/** The output the model got for `callId`, from the mock's request log. */
function outputIn(requests: any[], callId: string): string | undefined {
  for (const body of requests) {
    const o = (body.input ?? []).find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (o) return typeof o.output === "string" ? o.output : JSON.stringify(o.output);
  }
  return undefined;
}

describe("secret masking covers the whole thread family, across a restart", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  // Fails if masking is per thread (the child's and grandchild's `cat .env` reach the model,
  // the store and `exec --json` in clear), or if the family's mask lives only in memory (the
  // restarted parent's and new child's reads leak).
  it("child, grandchild and a restarted parent's new child all see the value masked", async () => {
    mock = await startMockProcess(script);
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-ws-");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const common = ["--json", "-c", 'sandbox_mode="danger-full-access"'];

    const first = await runTandem(["exec", ...common, "--mode", "plan", "--questions", "defer", "set up"], {
      env,
      cwd,
    });
    expect(first.code, first.stderr).toBe(3);
    const threadId = jsonLines(first.stdout)[0].thread_id as string;

    const second = await runTandem(["exec", ...common, "resume", threadId, "--answer", "api_key=-"], {
      env,
      cwd,
      input: `${SECRET}\n`,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(cwd, ".env"), "utf8")).toBe(`API_KEY=${SECRET}\n`); // the command got it

    const third = await runTandem(["exec", ...common, "resume", threadId, "check again"], { env, cwd });
    expect(third.code, third.stderr).toBe(0);

    const log = readFileSync(mock.log, "utf8");
    const requests = log
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    // Each read ran and the model got it masked: the parent after the restart, the first child,
    // the grandchild, the restarted parent's new child.
    for (const id of ["CAT-C", "CAT-G", "CAT-P2", "CAT-R"])
      expect(outputIn(requests, id), `output of ${id}`).toContain(`API_KEY=${REDACTED}`);
    // Nowhere in clear: not in the model's requests, not in exec --json, not in the store.
    expect(log.includes(SECRET), "the model's requests hold the secret").toBe(false);
    for (const run of [first, second, third]) {
      expect(run.stdout.includes(SECRET), "exec --json stdout holds the secret").toBe(false);
      expect(run.stderr.includes(SECRET), "exec stderr holds the secret").toBe(false);
    }
    const subagentLines = jsonLines(second.stdout).filter((l) => l.type === "subagent.event");
    expect(subagentLines.length).toBeGreaterThan(0); // the children's items were printed, masked
    for (const f of homeFiles(home)) {
      const bytes = readFileSync(join(home, f));
      expect(bytes.includes(SECRET), `${f} holds the secret`).toBe(false);
    }
    // .env holds the value: the workspace's checkpoint store keeps it out, in every process.
    for (const blob of checkpointBlobs(home))
      expect(blob.includes(SECRET), "a checkpoint holds it").toBe(false);
  });
});
