/**
 * The terminal UI's first frame comes before its modules load (surfaces/tui/early-frame.ts,
 * issue 30 item 3), and goes without a trace when Ink draws: a real `./bin/tandem` in a pty
 * (node-pty, the byte stream in order) and in tmux (the screen a person sees).
 */
import { spawn as ptySpawn } from "@lydell/node-pty";
import { afterEach, describe, expect, it } from "vitest";
import { earlyFrameText } from "../../src/surfaces/tui/early-frame.js";
import { BIN } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";
import { hasTmux, tuiHarness } from "../helpers/tui-harness.js";
import { waitUntil } from "../helpers/wait.js";

const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
const PLACEHOLDER = "ask Tandem to do something — /help for commands";

describe("early frame text", () => {
  it("is as wide as the terminal, with or without colour", () => {
    for (const columns of [20, 47, 53, 80, 100, 240])
      for (const color of [true, false]) {
        const [top, row, bottom, status] = earlyFrameText(columns, color).map(plain);
        expect([...top].length).toBe(columns);
        expect([...bottom].length).toBe(columns);
        expect([...row].length).toBeLessThanOrEqual(columns);
        expect(row.startsWith("│ › ")).toBe(true);
        if (columns >= 53) expect([...row].length).toBe(columns);
        expect(status).toBe("starting…");
      }
    expect(earlyFrameText(80, false).join("\n")).not.toMatch(/\x1b/);
  });
});

describe("TUI: the first frame before the UI loads (pty)", { timeout: 60_000 }, () => {
  let kill: (() => void) | undefined;
  afterEach(() => kill?.());

  // Fails if cli.ts stops drawing the frame before loading the UI (Ink's frame would come first),
  // if the UI stops erasing it before Ink draws (no erase between the two), or if the frame
  // leaves the terminal echoing (the typed text would appear before Ink's frame) or pastes
  // unbracketed.
  it("draws the composer first, erases it before Ink's frame, and keeps keys typed meanwhile", async () => {
    const home = tempDir("tandem-early-home-");
    sandboxFallback(home);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !["CI", "CONTINUOUS_INTEGRATION"].includes(k)) env[k] = v;
    const p = ptySpawn(process.execPath, [BIN, "--cd", tempDir("tandem-early-cwd-")], {
      cols: 100,
      rows: 30,
      env: {
        ...env,
        TANDEM_HOME: home,
        OPENAI_API_KEY: "test-key",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      },
    });
    kill = () => p.kill();
    let out = "";
    let typed = false;
    p.onData((d) => {
      out += d;
      if (!typed && out.includes("starting…")) {
        typed = true;
        p.write("typed at once");
      }
    });
    await waitUntil(
      () => /› typed at once/.test(plain(out)) && out.includes("model:"),
      "the UI with the typed text",
      {
        timeoutMs: 30_000,
      },
    );
    const frameAt = out.indexOf("starting…");
    const eraseAt = out.indexOf("\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K");
    const inkAt = out.indexOf("Enter send");
    expect(frameAt).toBeGreaterThanOrEqual(0);
    expect(plain(out.slice(0, frameAt))).toContain(PLACEHOLDER);
    // Its four lines erased bottom to top, then Ink.
    expect(eraseAt).toBeGreaterThan(frameAt);
    expect(inkAt).toBeGreaterThan(eraseAt);
    expect(out.slice(0, inkAt)).not.toContain("typed at once");
    // Bracketed paste is on with the frame (a path pasted meanwhile stays one paste, an image
    // chip), and stays on into Ink's frame.
    expect(out.indexOf("\x1b[?2004h")).toBeGreaterThanOrEqual(0);
    expect(out.indexOf("\x1b[?2004h")).toBeLessThan(frameAt);
    expect(out.slice(0, inkAt)).not.toContain("\x1b[?2004l");
  });
});

describe.skipIf(!hasTmux)("TUI: the first frame before the UI loads (tmux)", { timeout: 60_000 }, () => {
  const { launch, startMock, waitFor } = tuiHarness({ name: "tandem-early" });

  // Fails if the frame is left on screen or in the scrollback (a second composer, "starting…"):
  // drawn at the pane's top-left corner, an "erase to the end of the screen" from there makes
  // tmux push the whole screen, frame included, into its history.
  it("leaves one composer on screen and none in the scrollback", async () => {
    const mock = await startMock({ steps: [{ output: [{ type: "message", text: "unused" }] }] });
    launch({ url: mock.url });
    // The header is written into the scrollback in a layout effect after Ink's first frame: wait
    // for both, or a capture between the two shows only the composer.
    const screen = await waitFor(/Type \/ for commands[\s\S]*Enter send[\s\S]*idle ·/);
    expect(screen).not.toContain("starting…");
    expect(screen.split("\n").filter((l) => l.includes("› ")).length).toBe(1);
    expect(screen.split("\n").filter((l) => l.startsWith("╭")).length).toBe(2); // header, composer
  });
});
