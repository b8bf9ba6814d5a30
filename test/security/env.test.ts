/**
 * README "Sandbox and approvals": the model's commands do not inherit Tandem's secrets. Through the real loop
 * (harness(): real Runtime, scripted model over HTTP) and through `./bin/tandem exec` as a real
 * process, the scripted model runs `env` / `echo "$OPENAI_API_KEY"` / `printenv
 * TANDEM_SERVE_TOKEN`; the values set in Tandem's environment never reach the command's output
 * nor any model request, while `shell_environment_policy` (inherit / exclude / set /
 * include_only) still gives legitimate commands what they are configured to get, and the
 * thread's secret handles ($TANDEM_SECRET_<id>) keep expanding under every policy.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";

/** Values planted in Tandem's own environment for the duration of each test. */
const PLANTED: Record<string, string> = {
  OPENAI_API_KEY: "sk-LEAK-openai-7c1e9d",
  TANDEM_SERVE_TOKEN: "LEAK-serve-token-52ab",
  DEPLOY_SECRET: "LEAK-deploy-secret-0f3c",
  my_api_key: "LEAK-lowercase-key-91d2",
  TANDEM_PROBE_OWN: "LEAK-tandem-own-44e0",
  ENV_PROBE_BENIGN: "visible-benign-3318",
};
const LEAKS = Object.entries(PLANTED)
  .filter(([k]) => k !== "ENV_PROBE_BENIGN")
  .map(([, v]) => v);

const call = (id: string, cmd: string, extra: Record<string, unknown> = {}) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd, ...extra },
});
/**
 * `env` under /bin/sh: bash, whose stdin here is a socket, sources ~/.bashrc when SHLVL < 2 (as
 * under inherit = none/core), and the machine's rc file would add names of its own.
 */
const listEnv = (id: string) => call(id, "env", { shell: "/bin/sh" });
const done = { output: [{ type: "message" as const, text: "done" }] };

function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (o) return o.output;
  }
  throw new Error(`no output for ${callId}`);
}

