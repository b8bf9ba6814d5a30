/**
 * Terminal control sequences in untrusted text never reach the user's terminal (README, "What
 * reaches your terminal"). The attack: a scripted model whose reasoning, answer, a command's
 * output, an MCP tool's result and apply_patch file names carry OSC 52 (write the clipboard),
 * OSC 2 (set the window title), CSI screen/cursor sequences, an 8-bit C1 OSC and bidi overrides.
 *
 * - `tandem exec` (human output): stdout and stderr hold none of them; the command's own SGR
 *   colour is kept; the neutralised text is visible as symbols.
 * - `tandem exec --json`: the same values arrive exact (machine output; clients sanitise).
 * - the real TUI in tmux (its own tmux server, `set-clipboard on`): tmux got no clipboard
 *   buffer and no pane title, and the transcript shows the symbols. A control pane printing
 *   the same bytes raw proves this tmux would have taken both.
 *
 * Real processes throughout: ./bin/tandem, `tandem mock-model`, server-everything for MCP.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { jsonLines, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING, stdio } from "../helpers/mcp.js";
import { builtOrSourceTui, hasTmux, tuiHarness } from "../helpers/tui-harness.js";

const OSC52 = "\x1b]52;c;SGVsbG8=\x07";
const TITLE = "\x1b]2;pwned\x07";
const SCREEN = "\x1b[2J\x1b[H\x1b[?1049h\x1b[5A";
const C1_OSC = "\u009d2;pwned-c1\u0007";
const BIDI = "\u202e\u2066";
/** Everything an attacker would like to reach the terminal, in one string. */
const EVIL = `${OSC52}${TITLE}${SCREEN}${C1_OSC}${BIDI}`;
/** How EVIL shows once neutralised (src/util/terminal-text.ts). */
const SHOWN = "␛]52;c;SGVsbG8=␇␛]2;pwned␇␛[2J␛[H␛[?1049h␛[5A\ufffd2;pwned-c1␇⟪U+202E⟫⟪U+2066⟫";
/** The command's output: the same attack from a program, plus an SGR colour it may keep. */
// (It keeps running a moment, so the TUI's live area draws the output too.)
const PRINTF = String.raw`printf 'out:\033]52;c;SGVsbG8=\007\033]2;pwned\007\033[2J\033[31mred\033[0m\n'; sleep 1`;
const OUT_SHOWN = "out:␛]52;c;SGVsbG8=␇␛]2;pwned␇␛[2J\x1b[31mred\x1b[0m";
const ADDED = `evil${TITLE}${BIDI}.txt`;
const MISSING = `gone${OSC52}.txt`;

const patch = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");

function attackScript(opts: { mcp?: boolean } = {}): Script {
  return {
    steps: [
      // A provider error quoting its body: shown while the request is retried.
      { fault: { type: "http", status: 503, body: `overloaded ${EVIL}`, retry_after_ms: 2500 } },
      {
        token_delay_ms: 100,
        output: [
          // Text after the attack: the live area draws it while the rest streams.
          { type: "reasoning", summary: `thinking ${EVIL} and more` },
          { type: "function_call", name: "exec_command", arguments: { cmd: PRINTF }, call_id: "call_sh" },
        ],
      },
      {
        output: [
          {
            type: "custom_tool_call",
            name: "apply_patch",
            input: patch(`*** Add File: ${ADDED}`, "+hi"),
            call_id: "call_add",
          },
        ],
      },
      {
        output: [
          {
            type: "custom_tool_call",
            name: "apply_patch",
            input: patch(`*** Update File: ${MISSING}`, "@@", "-a", "+b"),
            call_id: "call_bad",
          },
        ],
      },
      ...(opts.mcp
        ? [
            {
              output: [
                {
                  type: "function_call" as const,
                  name: "mcp__everything__echo",
                  arguments: { message: `mcp ${EVIL}` },
                  call_id: "call_mcp",
                },
              ],
            },
          ]
        : []),
      // Streamed slowly: the live area draws the unfinished line.
      { token_delay_ms: 100, output: [{ type: "message", text: `answer ${EVIL} end` }] },
    ],
  };
}

