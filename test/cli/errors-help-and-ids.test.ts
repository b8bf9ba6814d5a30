/**
 * README "Use it", end to end through `./bin/tandem`: --help and unknown options on every
 * subcommand, a nonexistent --cd refused before anything is stored,
 * connection errors that name the URL and the cause once, thread ids by unique prefix
 * (CLI and HTTP), `tandem rules list|remove`, and exec's human output: a header line,
 * file changes as a diff summary, plans as a checklist.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { rulesProject, setStoredRules, storedRules } from "../../src/runtime/approvals.js";
import { openStore } from "../../src/store/index.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { serve } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";

/** A localhost port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("connection errors", () => {
  it("name the URL and the cause, once, in human output and in --json", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: url };
    const expected = `cannot reach ${url}: connection refused`;

    // fails if the SDK's bare "Connection error." is shown, or the failure is printed twice
    // (an `error:` line and a `turn failed:` line for the same error).
    const human = await runTandem(["exec", "-c", "retry_base_ms=1", "hi"], { env });
    expect(human.code).toBe(1);
    const [header, ...lines] = human.stderr.trim().split("\n");
    expect(header).toMatch(/^tandem exec · model /);
    expect(lines.at(-1)).toBe(`turn failed: ${expected}`);
    expect(human.stderr.split(expected).length - 1).toBe(lines.length);
    // Each retry is one line naming the same cause (4 retries by default), then the failure.
    expect(lines.slice(0, -1).every((l) => l.startsWith(`${expected}; retrying in `))).toBe(true);
    expect(lines).toHaveLength(5);
    expect(human.stderr).not.toContain("Connection error.");

    // fails if --json's error / turn.failed carry the SDK's message instead of URL and cause.
    const json = await runTandem(["exec", "--json", "-c", "stream_max_retries=0", "hi"], { env });
    expect(json.code).toBe(1);
    const events = jsonLines(json.stdout);
    expect(events.find((e) => e.type === "error")).toEqual({ type: "error", message: expected });
    expect(events.at(-1)).toEqual({ type: "turn.failed", error: { message: expected } });
  });
});

/** Each subcommand and a flag its help must list. */
const SUBCOMMANDS: Array<[string[], string]> = [
  [["exec"], "--sandbox"],
  [["exec", "resume"], "--answer"],
  [["resume"], "--answer"],
  [["threads"], "--limit"],
  [["export"], "THREAD_ID"],
  [["mock-model"], "--script"],
  [["demo"], "--seed"],
  [["app-server"], "--listen"],
  [["serve"], "--port"],
  [["rules"], "remove"],
  [["review"], "--base"],
  [["acp"], "--config"],
  [["mcp-server"], "--config"],
  [["mcp"], "--url"],
  [[], "--resume"],
];

describe("--help and unknown options", () => {
  // fails if a subcommand treats --help/-h as an unknown option (exit 2) or prints no flags.
  it("--help and -h print the subcommand's usage with its flags, exit 0", async () => {
    const home = tempDir();
    for (const [cmd, flag] of SUBCOMMANDS) {
      for (const help of ["--help", "-h"]) {
        const r = await runTandem([...cmd, help], { env: { TANDEM_HOME: home } });
        expect({ cmd, help, code: r.code, stderr: r.stderr }).toEqual({ cmd, help, code: 0, stderr: "" });
        expect(r.stdout).toMatch(/^usage:( tandem|\n)/im);
        expect(r.stdout).toContain(flag);
      }
    }
  });

  // fails if node's parseArgs message (`… as in '-- "--frobnicate"`, a dangling quote) reaches
  // the user, or an unknown option does not exit 2.
  it("an unknown option is named with balanced quotes and exits 2", async () => {
    const home = tempDir();
    for (const [cmd] of SUBCOMMANDS) {
      const r = await runTandem([...cmd, "--frobnicate"], { env: { TANDEM_HOME: home } });
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 2 });
      const first = r.stderr.split("\n")[0];
      expect(first).toMatch(/^tandem( [a-z-]+)?: unknown option '--frobnicate'$/);
      expect(r.stderr).toMatch(/usage: tandem/i);
    }
  });
});

describe("-m/--model only where a model runs", () => {
  // fails if a command that runs no model accepts -m and ignores it, or the top-level help
  // stops listing the terminal UI's own flags.
  it("is refused by commands without a model; tandem --help lists the terminal UI's flags", async () => {
    const home = tempDir();
    for (const cmd of [
      ["threads"],
      ["export", "x"],
      ["rules"],
      ["mcp", "list"],
      ["skills"],
      ["hooks"],
      ["demo"],
    ]) {
      const r = await runTandem([...cmd, "-m", "gpt-x"], { env: { TANDEM_HOME: home } });
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 2 });
      expect(r.stderr.split("\n")[0]).toMatch(/unknown option '-m'$/);
    }
    const help = await runTandem(["--help"], { env: { TANDEM_HOME: home } });
    expect(help.stdout).toContain("The terminal UI (tandem [options] [PROMPT]):");
    for (const flag of [
      "-C, --cd DIR",
      "-m, --model MODEL",
      "--resume ID",
      "--mode plan|default",
      "--log-file FILE",
    ])
      expect(help.stdout).toContain(flag);
  });
});

