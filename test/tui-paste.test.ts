/**
 * Bracketed paste end to end (issue 5, composer "paste"): tmux runs the built `tandem` TUI
 * against `tandem mock-model`; `tmux paste-buffer -p` sends the buffer wrapped in
 * `ESC[200~ … ESC[201~` because the TUI turned the mode on. The block must land in the composer
 * literally (newlines kept, not submitted, a `\` + newline kept, a leading `/` not a command) and
 * reach the scripted model unchanged in the next request. After the exit the mode is off again.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
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

function launch(url: string): void {
  const home = tempDir("tandem-paste-home-");
  const cwd = tempDir("tandem-paste-cwd-");
  session = `tandem-paste-${process.pid}-${++n}`;
  const unset = ["CI", "CONTINUOUS_INTEGRATION", "OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"];
  const env = [
    `TANDEM_HOME=${q(home)}`,
    "TERM=xterm-256color",
    "OPENAI_API_KEY=test-key",
    `OPENAI_BASE_URL=${q(url)}`,
  ];
  const cmd = `cd ${q(ROOT)} && env ${unset.map((v) => `-u ${v}`).join(" ")} ${env.join(" ")} ${q(BIN)} --cd ${q(cwd)}; echo "[exited $?]"; cat -v; sleep 120`;
  tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "50", cmd);
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
/** Pastes `text` the way a terminal does (bracketed, since the app asked for it). */
function paste(text: string): void {
  const buffer = `tandem-paste-${process.pid}`;
  tmux("set-buffer", "-b", buffer, "--", text);
  tmux("paste-buffer", "-p", "-d", "-b", buffer, "-t", session!);
}
const requests = (log: string) =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
    : [];
/** The text of the last user message of a logged request. */
function lastUserText(request: { input: Array<Record<string, unknown>> }): string {
  const msgs = request.input.filter((i) => i.type === "message" && i.role === "user");
  const content = msgs[msgs.length - 1].content as Array<{ text?: string }> | string;
  return typeof content === "string" ? content : content.map((c) => c.text ?? "").join("");
}

const reply = (text: string): Script["steps"][number] => ({ output: [{ type: "message", text }] });

describe.skipIf(!hasTmux || !built)("bracketed paste in tmux (real processes)", { timeout: 120_000 }, () => {
  it("a pasted multi-line block is inserted literally and reaches the model intact", async () => {
    mock = await startMockProcess({ steps: [reply("Pasted block received."), reply("Big one received.")] });
    launch(mock.url);
    await waitFor("ask Tandem to do something");
    const block = ["first line", "  indented \\", "/not a command", "\tsecond\ttabbed", "", "last line"].join(
      "\n",
    );
    literal("Review this: ");
    paste(block);
    await waitFor("last line");
    const screen = pane();
    expect(screen).toContain("› Review this: first line");
    expect(screen).toContain("  indented \\");
    expect(screen).toContain("/not a command");
    // Nothing was sent: the newlines of the paste are not Enter.
    await new Promise((r) => setTimeout(r, 300));
    expect(requests(mock.log)).toHaveLength(0);
    expect(pane()).not.toContain("unknown command");
    keys("Enter");
    await waitFor("Pasted block received.");
    const log = requests(mock.log);
    expect(log).toHaveLength(1);
    expect(lastUserText(log[0])).toBe(`Review this: ${block}`);

    // A large paste shows compactly and is expanded on submit.
    await waitFor(/done in [\d.]+m?s/);
    const big = Array.from({ length: 40 }, (_, i) => `row ${i + 1}: ${"x".repeat(i % 7)}`).join("\n");
    paste(big);
    await waitFor("[pasted 40 lines]");
    expect(pane()).not.toContain("row 39:");
    keys("Enter");
    await waitFor("Big one received.");
    const log2 = requests(mock.log);
    expect(log2).toHaveLength(2);
    expect(lastUserText(log2[1])).toBe(big);
    keys("C-c");
    keys("C-c");
    await waitFor("[exited 0]");
    // The mode is off again: `cat -v` after the exit sees a plain paste, no ^[[200~ markers.
    paste("after-exit");
    keys("Enter");
    const after = await waitFor(/after-exit\s*\n\s*after-exit/);
    expect(after).not.toContain("[200~");
  });
});