/** Allowed SGR colour sequences (`ESC [ digits ; : m`), removed before looking for the rest. */
const SGR = /\x1b\[[0-9;:]*m/g;
/** What must never reach a terminal from untrusted text. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function firstUnsafe(text: string): string | undefined {
  const m = UNSAFE.exec(text.replace(SGR, ""));
  if (!m) return undefined;
  const at = m.index;
  return JSON.stringify(text.replace(SGR, "").slice(Math.max(0, at - 20), at + 20));
}

/** `tandem exec` with the prompt on stdin (it becomes the thread's title), against `script`. */
async function runExec(script: Script, json: boolean, home = tempDir("tandem-tt-home-")) {
  const mock = await startMockProcess(script);
  try {
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: mock.url };
    const args = ["exec", ...(json ? ["--json"] : []), "--skip-git-repo-check", "-"];
    const r = await runTandem(args, { env, input: `title ${EVIL}`, cwd: tempDir("tandem-tt-cwd-") });
    return { ...r, home, env };
  } finally {
    await mock.stop();
  }
}

describe("terminal control sequences from untrusted text", { timeout: 120_000 }, () => {
  // Fails if any renderer of `tandem exec`'s human output (answer, reasoning, command output,
  // file change lines, the patch error) writes a model's or a program's escape sequence raw.
  it("exec (human): stdout and stderr carry none of them; command colours stay", async () => {
    const r = await runExec(attackScript(), false);
    expect(r.code, r.stderr).toBe(0);
    expect(firstUnsafe(r.stdout), "stdout").toBeUndefined();
    expect(firstUnsafe(r.stderr), "stderr").toBeUndefined();
    // The answer is model text: no escape at all, SGR included.
    expect(r.stdout).not.toContain("\x1b");
    expect(r.stdout).toContain(`answer ${SHOWN} end`);
    expect(r.stderr).toContain(`thinking: thinking ${SHOWN}`);
    expect(r.stderr).toContain(OUT_SHOWN);
    expect(r.stderr).toContain("A evil␛]2;pwned␇⟪U+202E⟫⟪U+2066⟫.txt (+1 -0)");
    expect(r.stderr).toMatch(/apply_patch failed: .*gone␛\]52;c;SGVsbG8=␇\.txt/);
    expect(r.stderr).toContain(`overloaded ${SHOWN}`);
    // `tandem threads` lists the thread under its title: the prompt, which was untrusted too.
    const threads = await runTandem(["threads"], { env: r.env });
    expect(threads.code, threads.stderr).toBe(0);
    expect(firstUnsafe(threads.stdout), "tandem threads").toBeUndefined();
    expect(threads.stdout).toContain(`title ${SHOWN.slice(0, 40)}`);
  });

  // Fails if --json output is sanitised (it is machine output: clients get the exact text).
  it("exec --json: the same values arrive exact", async () => {
    const r = await runExec(attackScript(), true);
    expect(r.code, r.stderr).toBe(0);
    const items = jsonLines(r.stdout)
      .filter((e) => e.type === "item.completed")
      .map((e) => e.item);
    expect(items.find((i) => i.type === "agent_message").text).toBe(`answer ${EVIL} end`);
    expect(items.find((i) => i.type === "reasoning").text).toBe(`thinking ${EVIL} and more`);
    const sh = items.find((i) => i.type === "command_execution");
    expect(sh.aggregated_output).toBe("out:\x1b]52;c;SGVsbG8=\x07\x1b]2;pwned\x07\x1b[2J\x1b[31mred\x1b[0m");
    const changes = items.filter((i) => i.type === "file_change");
    expect(changes[0].changes[0].path).toContain(ADDED);
    expect(changes[1].error.message).toContain(MISSING);
    // JSON-escaped on the wire: the C0 controls as \u001b / \u0007, never raw bytes.
    expect(r.stdout).toContain("\\u001b]52;c;SGVsbG8=\\u0007");
    expect(r.stdout).not.toContain("\x1b");
  });
});

