/**
 * End-to-end in a real terminal (README "The terminal UI"): tmux runs `tandem` (the TUI) as a real process against
 * `tandem mock-model` as a real process (OPENAI_BASE_URL, OPENAI_API_KEY, a temp TANDEM_HOME).
 * Keys go in with `tmux send-keys`; what the user sees comes out of `capture-pane`; the scripted
 * model's request log shows what reached the model. Polls the pane instead of sleeping.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

/** The built `./bin/tandem` when dist/ contains the TUI, else the sources through tsx. */
const { launch, kill, startMock, pane, waitFor, keys, literal } = tuiHarness({
  name: "tandem-tui",
  command: builtOrSourceTui(),
});

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
    const mock = await startMock(script);
    launch({ url: mock.url, args: ["--mode", "plan"] });
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
    const mock = await startMock(script);
    launch({ url: mock.url });
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
    launch({ url: null });
    await waitFor("no API key — set OPENAI_API_KEY");
    await waitFor("Run the offline demo instead?");
    literal("n");
    keys("Enter");
    await waitFor("[exited 1]");
    expect(pane()).toContain("Nothing started.");

    kill();
    launch({ url: null });
    await waitFor("Run the offline demo instead?");
    literal("y");
    keys("Enter");
    await waitFor("DEMO — scripted model, no API key");
    const banner = await waitFor("workspace: ");
    const workspace = /workspace: (\S+)/.exec(banner)?.[1];
    await waitFor("Which stack should the demo project use?");
    // Fails if the scripted model ignores the answer ({{answer:…}} not filled): Rust → cargo files.
    keys("2");
    keys("Enter");
    literal("Demo App");
    keys("Enter");
    await waitFor("Created demo-app as a Rust project");
    expect(workspace).toBeTruthy();
    expect(readFileSync(join(workspace!, "Cargo.toml"), "utf8")).toContain('name = "demo-app"');
    expect(existsSync(join(workspace!, "src/main.rs"))).toBe(true);
    expect(existsSync(join(workspace!, "package.json"))).toBe(false);
    // Fails if a message after the script's end is an error (or two) instead of one friendly answer.
    literal("and now?");
    keys("Enter");
    const ended = await waitFor("set OPENAI_API_KEY to continue with a real model");
    expect(ended.split("The scripted demo has ended").length - 1).toBe(1);
    expect(ended).not.toMatch(/error|exhausted/i);
    keys("C-c");
    keys("C-c");
    await waitFor("[exited 0]");
  });
});
