/**
 * Composer history across restarts, end to end: tmux runs the built `tandem` TUI against
 * `tandem mock-model`. A prompt submitted in one run is recalled with ↑ after a restart (from
 * `$TANDEM_HOME/history.jsonl`, mode 0600), and a resumed thread's user messages are in ↑/↓
 * history even when the history file is gone.
 */
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { hasTmux, tuiHarness } from "../helpers/tui-harness.js";

/** The built TUI; each `launch` replaces the previous session, so a run can restart on the same home. */
const { launch, startMock, waitFor, keys, literal } = tuiHarness({ name: "tandem-history" });

/** The composer (inside its rounded border) showing `text` on its first line. */
const inComposer = (text: string) => new RegExp(`│ › ${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*│`);

async function quit(): Promise<string> {
  keys("C-c");
  keys("C-c");
  return waitFor(/continue with: tandem --resume (\S+)/);
}

const reply = (text: string): Script["steps"][number] => ({ output: [{ type: "message", text }] });

describe.skipIf(!hasTmux)("composer history across restarts (tmux)", { timeout: 120_000 }, () => {
  it("finds a prompt from the previous run with ↑, and a resumed thread's messages", async () => {
    const mock = await startMock({ steps: [reply("First reply."), reply("Second reply.")] });
    const { home, cwd } = launch({ url: mock.url });
    await waitFor("ask Tandem to do something");
    literal("remember the blue lighthouse");
    keys("Enter");
    await waitFor("First reply.");
    await waitFor(/done in [\d.]+m?s/);
    literal("and the green door");
    keys("Enter");
    await waitFor("Second reply.");
    const id = /continue with: tandem --resume (\S+)/.exec(await quit())![1];
    await waitFor("[exited 0]");

    const file = join(home, "history.jsonl");
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.text)).toEqual(["remember the blue lighthouse", "and the green door"]);
    expect(lines[0]).toMatchObject({ cwd });
    expect(typeof lines[0].ts).toBe("number");
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // Restart: ↑ walks back through the previous run's prompts, ↓ returns to the empty draft.
    launch({ url: mock.url, home, cwd });
    await waitFor("ask Tandem to do something");
    keys("Up");
    await waitFor(inComposer("and the green door"));
    keys("Up");
    await waitFor(inComposer("remember the blue lighthouse"));
    keys("Down");
    keys("Down");
    await waitFor("ask Tandem to do something");
    // No input in this run: its thread was never stored, so no --resume is suggested.
    keys("C-c");
    keys("C-c");
    await waitFor("[exited 0]");

    // Without the file, a resumed thread still brings its own messages into history.
    rmSync(file);
    launch({ url: mock.url, home, cwd, args: ["--resume", id] });
    await waitFor(`Resumed thread ${id}`);
    keys("Up");
    await waitFor(inComposer("and the green door"));
    keys("Up");
    await waitFor(inComposer("remember the blue lighthouse"));
    await quit();
    await waitFor("[exited 0]");
    // Resumed messages are not written back; nothing was submitted in that run.
    expect(existsSync(file)).toBe(false);
  });
});