/** tmux on a server of this file's own: its clipboard and titles are ours to read. */
const SOCKET = `tandem-tt-${process.pid}`;
const tmux = (...args: string[]) =>
  spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" }) as { status: number; stdout: string };

const { launch, startMock, waitFor, literal, keys } = tuiHarness({
  name: "tandem-tt",
  command: builtOrSourceTui(),
  socket: SOCKET,
  height: 60,
});

/** Polls `fn` until it returns a value; throws saying what was awaited. */
async function until<T>(what: string, fn: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const buffers = () => tmux("list-buffers", "-F", "#{buffer_sample}").stdout;
const title = (target: string) => tmux("display", "-p", "-t", target, "#{pane_title}").stdout.trim();

describe.skipIf(!hasTmux)("terminal control sequences in the TUI (tmux)", { timeout: 180_000 }, () => {
  // Fails if the transcript (scrollback or live area) writes a model's, a program's or an MCP
  // server's escape sequence raw: tmux then holds "Hello" as a buffer or "pwned" as the title.
  it("tmux gets no clipboard write and no title; the transcript shows the symbols", async () => {
    const home = tempDir("tandem-tt-home-");
    // An earlier thread whose title (its first prompt) carries the attack, for the /resume picker.
    const earlier = await runExec({ steps: [{ output: [{ type: "message", text: "ok" }] }] }, false, home);
    expect(earlier.code, earlier.stderr).toBe(0);
    const mock = await startMock(attackScript({ mcp: true }));
    const everything = { ...stdio(EVERYTHING), startup_timeout_sec: 60 };
    writeFileSync(join(home, "config.toml"), stringify({ mcp_servers: { everything } }));
    launch({ url: mock.url, home });
    const session = `tandem-tt-${process.pid}-1`;
    tmux("set", "-g", "set-clipboard", "on");
    // The control: the same bytes printed raw in another pane of this server do reach tmux.
    const control = tmux(
      "split-window",
      "-d",
      "-P",
      "-F",
      "#{pane_id}",
      "-t",
      session,
      String.raw`printf '\033]52;c;Y29udHJvbA==\007\033]2;control-title\007'; sleep 60`,
    ).stdout.trim();
    await until("the control pane's clipboard write", () =>
      buffers().includes("control") ? true : undefined,
    );
    await until("the control pane's title", () => (title(control) === "control-title" ? true : undefined));
    tmux("kill-pane", "-t", control);
    tmux("delete-buffer");
    expect(buffers()).toBe("");

    await waitFor("ask Tandem to do something", 60_000);
    literal("go");
    keys("Enter");
    // The status line while the provider's error is retried.
    await waitFor(`overloaded ${SHOWN.slice(0, 30)}`);
    const screen = await waitFor(/done in [\d.]+m?s/, 90_000);
    expect(screen).toContain(`answer ${SHOWN} end`);
    expect(screen).toContain("thinking: thinking ␛]52;c;SGVsbG8=␇");
    expect(screen).toContain("out:␛]52;c;SGVsbG8=␇␛]2;pwned␇␛[2Jred");
    expect(screen).toContain("evil␛]2;pwned␇⟪U+202E⟫⟪U+2066⟫.txt");
    expect(screen).toContain("gone␛]52;c;SGVsbG8=␇.txt");
    expect(screen).toContain("Echo: mcp ␛]52;c;SGVsbG8=␇");
    literal("/resume");
    keys("Enter");
    await waitFor(`title ${SHOWN.slice(0, 30)}`);
    keys("Escape");
    expect(buffers(), "tmux clipboard buffers").toBe("");
    expect(title(session)).not.toContain("pwned");
  });
});