describe("exec --image", () => {
  // fails if a missing or non-image file crashes exec with a stack trace instead of a usage error
  it("a file that is missing or not an image is a usage error naming it", async () => {
    const home = tempDir();
    const notImage = join(tempDir(), "notes.png");
    writeFileSync(notImage, "just text");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" };
    const missing = await runTandem(["exec", "--image", "/nonexistent/shot.png", "hi"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("tandem exec: --image: image /nonexistent/shot.png:");
    const bad = await runTandem(["exec", "-i", notImage, "hi"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`image ${notImage} is not a PNG, JPEG, GIF or WebP file`);
  });
});

describe("a nonexistent --cd", () => {
  // fails if the directory is checked only after the runtime started a thread (a row in
  // state.db), or if the message does not name the path.
  it("is a usage error naming the path, before anything is stored (exec and the TUI)", async () => {
    const home = tempDir();
    const missing = join(tempDir(), "no-such-dir");
    const file = join(tempDir(), "a-file");
    writeFileSync(file, "x");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" };
    const runs: Array<[string[], string]> = [
      [["exec", "--cd", missing, "hi"], `${missing} does not exist`],
      [["exec", "--json", "-C", file, "hi"], `${file} is not a directory`],
      [["--cd", missing], `${missing} does not exist`],
      [["demo", "--tui", "--cd", missing], `${missing} does not exist`],
    ];
    for (const [args, message] of runs) {
      const r = await runTandem(args, { env });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(`--cd: ${message}`);
      expect(r.stdout).toBe("");
    }
    const db = join(home, "state.db");
    if (existsSync(db)) {
      const store = openStore(db);
      expect(store.listThreads()).toEqual([]);
      store.close();
    }
  });
});

describe("thread ids by unique prefix", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  /** The shortest prefix of `id` that no other id shares. */
  const uniquePrefix = (id: string, others: string[]) => {
    for (let n = 1; n <= id.length; n++)
      if (!others.some((o) => o.startsWith(id.slice(0, n)))) return id.slice(0, n);
    return id;
  };

  // fails if export/exec resume/resume look ids up exactly only, if an ambiguous prefix picks
  // one thread silently, or if the web page's short id (the last characters) is not accepted.
  it("export, exec resume and resume accept a unique prefix; an ambiguous one lists candidates", async () => {
    mock = await startMockProcess({ loop: true, steps: [{ output: [{ type: "message", text: "ok" }] }] });
    const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const ids: string[] = [];
    for (const prompt of ["first", "second"]) {
      const r = await runTandem(["exec", "--json", prompt], { env });
      expect(r.code).toBe(0);
      ids.push(jsonLines(r.stdout)[0].thread_id);
    }
    const [a, b] = ids;
    const common = a.slice(
      0,
      [...a].findIndex((ch, i) => b[i] !== ch),
    );

    const ambiguous = await runTandem(["export", common], { env });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`"${common}" is ambiguous`);
    expect(ambiguous.stderr).toContain(a);
    expect(ambiguous.stderr).toContain(b);

    const full = await runTandem(["export", a], { env });
    const byPrefix = await runTandem(["export", uniquePrefix(a, [b])], { env });
    expect(byPrefix.code).toBe(0);
    expect(byPrefix.stdout).toBe(full.stdout);
    expect(full.stdout).toContain("first");
    const byShortId = await runTandem(["export", b.slice(-6)], { env });
    expect(byShortId.stdout).toContain("second");

    const none = await runTandem(["export", "zz"], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no thread with id "zz"');

    const resumed = await runTandem(["exec", "resume", "--json", uniquePrefix(b, [a]), "again"], { env });
    expect(resumed.code).toBe(0);
    expect(jsonLines(resumed.stdout)[0]).toEqual({ type: "thread.started", thread_id: b });
    const viaResume = await runTandem(["resume", uniquePrefix(a, [b]), "more"], { env });
    expect(viaResume.code).toBe(0);
    expect((await runTandem(["export", a], { env })).stdout).toContain("more");
    const resumeAmbiguous = await runTandem(["resume", common, "x"], { env });
    expect(resumeAmbiguous.code).toBe(2);
    expect(resumeAmbiguous.stderr).toContain("is ambiguous");
  });

  // fails if /thread/:id routes look ids up exactly only, or answer an ambiguous prefix with
  // one of the threads instead of an error naming the candidates.
  it("the HTTP API resolves /thread/:id by unique prefix (404 none, 400 ambiguous)", async () => {
    const s = await serve({ script: Scripts.readmeDemo() });
    try {
      const a = (await s.call("POST", "/thread", {})).json.id as string;
      const b = (await s.call("POST", "/thread", {})).json.id as string;
      const common = a.slice(
        0,
        [...a].findIndex((ch, i) => b[i] !== ch),
      );
      const got = await s.call("GET", `/thread/${uniquePrefix(a, [b])}`);
      expect(got.status).toBe(200);
      expect(got.json.thread.id).toBe(a);
      expect((await s.call("GET", `/thread/${b.slice(-6)}`)).json.thread.id).toBe(b);
      const amb = await s.call("GET", `/thread/${common}`);
      expect(amb.status).toBe(400);
      expect(amb.json.error.code).toBe("ambiguous_id");
      expect(amb.json.error.message).toContain(a);
      expect(amb.json.error.message).toContain(b);
      expect((await s.call("GET", "/thread/zz")).status).toBe(404);
      const interrupted = await s.call("POST", `/thread/${uniquePrefix(b, [a])}/interrupt`);
      expect(interrupted.status).toBe(200);
      expect(interrupted.json.thread_id).toBe(b);
    } finally {
      await s.close();
    }
  });
});

describe("tandem rules list|remove", () => {
  // fails if `rules list` reads another key than the one approvals store rules under, or
  // `remove` (by number or by the rule's words) leaves the rule where approvals would read it.
  it("lists a project's remembered rules and removes one by number or by its words", async () => {
    const home = tempDir();
    const project = tempDir();
    const seed = openStore(join(home, "state.db"));
    setStoredRules(seed, project, [
      ["git", "status"],
      ["npm", "test"],
      ["echo", "a b"],
    ]);
    seed.close();
    const env = { TANDEM_HOME: home };

    const list = await runTandem(["rules", "list", "-C", project], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(
      `Approval rules remembered for ${rulesProject(project)}:\n  1. git status\n  2. npm test\n  3. echo 'a b'\n`,
    );
    const byNumber = await runTandem(["rules", "remove", "2", "-C", project], { env });
    expect(byNumber.code).toBe(0);
    expect(byNumber.stdout).toContain("Removed rule 2 `npm test`");
    const byWords = await runTandem(["rules", "remove", "echo 'a b'"], { env, cwd: project });
    expect(byWords.code).toBe(0);
    const missing = await runTandem(["rules", "remove", "rm", "-C", project], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no rule `rm`");

    const store = openStore(join(home, "state.db"));
    expect(storedRules(store, project)).toEqual([["git", "status"]]);
    store.close();
    const json = await runTandem(["rules", "--json"], { env, cwd: project });
    expect(JSON.parse(json.stdout)).toEqual({ project: rulesProject(project), rules: [["git", "status"]] });
  });
});

describe("exec human output", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  const plan = (explanation: string, statuses: string[]) => ({
    type: "function_call" as const,
    name: "update_plan",
    arguments: { explanation, plan: statuses.map((status, i) => ({ step: `step ${i + 1}`, status })) },
  });
  const PATCH = [
    "*** Begin Patch",
    "*** Update File: app.txt",
    "@@",
    " line one",
    "-line two",
    "+line 2",
    "+line 2b",
    " line three",
    "*** Add File: notes.md",
    "+# Notes",
    "*** End Patch",
  ].join("\n");

  // fails if the header is missing a field or printed after turn output, if file changes are
  // shown without their path/kind/line counts (or counted with the ---/+++ headers), or if
  // plan updates are not a checklist with done and open steps.
  it("starts with one header line, then a plan checklist and a diff summary per file", async () => {
    mock = await startMockProcess({
      steps: [
        { output: [plan("steps", ["in_progress", "pending"])] },
        { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "p1" }] },
        { output: [plan("done", ["completed", "completed"])] },
        { output: [{ type: "message", text: "patched" }] },
      ],
    });
    const cwd = tempDir();
    writeFileSync(join(cwd, "app.txt"), "line one\nline two\nline three\n");
    const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const args = ["exec", "-m", "gpt-test", "-s", "danger-full-access", "-c", 'approval_policy="never"'];
    const r = await runTandem([...args, "--cd", cwd, "edit it"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("patched\n");
    expect(readFileSync(join(cwd, "app.txt"), "utf8")).toBe("line one\nline 2\nline 2b\nline three\n");
    const threadId = JSON.parse((await runTandem(["threads", "--json"], { env })).stdout).id;
    expect(r.stderr).toBe(
      [
        `tandem exec · model gpt-test · cwd ${cwd} · sandbox danger-full-access · approvals never · thread ${threadId}`,
        "Plan:",
        "  steps",
        "  [ ] step 1 (in progress)",
        "  [ ] step 2",
        "→ apply_patch",
        "M app.txt (+2 -1)",
        "A notes.md (+1 -0)",
        "Plan:",
        "  done",
        "  [x] step 1",
        "  [x] step 2",
        "",
      ].join("\n"),
    );
  });
});
