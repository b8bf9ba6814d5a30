/**
 * The TUI on a first day (README "First day: doctor and login"), in a real terminal (tmux): with a
 * TANDEM_HOME that does not exist yet and bubblewrap off the PATH, it says what `tandem doctor`
 * would — the home it created, the missing bubblewrap and its install command — and still takes
 * input (the notes never block).
 */
import { existsSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/index.js";
import { builtOrSourceTui, hasTmux, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal } = tuiHarness({
  name: "tandem-firstrun",
  command: builtOrSourceTui(),
});

function pathWithoutBwrap(): string {
  const dir = tempDir("tandem-firstrun-nobwrap-");
  for (const d of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names)
      if (n !== "bwrap" && !existsSync(join(dir, n))) symlinkSync(join(d, n), join(dir, n));
  }
  return dir;
}

describe.skipIf(!hasTmux)("TUI: first run", { timeout: 120_000 }, () => {
  // Fails if the first-run notes are not shown, or if they hold the UI (the message is not answered).
  it("a fresh TANDEM_HOME and no bubblewrap: says so with the fixes, and the UI still works", async () => {
    const mock = await startMock({
      steps: [{ output: [{ type: "message", text: "Answered on day one." }] }],
    });
    const home = join(tempDir("tandem-firstrun-"), "fresh");
    launch({ url: mock.url, home, env: { PATH: pathWithoutBwrap() } });
    await waitFor(`first run: ${home} did not exist; created it (mode 0700)`);
    await waitFor(/bubblewrap \(bwrap\) is not installed.*fix: \S+ .*bubblewrap/s);
    await waitFor("`tandem doctor` checks the rest");
    expect(statSync(home).mode & 0o777).toBe(0o700);
    literal("hello");
    keys("Enter");
    await waitFor("Answered on day one.");
  });
});
