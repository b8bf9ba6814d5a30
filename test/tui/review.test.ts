/**
 * `/review` in the TUI (README "Review: `/review`"): the built TUI in tmux reviews a git
 * repository's uncommitted changes in a read-only turn — the model reads them with git in the
 * sandbox, an attempt to patch is refused, the workspace, the index and the branches are as
 * before — and the JSON findings are drawn as a list (priority, title, place, body), live and
 * after --resume, never as JSON.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { tempDir } from "../helpers/index.js";
import { hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal } = tuiHarness({ name: "tandem-tui-review", height: 60 });

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });

describe.skipIf(!hasTmux)("/review in the TUI (tmux)", { timeout: 90_000 }, () => {
  it("reviews the uncommitted changes read-only and lists the findings", async () => {
    const cwd = tempDir("tandem-tui-review-cwd-");
    git(cwd, "init", "-q");
    writeFileSync(join(cwd, "calc.py"), "def div(a, b):\n    return a * b\n");
    git(cwd, "add", ".");
    git(cwd, "commit", "-qm", "first");
    writeFileSync(join(cwd, "calc.py"), "def div(a, b):\n    return a / b\n");
    const before = {
      status: git(cwd, "status", "--porcelain"),
      index: readFileSync(join(cwd, ".git", "index")),
    };
    const findings = {
      findings: [
        {
          title: "Guard against a zero divisor",
          body: "`div(1, 0)` raises **ZeroDivisionError**.",
          priority: 1,
          confidence_score: 0.8,
          code_location: { absolute_file_path: join(cwd, "calc.py"), line_range: { start: 2, end: 2 } },
        },
      ],
      overall_correctness: "patch is incorrect",
      overall_explanation: "Division by zero is not handled.",
    };
    const patch = ["*** Begin Patch", "*** Add File: sneaky.txt", "+x", "*** End Patch"].join("\n");
    const script: Script = {
      steps: [
        {
          expect: { input_contains: ["Code review requested: current changes", "git diff HEAD"] },
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: "git diff HEAD" },
              call_id: "g1",
            },
          ],
        },
        {
          expect: { input_contains: ["return a / b"] },
          output: [{ type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "p1" }],
        },
        { output: [{ type: "message", text: JSON.stringify(findings) }] },
      ],
    };
    const mock = await startMock(script);
    const { home } = launch({ url: mock.url, cwd });
    await waitFor("ask Tandem to do something");
    literal("/review");
    keys("Enter");
    const screen = await waitFor("◈ Review — 1 finding");
    expect(screen).toContain("› Review: current changes");
    expect(screen).toMatch(/P1 Guard against a zero divisor {2}calc\.py:2/);
    expect(screen).toContain("div(1, 0) raises ZeroDivisionError.");
    expect(screen).toContain("patch is incorrect — Division by zero is not handled.");
    expect(screen).not.toContain('"findings"');
    expect(screen).not.toContain("You are reviewing code changes");
    // Read-only: the patch was refused, and git sees what it saw before.
    const body = JSON.stringify(requests(mock.log)[2]);
    expect(body).not.toContain("Success. Updated the following files");
    expect(() => readFileSync(join(cwd, "sneaky.txt"))).toThrow();
    expect(git(cwd, "status", "--porcelain")).toBe(before.status);
    expect(readFileSync(join(cwd, ".git", "index")).equals(before.index)).toBe(true);
    expect(git(cwd, "branch", "--list").trim()).toMatch(/^\* (master|main)$/);
    expect(git(cwd, "stash", "list")).toBe("");
    // The request asked for the review's JSON shape.
    expect(requests(mock.log)[0].text?.format?.type).toBe("json_schema");

    keys("C-c");
    keys("C-c");
    const id = /continue with: tandem --resume (\S+)/.exec(
      await waitFor(/continue with: tandem --resume (\S+)/),
    )![1];
    launch({ url: mock.url, home, cwd, args: ["--resume", id] });
    const resumed = await waitFor("◈ Review — 1 finding");
    expect(resumed).toContain("› Review: current changes");
    expect(resumed).toMatch(/P1 Guard against a zero divisor {2}calc\.py:2/);
    expect(resumed).not.toContain('"findings"');
  });
});
