/**
 * README "Sub-agents" ("How we will know"), in a real terminal: tmux runs the built `./bin/tandem` TUI
 * against `tandem mock-model` (temp TANDEM_HOME, real processes). The parent spawns Ada and
 * Babbage in parallel; both ask a question at once. The root's overlay shows one of them naming
 * the sub-agent, with the other queued; the user answers with the keyboard (option 2 for the first
 * shown, option 1 for the second), the other then appears naming the other sub-agent, and the
 * parent's wait_agent returns both children's answers — the parent's final message is scripted
 * only for a request carrying exactly those answers. tui-harness.ts kills the tmux session and
 * stops the mock after each test.
 */
import { describe, expect, it } from "vitest";
import { askingChild, CHILD, call, outputOf, say, spawnCall } from "../helpers/agent-scripts.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, pane, waitFor, keys, literal } = tuiHarness({
  name: "tandem-tui-agents",
  command: builtOrSourceTui(),
});

/** The machine is shared and loaded: every wait is generous. */
const LONG = 90_000;

/** What each child ends with, per answer (askingChild: "TASK-X done: <label>"). */
const done = (marker: string, label: string) => `${marker} done: ${label}`;

const script = {
  steps: [
    { output: [spawnCall("TASK-A: pick for A", "sa"), spawnCall("TASK-B: pick for B", "sb")] },
    { output: [call("wait_agent", { ids: ["Ada", "Babbage"] }, "w1")] },
    // Reached only when neither side step below matched: the answers got lost or crossed.
    { output: [say("PARENT-GOT-WRONG-ANSWERS")] },
  ],
  side_steps: [
    // The parent's final request, for either order the questions may be shown in. Never matches a
    // child's request: a child only sees its own answer, never "done:" lines.
    {
      when: { input_contains: [done("TASK-A", "Beta"), done("TASK-B", "Alpha")] },
      output: [say("PARENT-FINAL: Ada chose Beta, Babbage chose Alpha")],
    },
    {
      when: { input_contains: [done("TASK-A", "Alpha"), done("TASK-B", "Beta")] },
      output: [say("PARENT-FINAL: Ada chose Alpha, Babbage chose Beta")],
    },
    ...askingChild("TASK-A", "qa"),
    ...askingChild("TASK-B", "qb"),
  ],
};

/** What the screen shows from the last `marker` on. */
const after = (screen: string, marker: string) => screen.slice(screen.lastIndexOf(marker));

describe.skipIf(!hasTmux)("TUI in tmux: two sub-agents ask at once", { timeout: 300_000 }, () => {
  it("both questions reach the parent's TUI attributed; answered in turn, each child gets its own answer and wait_agent returns both", async () => {
    const t0 = Date.now();
    const mock = await startMock(script);
    launch({ url: mock.url, args: ["--mode", "plan"] });
    await waitFor("ask Tandem to do something", LONG);
    literal("ask both helpers");
    keys("Enter");

    // fails if a child's question is not routed to the root thread's TUI, or if the second
    // concurrent question replaces the first instead of queueing behind it ("1 more waiting")
    const both = await waitFor(
      /asked by sub-agent (Ada|Babbage)[\s\S]*\(1 more waiting\)|\(1 more waiting\)[\s\S]*asked by sub-agent (Ada|Babbage)/,
      LONG,
    );
    const first = /asked by sub-agent (Ada|Babbage)/.exec(both)![1] as "Ada" | "Babbage";
    const second = first === "Ada" ? "Babbage" : "Ada";
    const task = { Ada: "TASK-A", Babbage: "TASK-B" } as const;
    // fails if the overlay drops the attribution (role, depth, the task's text)
    expect(both).toContain(`asked by sub-agent ${first} (default, depth 1) · task: ${task[first]}: pick for`);
    expect(both).toContain(`${task[first]}: which one?`);
    const seenBoth = Date.now();

    keys("2"); // first shown → option 2 (Beta)
    await waitFor("2. (•) Beta", LONG);
    keys("Enter");

    // fails if answering one child's question also settles (or loses) the other one's
    const next = await waitFor(`asked by sub-agent ${second} (default, depth 1)`, LONG);
    expect(next).toContain(`${task[second]}: which one?`);
    keys("1"); // second shown → option 1 (Alpha)
    await waitFor("1. (•) Alpha", LONG);
    keys("Enter");

    // fails if an answer reaches the wrong child (the side step for the crossed answers, or the
    // fallback step, would answer instead) or wait_agent returns before both children finished
    const want =
      first === "Ada"
        ? "PARENT-FINAL: Ada chose Beta, Babbage chose Alpha"
        : "PARENT-FINAL: Ada chose Alpha, Babbage chose Beta";
    const screen = await waitFor(want, LONG);
    expect(screen).not.toContain("PARENT-GOT-WRONG-ANSWERS");
    await waitFor(/done in [\d.]+m?s/, LONG);

    // What reached the model: each child's tool output holds its own answer; the parent's
    // wait_agent output holds both children's final messages.
    const log = requests(mock.log);
    const childAnswer = (marker: string) => {
      const body = log.find((b) => {
        const text = JSON.stringify(b.input);
        return text.includes(CHILD) && text.includes(marker) && text.includes("function_call_output");
      });
      const out = body?.input.find((i: { type: string }) => i.type === "function_call_output");
      return out && JSON.parse(out.output);
    };
    const label = (who: "Ada" | "Babbage") => (who === first ? "Beta" : "Alpha");
    expect(childAnswer("TASK-A")).toMatchObject({ answers: { qa: { selected: [label("Ada")] } } });
    expect(childAnswer("TASK-B")).toMatchObject({ answers: { qb: { selected: [label("Babbage")] } } });
    const waited = JSON.stringify(outputOf(log, "w1"));
    expect(waited).toContain(done("TASK-A", label("Ada")));
    expect(waited).toContain(done("TASK-B", label("Babbage")));
    expect(pane()).toContain("› ask both helpers");
    // The TUI drew that result as a card: each child with its state and final message, no JSON.
    const card = after(pane(), "◇ Sub-agents finished");
    expect(card).toMatch(/● Ada \(\w+\) · completed\n\s+TASK-A done/);
    expect(card).toMatch(/● Babbage \(\w+\) · completed\n\s+TASK-B done/);
    expect(card).not.toContain("final_message");
    console.log(
      `tui-agents-tmux: both questions on screen after ${seenBoth - t0} ms, done after ${Date.now() - t0} ms (first shown: ${first})`,
    );
  });
});