/** Variable names in an `env` listing (the command's output part). */
function names(output: string): string[] {
  const body = output.slice(output.indexOf("Output:\n") + "Output:\n".length);
  return body
    .split("\n")
    .map((l) => /^([^=\s]+)=/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort();
}

function expectNoLeak(h: Harness): void {
  const requests = JSON.stringify(h.model.requests);
  const events = JSON.stringify(h.events);
  for (const v of LEAKS) {
    expect(requests, `model requests contain ${v}`).not.toContain(v);
    expect(events, `events contain ${v}`).not.toContain(v);
  }
}

/** Variables bash itself exports, and Tandem's quiet-output layer (always added). */
const SHELL_OWN = ["OLDPWD", "PWD", "SHLVL", "_"];

const QUIET = ["GIT_PAGER", "NO_COLOR", "PAGER", "TERM"];

describe("shell environment policy", () => {
  let h: Harness | undefined;
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const [k, v] of Object.entries(PLANTED)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  type Call = ReturnType<typeof call>;
  async function run(calls: Call[], overrides: string[] = []): Promise<Harness> {
    h = await harness({ script: { steps: [{ output: calls }, done] }, overrides });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    return h;
  }

  // Fails if buildEnv copies process.env unfiltered, or the default excludes (*KEY*, *SECRET*,
  // *TOKEN*, TANDEM_*) are dropped or matched case-sensitively.
  it("default: keys, tokens, secrets and TANDEM_* never reach a command or the model", async () => {
    const h = await run([
      listEnv("e1"),
      call("e2", 'echo "key=[$OPENAI_API_KEY]"'),
      call("e3", "printenv TANDEM_SERVE_TOKEN; echo rc=$?"),
    ]);
    const env = names(outputOf(h, "e1"));
    for (const k of [
      "OPENAI_API_KEY",
      "TANDEM_SERVE_TOKEN",
      "DEPLOY_SECRET",
      "my_api_key",
      "TANDEM_PROBE_OWN",
    ])
      expect(env).not.toContain(k);
    expect(outputOf(h, "e2")).toContain("key=[]");
    expect(outputOf(h, "e3")).toContain("rc=1");
    expectNoLeak(h);
    // Legitimate use: ordinary variables are still inherited.
    expect(env).toEqual(expect.arrayContaining(["ENV_PROBE_BENIGN", "HOME", "PATH"]));
    expect(outputOf(h, "e1")).toContain("ENV_PROBE_BENIGN=visible-benign-3318");
  });

  // Fails if `set` is ignored or applied before the excludes (GH_TOKEN would be dropped), or if
  // `exclude` is case-sensitive.
  it("set adds variables (even ones the defaults exclude); exclude drops more, case-insensitively", async () => {
    const h = await run(
      [listEnv("s1")],
      [
        'shell_environment_policy.set={ GH_TOKEN = "set-by-config", BUILD_MODE = "ci" }',
        'shell_environment_policy.exclude=["env_probe_*"]',
      ],
    );
    const out = outputOf(h, "s1");
    expect(out).toContain("GH_TOKEN=set-by-config");
    expect(out).toContain("BUILD_MODE=ci");
    expect(names(out)).not.toContain("ENV_PROBE_BENIGN");
    expect(names(out)).toContain("PATH");
    expectNoLeak(h);
  });

  // Fails if inherit="none" still copies process.env (or core leaks non-core names).
  it('inherit="none" gives an (almost) empty environment; "core" keeps only the core names', async () => {
    const h1 = await run([listEnv("n1")], ['shell_environment_policy.inherit="none"']);
    expect(names(outputOf(h1, "n1")).filter((n) => !SHELL_OWN.includes(n))).toEqual(QUIET);
    expectNoLeak(h1);
    await h1.close();

    const h2 = await run([listEnv("c1")], ['shell_environment_policy.inherit="core"']);
    const core = names(outputOf(h2, "c1")).filter((n) => !SHELL_OWN.includes(n) && !QUIET.includes(n));
    expect(core).toEqual(expect.arrayContaining(["HOME", "PATH"]));
    const allowed = ["HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP"];
    expect(core.filter((n) => !allowed.includes(n))).toEqual([]);
    expectNoLeak(h2);
  });

  // Fails if SHLVL is not set for commands: bash, whose stdin is a socket, then runs the user's
  // ~/.bashrc on every command once a policy drops SHLVL (inherit = core / none).
  it("a policy that drops SHLVL does not make bash run ~/.bashrc", async () => {
    const home = tempDir("tandem-env-home-");
    writeFileSync(join(home, ".bashrc"), "echo BASHRC_RAN\n");
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const h = await run(
        [call("b1", "echo plain", { shell: "/bin/bash" })],
        ['shell_environment_policy.inherit="core"'],
      );
      const out = outputOf(h, "b1");
      expect(out).toContain("plain");
      expect(out).not.toContain("BASHRC_RAN");
    } finally {
      process.env.HOME = saved;
    }
  });

  // Fails if include_only is ignored, or applied before `set` (then it could not filter `set`).
  it("include_only keeps only matching names (after set)", async () => {
    const h = await run(
      [listEnv("i1")],
      [
        'shell_environment_policy.include_only=["PATH", "env_probe_*"]',
        'shell_environment_policy.set={ DROPPED_BY_INCLUDE = "x" }',
      ],
    );
    const env = names(outputOf(h, "i1")).filter((n) => !SHELL_OWN.includes(n) && !QUIET.includes(n));
    expect(env).toEqual(["ENV_PROBE_BENIGN", "PATH"]);
    expectNoLeak(h);
  });

  // Fails if the thread's TANDEM_SECRET_<id> handles go through the policy (TANDEM_* and
  // *SECRET* would drop them, and include_only would too) instead of being added after it.
  it("a secret handle still expands, even under the strictest policy", async () => {
    const SECRET = "sk-answered-secret-6b2f0a";
    const ask = {
      type: "function_call" as const,
      name: "request_user_input",
      call_id: "q1",
      arguments: {
        questions: [{ id: "api_key", header: "Key", question: "Paste the API key", secret: true }],
      },
    };
    for (const overrides of [
      [],
      ['shell_environment_policy.inherit="none"', 'shell_environment_policy.include_only=["PATH"]'],
    ]) {
      h = await harness({
        script: {
          steps: [
            { output: [ask] },
            {
              output: [
                call("k1", 'printf "%s" "$TANDEM_SECRET_API_KEY" > key.txt; echo "[$OPENAI_API_KEY]"'),
              ],
            },
            done,
          ],
        },
        overrides,
      });
      const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
      h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
      const turn = thread.startTurn("configure");
      const ev = (await h.waitFor(
        (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested",
      )) as EventOf<"question.requested">;
      const r = h.runtime.questions.reply(
        thread.id,
        ev.request.request_id,
        { answers: { api_key: { selected: [], other: SECRET } } },
        { kind: "test" },
      );
      expect(r.ok).toBe(true);
      expect((await turn.done).status).toBe("completed");
      expect(readFileSync(join(h.cwd, "key.txt"), "utf8")).toBe(SECRET);
      expect(outputOf(h, "k1")).toContain("[]");
      expect(JSON.stringify(h.model.requests)).not.toContain(SECRET);
      expectNoLeak(h);
      await h.close();
      h = undefined;
    }
  });
});

describe("shell environment policy: tandem exec (processes)", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  const envScript = {
    steps: [{ output: [call("x1", "env"), call("x2", 'echo "[$OPENAI_API_KEY][$LLM_PASS]"')] }, done],
  };

  // Fails if the CLI path (createRuntime → Runtime.attach) does not pass the policy down, or
  // the provider's own key variable (env_key, any name) is not excluded by default.
  it("tandem exec: the API key and the provider's env_key stay out of commands and requests", async () => {
    mock = await startMockProcess(envScript);
    const cwd = tempDir();
    const home = tempDir();
    // The provider reads its key from LLM_PASS, a name no default pattern matches.
    const r2 = await runTandem(
      [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--cd",
        cwd,
        "-c",
        'model_provider="local"',
        "-c",
        `model_providers.local={ base_url = "${mock.url}", env_key = "LLM_PASS" }`,
        "show env",
      ],
      {
        env: {
          TANDEM_HOME: home,
          OPENAI_API_KEY: "sk-LEAK-cli-openai-1f9e",
          LLM_PASS: "LEAK-cli-provider-pass-7d21",
          TANDEM_SERVE_TOKEN: "LEAK-cli-serve-token-a0c3",
          ENV_PROBE_BENIGN: "cli-visible-benign",
        },
      },
    );
    expect(r2.stderr).toBe("");
    expect(r2.code).toBe(0);
    const log = readFileSync(mock.log, "utf8");
    for (const v of ["sk-LEAK-cli-openai-1f9e", "LEAK-cli-provider-pass-7d21", "LEAK-cli-serve-token-a0c3"]) {
      expect(log).not.toContain(v);
      expect(r2.stdout).not.toContain(v);
    }
    // Parallel calls complete in any order: find each command's item by its command.
    const output = (cmd: string) =>
      jsonLines(r2.stdout).find(
        (e) => e.type === "item.completed" && e.item.type === "command_execution" && e.item.command === cmd,
      )?.item.aggregated_output as string;
    expect(output("env")).toContain("ENV_PROBE_BENIGN=cli-visible-benign");
    expect(output('echo "[$OPENAI_API_KEY][$LLM_PASS]"')).toContain("[][]");
  });
});
