/**
 * `!command` in the TUI (README "Your own commands: `!`"): the built TUI in tmux runs `!ls` in
 * the workspace; the listing shows as a command cell, and the next model request carries the
 * command and its output as Codex records it (`<user_shell_command>`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { tempDir } from "../helpers/index.js";
import { hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal } = tuiHarness({ name: "tandem-tui-bang" });

describe.skipIf(!hasTmux)("!command in the TUI (tmux, real processes)", { timeout: 90_000 }, () => {
  it("!ls shows the listing and the next model request contains it", async () => {
    const cwd = tempDir("tandem-tui-bang-cwd-");
    writeFileSync(join(cwd, "SHOWN_BY_LS.txt"), "x");
    const script: Script = {
      steps: [
        {
          expect: {
            input_contains: ["<user_shell_command>", "<command>\\nls\\n</command>", "SHOWN_BY_LS.txt"],
          },
          output: [{ type: "message", text: "I can see your listing." }],
        },
      ],
    };
    const mock = await startMock(script);
    launch({ url: mock.url, cwd });
    await waitFor("ask Tandem to do something");
    literal("!ls");
    keys("Enter");
    const screen = await waitFor(/│ SHOWN_BY_LS\.txt\n\s+└ exit 0/);
    expect(screen).toContain("$ ls");
    // No model request for the command itself.
    expect(requests(mock.log, { allowMissing: true })).toHaveLength(0);
    literal("what is in the listing?");
    keys("Enter");
    await waitFor("I can see your listing.");
    expect(requests(mock.log)).toHaveLength(1);
  });
});
