/**
 * README "Use it" in a real terminal: opening the TUI and quitting without typing anything leaves
 * no thread behind (`tandem threads` lists none, the store holds none, and the exit line suggests
 * no `--resume`); one message stores its thread and the exit line suggests resuming it. tmux runs
 * `tandem` against `tandem mock-model` (real processes, temp TANDEM_HOME).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { runTandem } from "../helpers/cli.js";
import { builtOrSourceTui, hasTmux, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, pane, waitFor, keys, literal } = tuiHarness({
  name: "tandem-noinput",
  command: builtOrSourceTui(),
});

function storedIds(home: string): string[] {
  const store = openStore(join(home, "state.db"));
  try {
    return store.listThreads().map((t) => t.id);
  } finally {
    store.close();
  }
}

describe.skipIf(!hasTmux)("TUI: a thread is stored with its first input", { timeout: 120_000 }, () => {
  // Fails if Runtime.startThread stores the thread (row, lease or context items) before any
  // input — `tandem threads` then lists an empty thread — or if the exit line still suggests
  // `tandem --resume` for a thread that was never stored.
  it("open and quit: nothing stored, nothing listed, no resume suggested", async () => {
    const mock = await startMock({ steps: [] });
    const { home } = launch({ url: mock.url });
    await waitFor("ask Tandem to do something");
    keys("C-c");
    keys("C-c");
    await waitFor("[exited 0]");
    expect(pane()).not.toContain("--resume");
    expect(storedIds(home)).toEqual([]);
    const listed = await runTandem(["threads"], { env: { TANDEM_HOME: home } });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^no threads yet/);
  });

  // Fails if the first turn does not store the thread (persistThread never called: the store
  // stays empty) or if the resume hint is dropped for a stored thread.
  it("one message: the thread is stored and the exit line suggests resuming it", async () => {
    const mock = await startMock({ steps: [{ output: [{ type: "message", text: "Stored reply." }] }] });
    const { home } = launch({ url: mock.url });
    await waitFor("ask Tandem to do something");
    literal("hello");
    keys("Enter");
    await waitFor("Stored reply.");
    keys("C-c");
    keys("C-c");
    const screen = await waitFor(/continue with: tandem --resume (\S+)/);
    const id = /continue with: tandem --resume (\S+)/.exec(screen)![1];
    expect(storedIds(home)).toEqual([id]);
  });
});
