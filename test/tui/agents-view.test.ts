/**
 * The TUI's sub-agent list and transcript switch (README "Sub-agents"), on the whole app
 * (ink-testing-library), a real Runtime and the scripted model: `/agents` lists the parent's
 * sub-agent with its status (rebuilt live as the child finishes), Enter shows the child's
 * transcript, the composer still sends to the parent, Esc returns to the parent's transcript,
 * which continues with what arrived meanwhile.
 */
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { App } from "../../src/surfaces/tui/app.js";
import { TuiController } from "../../src/surfaces/tui/controller.js";
import { defaultKeymap } from "../../src/surfaces/tui/keymap.js";
import { CHILD, call, quietChild, say, spawnCall } from "../helpers/agent-scripts.js";
import { type Harness, harness } from "../helpers/index.js";
import { inAct, pressKeys } from "../helpers/ink-act.js";

const KEY = { enter: "\r", esc: "\x1b" };
const tick = (ms = 15) => new Promise((r) => setTimeout(r, ms));

let h0: Harness | undefined;
let ui: ReturnType<typeof render> | undefined;
let ctl: TuiController | undefined;
afterEach(async () => {
  ui?.unmount();
  ctl?.dispose();
  await h0?.close();
  ui = undefined;
  ctl = undefined;
  h0 = undefined;
});

async function start(script: Script) {
  h0 = await harness({ script });
  ctl = new TuiController(h0.runtime, { cwd: h0.cwd, mode: "default", keymap: defaultKeymap, frameMs: 5 });
  const thread = ctl.startNew();
  ui = render(h(App, { controller: ctl, keymap: defaultKeymap }));
  await inAct();
  return { h: h0, thread };
}

/** The live frame (scrollback writes end with a newline, Ink's live frames do not). */
const live = () => ui?.frames.findLast((f) => !f.endsWith("\n")) ?? "";
/** What was written to the terminal from frame `from` on. */
const since = (from: number) => ui?.frames.slice(from).join("") ?? "";
const type = (...keys: string[]) => pressKeys(ui!.stdin, ...keys);

