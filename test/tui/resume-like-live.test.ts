/**
 * A resumed thread looks like the live one (README "Use it"): the built TUI in tmux runs a turn
 * with a plan, a patch, a question (answered), an approved command and a sub-agent; `--resume` of
 * that thread in a new process draws the same cells — the plan as a checklist, the patch as its
 * diff, the question with its answer, the approval with its decision, the sub-agent as a card —
 * as the live run did, header first.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { call, quietChild, say, spawnCall } from "../helpers/agent-scripts.js";
import { tempDir } from "../helpers/index.js";
import { hasTmux, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal } = tuiHarness({
  name: "tandem-tui-resume-live",
  height: 120,
});

const PATCH = [
  "*** Begin Patch",
  "*** Update File: calc.py",
  "@@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  "*** End Patch",
].join("\n");

/** The transcript from the user's message to the final reply, without what only a live run has. */
function transcript(screen: string): string[] {
  const from = screen.indexOf("› fix calc");
  const to = screen.indexOf("FINAL-REPLY-42");
  return screen
    .slice(from, to + "FINAL-REPLY-42".length)
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l && !/^─ done in/.test(l));
}

describe.skipIf(!hasTmux)("--resume draws what the live session drew (tmux)", { timeout: 120_000 }, () => {
  it("plan, patch diff, answered question, approval and sub-agent card are the same cells after --resume", async () => {
    const cwd = tempDir("tandem-tui-resume-live-cwd-");
    writeFileSync(join(cwd, "calc.py"), "def add(a, b):\n    return a - b\n");
    const script: Script = {
      steps: [
        {
          output: [
            call("update_plan", {
              plan: [
                { step: "Read calc.py", status: "completed" },
                { step: "Fix add", status: "in_progress" },
              ],
            }),
          ],
        },
        { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "p1" }] },
        {
          output: [
            call(
              "request_user_input",
              {
                questions: [
                  {
                    id: "runner",
                    header: "Runner",
                    question: "Which test runner?",
                    options: [
                      { label: "pytest", description: "the usual" },
                      { label: "unittest", description: "stdlib" },
                    ],
                  },
                ],
              },
              "q1",
            ),
          ],
        },
        {
          output: [
            call(
              "exec_command",
              {
                cmd: "echo APPROVED-RAN",
                sandbox_permissions: "require_escalated",
                justification: "print a word",
              },
              "e1",
            ),
          ],
        },
        { output: [spawnCall("CHECK: run the tests", "s1")] },
        { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        { output: [say("FINAL-REPLY-42")] },
      ],
      side_steps: quietChild("CHECK"),
    };
    const mock = await startMock(script);
    const { home } = launch({ url: mock.url, cwd, args: ["--mode", "plan"] });
    await waitFor("ask Tandem to do something");
    literal("fix calc");
    keys("Enter");
    await waitFor("Which test runner?");
    keys("2");
    keys("Enter");
    await waitFor("print a word");
    keys("y");
    const liveScreen = await waitFor(/FINAL-REPLY-42[\s\S]*done in/);
    const live = transcript(liveScreen);
    expect(live.join("\n")).toContain("-    return a - b");
    keys("C-c");
    keys("C-c");
    const id = /continue with: tandem --resume (\S+)/.exec(
      await waitFor(/continue with: tandem --resume (\S+)/),
    )![1];

    launch({ url: mock.url, home, cwd, args: ["--resume", id] });
    await waitFor(`Resumed thread ${id}`);
    const resumedScreen = await waitFor("FINAL-REPLY-42");
    // The header (the banner) comes before the history.
    expect(resumedScreen.indexOf("│ Tandem")).toBeLessThan(resumedScreen.indexOf("› fix calc"));
    const resumed = transcript(resumedScreen);
    for (const want of [
      "Plan",
      "Read calc.py",
      "Fix add",
      "-    return a - b",
      "+    return a + b",
      "Which test runner?",
      "unittest",
      "? Approval — answered by tui",
      "Run `echo APPROVED-RAN`?",
      "→ Accept",
      "│ APPROVED-RAN",
      "◇ Sub-agents finished",
      "CHECK finished",
    ]) {
      expect(
        live.some((l) => l.includes(want)),
        `live has ${want}`,
      ).toBe(true);
      expect(
        resumed.some((l) => l.includes(want)),
        `resumed has ${want}`,
      ).toBe(true);
    }
    expect(resumed).toEqual(live);
  });
});
