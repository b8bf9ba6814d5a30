/**
 * End-to-end in a real terminal (issue 5): tmux runs `tandem` (the TUI) as a real process against
 * `tandem mock-model` as a real process (OPENAI_BASE_URL, OPENAI_API_KEY, a temp TANDEM_HOME).
 * Keys go in with `tmux send-keys`; what the user sees comes out of `capture-pane`; the scripted
 * model's request log shows what reached the model. Polls the pane instead of sleeping.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../src/mock-model/index.js";
import { BIN, type MockProcess, startMockProcess } from "./cli-helpers.js";
import { tempDir } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "..");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

/**
 * What runs in the pane: the built `./bin/tandem` when dist/ contains the TUI (`npm test` builds
 * first), else the sources through tsx (`src/surfaces/tui/dev-main.tsx`).
 */
function tuiCommand(): string[] {
  const dist = resolve(ROOT, "dist");
  const built =
    existsSync(dist) &&
    readdirSync(dist).some(
      (f) => f.endsWith(".js") && readFileSync(join(dist, f), "utf8").includes("function runTui"),
    );
  if (built && readFileSync(resolve(ROOT, "src/cli.ts"), "utf8").includes("runTui")) return [BIN];
  return [resolve(ROOT, "node_modules/.bin/tsx"), resolve(ROOT, "src/surfaces/tui/dev-main.tsx")];
}
const TUI = tuiCommand();

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

/** Starts the TUI in a fresh tmux session; the pane stays open after it exits (for the last lines). */
function launch(url: string | null, args: string[]): { home: string; cwd: string } {
  const home = tempDir("tandem-tui-home-");
  const cwd = tempDir("tandem-tui-cwd-");
  session = `tandem-tui-${process.pid}-${++n}`;
  const unset = ["CI", "CONTINUOUS_INTEGRATION", "OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"];
  const env = [`TANDEM_HOME=${q(home)}`, "TERM=xterm-256color"];
  if (url) env.push("OPENAI_API_KEY=test-key", `OPENAI_BASE_URL=${q(url)}`);
  const cmd = `cd ${q(ROOT)} && env ${unset.map((v) => `-u ${v}`).join(" ")} ${env.join(" ")} ${TUI.map(q).join(" ")} --cd ${q(cwd)} ${args.map(q).join(" ")}; echo "[exited $?]"; sleep 120`;
  tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", cmd);
  return { home, cwd };
}

/** The pane with its scrollback, wrapped lines joined. */
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
const requests = (log: string) =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

describe.skipIf(!hasTmux)("tandem TUI in tmux (real processes)", { timeout: 120_000 }, () => {
  it("answers a two-question batch (digit + free text with a note) and the model receives it", async () => {
    const script: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "request_user_input",
              call_id: "call_ask",
              arguments: {
                questions: [
                  {
                    id: "stack",
                    header: "Stack",
                    question: "Which stack should we use?",
                    options: [
                      { label: "TypeScript (Recommended)", description: "Node 20" },
                      { label: "Rust", description: "cargo" },
                    ],
                  },
                  { id: "name", header: "Name", question: "What is the project called?" },
                ],
              },
            },
          ],
        },
        {
          expect: { input_contains: ['"selected":["Rust"]', '"other":"tui-e2e"', '"note":"from tmux"'] },
          output: [{ type: "message", text: "Thanks — using **Rust** for tui-e2e." }],
        },
      ],
    };
    mock = await startMockProcess(script);
    launch(mock.url, ["--mode", "plan"]);
    await waitFor("ask Tandem to do something");
    literal("plan a project");
    keys("Enter");
    await waitFor("Which stack should we use?");
    expect(pane()).toContain("waiting on you");
    keys("2");
    await waitFor("2. (•) Rust");
    keys("Enter");
    await waitFor("Question 2/2");
    literal("tui-e2e");
    keys("Tab");
    literal("from tmux");
    await waitFor("Note: from tmux");
    keys("Enter");
    const screen = await waitFor("Thanks — using Rust for tui-e2e.");
    expect(screen).toContain("Questions — answered by tui");
    expect(screen).toContain("→ Rust");
    expect(screen).toContain("→ “tui-e2e” · note: from tmux");
    expect(screen).toContain("› plan a project");
    await waitFor(/done in [\d.]+m?s/);
    const log = requests(mock.log);
    expect(log).toHaveLength(2);
    const output = log[1].input.find((i: { type: string }) => i.type === "function_call_output");
    expect(JSON.parse(output.output)).toMatchObject({
      status: "answered",
      answers: { stack: { selected: ["Rust"] }, name: { selected: [], other: "tui-e2e", note: "from tmux" } },
    });
    keys("C-c");
    keys("C-c");
    await waitFor(/continue with: tandem --resume \S+/);
    await waitFor("[exited 0]");
  });

  it("steers mid-turn with Enter and interrupts with Esc", async () => {
    const script: Script = {
      steps: [
        { output: [{ type: "message", text: `First answer. ${"alpha ".repeat(150)}` }], token_delay_ms: 15 },
        {
          expect: { input_contains: ["use tabs instead"] },
          output: [{ type: "message", text: `Steer received. ${"beta ".repeat(600)}` }],
          token_delay_ms: 25,
        },
      ],
    };
    mock = await startMockProcess(script);
    launch(mock.url, []);
    await waitFor("ask Tandem to do something");
    literal("write a long answer");
    keys("Enter");
    await waitFor("First answer.");
    literal("use tabs instead");
    keys("Enter");
    await waitFor("(queued — sent before the next model request)");
    await waitFor("Steer received.");
    expect(pane()).toContain("› use tabs instead");
    keys("Escape");
    const screen = await waitFor("■ Interrupted");
    expect(screen).not.toContain("(queued");
    await waitFor("ask Tandem to do something");
    const log = requests(mock.log);
    expect(log).toHaveLength(2);
    expect(JSON.stringify(log[1].input)).toContain("use tabs instead");
  });

  it("without an API key says so, names the variable and asks before running the demo", async () => {
    launch(null, []);
    await waitFor("no API key — set OPENAI_API_KEY");
    await waitFor("Run the offline demo instead?");
    literal("n");
    keys("Enter");
    await waitFor("[exited 1]");
    expect(pane()).toContain("Nothing started.");

    spawnSync("tmux", ["kill-session", "-t", session!]);
    launch(null, []);
    await waitFor("Run the offline demo instead?");
    literal("y");
    keys("Enter");
    await waitFor("DEMO — scripted model, no API key");
    await waitFor("Which stack should the demo project use?");
    keys("1");
    keys("Enter");
    literal("demo-app");
    keys("Enter");
    await waitFor("Created README.md for the demo project.");
    keys("C-c");
    keys("C-c");
    await waitFor("[exited 0]");
  });
});
