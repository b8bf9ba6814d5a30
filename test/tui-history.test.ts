/**
 * Composer history across restarts, end to end: tmux runs the built `tandem` TUI against
 * `tandem mock-model`. A prompt submitted in one run is recalled with ↑ after a restart (from
 * `$TANDEM_HOME/history.jsonl`, mode 0600), and a resumed thread's user messages are in ↑/↓
 * history even when the history file is gone.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../src/mock-model/index.js";
import { BIN, type MockProcess, startMockProcess } from "./cli-helpers.js";
import { tempDir } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "..");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const built = existsSync(resolve(ROOT, "dist/cli.js"));
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

let mock: MockProcess | undefined;
let session: string | undefined;
let n = 0;

afterEach(async () => {
  if (session) spawnSync("tmux", ["kill-session", "-t", session]);
  session = undefined;
  await mock?.stop();
  mock = undefined;
});

function launch(url: string, home: string, cwd: string, args: string[] = []): void {
  if (session) spawnSync("tmux", ["kill-session", "-t", session]);
  session = `tandem-history-${process.pid}-${++n}`;
  const unset = ["CI", "CONTINUOUS_INTEGRATION", "OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"];
  const env = [
    `TANDEM_HOME=${q(home)}`,
    "TERM=xterm-256color",
    "OPENAI_API_KEY=test-key",
    `OPENAI_BASE_URL=${q(url)}`,
  ];
  const cmd = `cd ${q(ROOT)} && env ${unset.map((v) => `-u ${v}`).join(" ")} ${env.join(" ")} ${q(BIN)} --cd ${q(cwd)} ${args.map(q).join(" ")}; echo "[exited $?]"; sleep 120`;
  tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", cmd);
}

const pane = () => tmux("capture-pane", "-p", "-J", "-S", "-500", "-t", session!);
async function waitFor(text: string | RegExp, ms = 30_000): Promise<string> {
  const end = Date.now() + ms;
  let last = "";
  while (Date.now() < end) {
    last = pane();
    if (typeof text === "string" ? last.includes(text) : text.test(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pane never showed ${String(text)}; last capture:\n${last}`);
}
const keys = (...k: string[]) => tmux("send-keys", "-t", session!, ...k);
const literal = (text: string) => tmux("send-keys", "-t", session!, "-l", text);
/** The composer (inside its rounded border) showing `text` on its first line. */
const inComposer = (text: string) => new RegExp(`│ › ${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*│`);

async function quit(): Promise<string> {
  keys("C-c");
  keys("C-c");
  return waitFor(/continue with: tandem --resume (\S+)/);
}

const reply = (text: string): Script["steps"][number] => ({ output: [{ type: "message", text }] });

describe.skipIf(!hasTmux || !built)("composer history across restarts (tmux)", { timeout: 120_000 }, () => {
  it("finds a prompt from the previous run with ↑, and a resumed thread's messages", async () => {
    mock = await startMockProcess({ steps: [reply("First reply."), reply("Second reply.")] });
    const home = tempDir("tandem-history-home-");
    const cwd = tempDir("tandem-history-cwd-");

    launch(mock.url, home, cwd);
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
    launch(mock.url, home, cwd);
    await waitFor("ask Tandem to do something");
    keys("Up");
    await waitFor(inComposer("and the green door"));
    keys("Up");
    await waitFor(inComposer("remember the blue lighthouse"));
    keys("Down");
    keys("Down");
    await waitFor("ask Tandem to do something");
    await quit();
    await waitFor("[exited 0]");

    // Without the file, a resumed thread still brings its own messages into history.
    rmSync(file);
    launch(mock.url, home, cwd, ["--resume", id]);
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
