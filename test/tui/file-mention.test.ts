/**
 * `@` file mentions in the TUI (README "Mention files: `@`"): the built TUI in tmux offers the
 * workspace's files fuzzily as `@rea` is typed, Tab inserts `@README.md `, and sending attaches
 * the file's contents to the model request. Ignored files are not offered.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { tempDir } from "../helpers/index.js";
import { hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal, pane } = tuiHarness({ name: "tandem-tui-mention" });

describe.skipIf(!hasTmux)("@ file mentions in the TUI (tmux, real processes)", { timeout: 90_000 }, () => {
  it("@rea + Tab inserts README.md from a fuzzy list and the request carries the file", async () => {
    const cwd = tempDir("tandem-tui-mention-cwd-");
    writeFileSync(join(cwd, "README.md"), "# Mention me\nREADME-BODY-31337\n");
    writeFileSync(join(cwd, "reader.ts"), "export {};\n");
    writeFileSync(join(cwd, ".gitignore"), "build/\n");
    mkdirSync(join(cwd, "build"));
    writeFileSync(join(cwd, "build", "readme-copy.md"), "ignored\n");
    mkdirSync(join(cwd, "docs"));
    writeFileSync(join(cwd, "docs", "area.md"), "x\n");
    const script: Script = {
      steps: [
        {
          expect: {
            input_contains: ["summarise @README.md", '<file path=\\"README.md\\"', "README-BODY-31337"],
          },
          output: [{ type: "message", text: "It says mention me." }],
        },
      ],
    };
    const mock = await startMock(script);
    const { home } = launch({ url: mock.url, cwd });
    await waitFor("ask Tandem to do something");
    literal("summarise @rea");
    const list = await waitFor(/› @README\.md/);
    expect(list).toContain("@reader.ts");
    expect(list).not.toContain("readme-copy.md");
    keys("Tab");
    await waitFor("› summarise @README.md");
    expect(pane()).not.toContain("@reader.ts");
    keys("Enter");
    await waitFor("It says mention me.");
    const live = await waitFor("[file README.md attached (31 bytes)]");
    expect(live).not.toContain("README-BODY-31337");
    expect(requests(mock.log)).toHaveLength(1);
    // Resumed, the attachment reads back as the same line, not as the file's body.
    keys("C-c");
    keys("C-c");
    const id = /continue with: tandem --resume (\S+)/.exec(
      await waitFor(/continue with: tandem --resume (\S+)/),
    )![1];
    launch({ url: mock.url, home, cwd, args: ["--resume", id] });
    const resumed = await waitFor(`Resumed thread ${id}`);
    expect(resumed).toContain("[file README.md attached (31 bytes)]");
    expect(resumed).toContain("summarise @README.md");
    expect(resumed).not.toContain("README-BODY-31337");
  });
});