async function until(pred: () => boolean, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; live frame:\n${live()}`);
    await tick();
  }
}

const count = (text: string, s: string) => text.split(s).length - 1;

describe("TUI: sub-agents list and transcript", () => {
  it("/agents lists the child with its status; Enter shows its transcript; Esc returns to the parent's", async () => {
    const { h, thread } = await start({
      steps: [
        { output: [spawnCall("TASK-B: list the files\nsecond line of the task", "sb")] },
        { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        { output: [say("parent done")] },
        { output: [say("second answer")], expect: { input_contains: ["sent from the child view"] } },
      ],
      side_steps: quietChild("TASK-B"),
    });
    const rootDone = (n: number) => () =>
      h.events.filter((s) => s.event.type === "turn.completed" && s.event.thread_id === thread.id).length >=
      n;
    await type("go", KEY.enter);
    await until(rootDone(1), "the parent's first turn");
    await until(() => live().includes("ask Tandem"), "the composer");

    await type("/agents", KEY.enter);
    await until(() => live().includes("Sub-agents of this thread"), "the picker");
    // fails if the picker does not show nickname, role, depth, status and the task's first line only
    expect(live()).toMatch(/Ada\s+default · depth 1 · completed · TASK-B: list the files/);
    expect(live()).not.toContain("second line of the task");

    const atSwitch = ui!.frames.length;
    await type(KEY.enter);
    await until(() => live().includes("viewing sub-agent Ada"), "the child's status line");
    // fails if the status line does not say how to go back and where the composer sends
    expect(live()).toContain("viewing sub-agent Ada — Esc/`/agents` to go back");
    expect(live()).toContain("messages you send go to the main thread");
    await until(() => since(atSwitch).includes("TASK-B finished"), "the child's final message");
    const childView = since(atSwitch);
    // fails if the child's transcript is not printed (banner, task) or the parent's is printed again
    expect(childView).toContain("Sub-agent Ada");
    expect(childView).toContain("task: TASK-B: list the files");
    expect(childView).not.toContain("parent done");
    // fails if the child's injected context shows as a user message
    expect(childView).not.toContain(CHILD);

    // The composer still sends to the parent; its reply is not drawn into the child's view.
    await type("sent from the child view", KEY.enter);
    await until(rootDone(2), "the parent's second turn");
    // fails if the composer sent to the child instead of the parent
    expect(JSON.stringify(h.model.requests.at(-1))).toContain("sent from the child view");
    expect(JSON.stringify(h.model.requests.at(-1))).not.toContain(CHILD);
    await tick(50);
    // fails if the parent's events are drawn while the child's transcript is shown
    expect(since(atSwitch)).not.toContain("second answer");

    const atBack = ui!.frames.length;
    await type(KEY.esc);
    await until(() => !live().includes("viewing sub-agent"), "the parent's status line");
    await until(() => since(atBack).includes("second answer"), "the parent's reply");
    const back = since(atBack);
    // fails if going back loses what the parent did meanwhile, or prints its transcript twice
    expect(back).toContain("back to the main thread (you viewed sub-agent Ada)");
    expect(back.indexOf("back to the main thread")).toBeLessThan(back.indexOf("sent from the child view"));
    expect(count(ui!.frames.join(""), "parent done")).toBe(1);
  });

  it("Ctrl+T opens the picker; it follows the child's status live (running → completed)", async () => {
    const { h } = await start({
      steps: [
        { output: [spawnCall("TASK-S: slow work", "ss")] },
        { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        { output: [say("parent done")] },
      ],
      side_steps: [
        {
          when: { input_contains: [CHILD, "TASK-S"] },
          output: [say("TASK-S finished")],
          delay_ms: 2500,
        },
      ],
    });
    await type("go", KEY.enter);
    await h.waitFor((e) => e.type === "turn.started" && !!h.runtime.agents.info(e.thread_id));
    // Ctrl+T (app.agents) opens the same picker as /agents.
    await type("\x14");
    // fails if the app.agents key does not open the picker
    await until(() => /Ada\s+default · depth 1 · running/.test(live()), "the running child in the picker");
    // fails if the picker is not rebuilt from the bus's events while it is open
    await until(() => /Ada\s+default · depth 1 · completed/.test(live()), "the status to change");
    expect(live()).toContain("Sub-agents of this thread");
    await type(KEY.esc);
    await until(() => !live().includes("Sub-agents of this thread"), "the picker to close");
  });

  it("a running child's view gets its live events (its final message arrives after the switch)", async () => {
    const { h } = await start({
      steps: [
        { output: [spawnCall("TASK-L: slow work", "sl")] },
        { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        { output: [say("parent done")] },
      ],
      side_steps: [
        // Slow enough that the child is still working when the view switches, even on a loaded machine.
        { when: { input_contains: [CHILD, "TASK-L"] }, output: [say("TASK-L live answer")], delay_ms: 6000 },
      ],
    });
    await type("go", KEY.enter);
    const started = await h.waitFor((e) => e.type === "turn.started" && !!h.runtime.agents.info(e.thread_id));
    await type("/agents", KEY.enter);
    await until(() => /Ada\s+default · depth 1 · running/.test(live()), "the running child in the picker");
    const atSwitch = ui!.frames.length;
    await type(KEY.enter);
    await until(() => live().includes("viewing sub-agent Ada"), "the child's view");
    // fails if the status line is not the child's (its thread, its state: working)
    expect(live()).toMatch(new RegExp(`working.* · thread ${started.thread_id}`));
    expect(since(atSwitch)).not.toContain("TASK-L live answer");
    // fails if the viewed child's live events are not fed to its view
    await until(() => since(atSwitch).includes("TASK-L live answer"), "the child's live message");
    await h.waitFor((e) => e.type === "turn.completed" && e.thread_id === ctl!.threadId);
    await tick(50);
    // fails if the parent's reply is drawn into the child's view
    expect(since(atSwitch)).not.toContain("parent done");
  });
});
