/**
 * `tandem review` against `tandem mock-model` (README "Review: `/review`"): the findings print
 * as a list, or as one JSON object with --json; the request is the review prompt for the target
 * under a read-only sandbox; the workspace and git state are untouched; bad targets are usage
 * errors.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const ANSWER = (cwd: string) => ({
  findings: [
    {
      title: "Close the file",
      body: "The handle leaks when `parse` throws.",
      priority: 1,
      confidence_score: 0.7,
      code_location: { absolute_file_path: join(cwd, "io.py"), line_range: { start: 3, end: 5 } },
    },
  ],
  overall_correctness: "patch is incorrect",
  overall_explanation: "One leak.",
});

describe("tandem review", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  it("prints findings (list and --json) for a base branch, read-only, changing nothing", async () => {
    const cwd = tempDir("tandem-review-cli-");
    const git = (...a: string[]) =>
      execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...a], { cwd, encoding: "utf8" });
    git("init", "-q", "-b", "main");
    writeFileSync(join(cwd, "io.py"), "x\n");
    git("add", ".");
    git("commit", "-qm", "one");
    git("checkout", "-qb", "feature");
    writeFileSync(join(cwd, "io.py"), "y\n");
    const before = { status: git("status", "--porcelain"), file: readFileSync(join(cwd, "io.py"), "utf8") };
    const step = {
      expect: {
        input_contains: ["Code review requested: changes against 'main'", "git merge-base HEAD main"],
      },
      output: [{ type: "message" as const, text: `\`\`\`json\n${JSON.stringify(ANSWER(cwd))}\n\`\`\`` }],
    };
    mock = await startMockProcess({ steps: [step, step] });
    const home = tempDir();
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const human = await runTandem(["review", "--base", "main", "-C", cwd], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(
      "[P1] Close the file — io.py:3-5\n  The handle leaks when `parse` throws.\n\nOverall: patch is incorrect — One leak.\n",
    );
    expect(human.stderr).toContain("Reviewing changes against 'main' (read-only)");
    const json = await runTandem(["review", "--base", "main", "--json", "-C", cwd], { env });
    expect(json.code, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({
      target: { type: "baseBranch", branch: "main" },
      overall_correctness: "patch is incorrect",
      findings: [
        { title: "Close the file", priority: 1, file: join(cwd, "io.py"), lines: { start: 3, end: 5 } },
      ],
    });
    expect(typeof out.thread_id).toBe("string");
    const req = jsonLines(readFileSync(mock.log, "utf8"))[0];
    expect(req.text?.format?.type).toBe("json_schema");
    expect(git("status", "--porcelain")).toBe(before.status);
    expect(readFileSync(join(cwd, "io.py"), "utf8")).toBe(before.file);
  });

  it("refuses a target that is no git name, or two targets", async () => {
    const home = tempDir();
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" };
    const bad = await runTandem(["review", "--base", "main;rm -rf ~"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"main;rm -rf ~" is not a branch name');
    const two = await runTandem(["review", "--commit", "abc1234", "look at it"], { env });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("give one of --base, --commit or instructions");
  });
});
