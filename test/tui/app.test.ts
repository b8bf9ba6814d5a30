/**
 * The whole TUI app (ink-testing-library) on a real Runtime, real SQLite and the scripted model
 * over real HTTP: the question round trip through the overlay, secrets, snooze, answered
 * elsewhere, decline, steer + interrupt, and the slash commands.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { Scripts } from "../../src/mock-model/index.js";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { App } from "../../src/surfaces/tui/app.js";
import { TuiController } from "../../src/surfaces/tui/controller.js";
import { defaultKeymap } from "../../src/surfaces/tui/keymap.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";
import { inAct, pressKeys } from "../helpers/ink-act.js";

const KEY = { enter: "\r", esc: "\x1b", tab: "\t" };
/** Poll interval of `until` (a condition wait with a deadline), never a wait on its own. */
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

async function start(script: Script, opts: { overrides?: string[]; mode?: "plan" | "default" } = {}) {
  h0 = await harness({ script, overrides: opts.overrides });
  ctl = new TuiController(h0.runtime, {
    cwd: h0.cwd,
    mode: opts.mode ?? "plan",
    keymap: defaultKeymap,
    frameMs: 5,
  });
  const thread = ctl.startNew();
  ui = render(h(App, { controller: ctl, keymap: defaultKeymap }));
  await inAct(); // the mount's effects attach the input handlers before the first key
  return { h: h0, ui, ctl, thread };
}

async function until(pred: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; live frame:\n${live()}`);
    await tick(15);
  }
}
/** Everything written to the terminal so far (the transcript goes to the scrollback, not the live frame). */
const screen = () => ui?.frames.join("") ?? "";
const frameHas = (s: string) => () => screen().includes(s);
/**
 * The live frame (composer, overlay, status line). In ink-testing-library's debug mode, scrollback
 * writes are frames of their own and always end with a newline; Ink's live frames do not.
 */
const live = () => ui?.frames.findLast((f) => !f.endsWith("\n")) ?? "";
const liveHas = (s: string) => () => live().includes(s);

/**
 * Each key is fully processed (renders and effects, test/helpers/ink-act.ts) before the next, instead of
 * a fixed 20 ms tick a busy machine outruns. Fails if a key reaches a stale input handler.
 */
const type = (...keys: string[]) => pressKeys(ui!.stdin, ...keys);

describe("tui app on the real runtime", () => {
  it("answers a two-question batch: digit + free text with a note; the model gets the answers", async () => {
    const { h, thread } = await start(Scripts.questionDemo());
    await type("make a project", KEY.enter);
    await until(frameHas("Which stack should the demo project use?"), "the overlay");
    await until(liveHas("waiting on you"), "the status line");
    // The locked composer is hidden while the overlay shows (its rows go to the overlay).
    expect(live()).not.toContain("ask Tandem to do something");
    await type("2", KEY.enter, "tandem-demo", KEY.tab, "lowercase please", KEY.enter);
    await h.waitFor((e) => e.type === "turn.completed");
    await until(frameHas("Created README.md"), "the final message");
    const answered = h.events.find((s) => s.event.type === "question.answered")!.event;
    expect(answered).toMatchObject({ responder: { kind: "tui" } });
    const second = JSON.stringify(h.model.requests[1]);
    expect(second).toContain('\\"selected\\":[\\"Rust\\"]');
    expect(second).toContain("tandem-demo");
    expect(second).toContain("lowercase please");
    const f = screen();
    expect(f).toContain("Questions — answered by tui");
    expect(f).toContain("→ Rust");
    expect(f).toContain("→ “tandem-demo” · note: lowercase please");
    expect(f).toContain("$ printf '# Demo\\n' > README.md");
    expect(existsSync(join(thread.record.cwd, "README.md"))).toBe(true);
  });

  it("Esc declines; the model is told it was declined", async () => {
    const { h } = await start(Scripts.questionDemo());
    await type("go", KEY.enter);
    await until(frameHas("Which stack"), "the overlay");
    await type(KEY.esc);
    await h.waitFor((e) => e.type === "turn.completed");
    expect(h.events.find((s) => s.event.type === "question.declined")!.event).toMatchObject({
      responder: { kind: "tui" },
    });
    expect(JSON.stringify(h.model.requests[1])).toContain('\\"status\\":\\"declined\\"');
    await until(frameHas("declined by tui"), "the history entry");
  });

  it("masks a secret answer on screen and in history; the model sees only a handle", async () => {
    const script: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "request_user_input",
              call_id: "call_s",
              arguments: {
                questions: [{ id: "api_key", header: "Key", question: "Paste the API key", secret: true }],
              },
            },
          ],
        },
        { output: [{ type: "message", text: "Stored." }] },
      ],
    };
    const { h } = await start(script);
    await type("need a key", KEY.enter);
    await until(frameHas("Paste the API key"), "the overlay");
    await type("sk-supersecret", KEY.enter);
    await h.waitFor((e) => e.type === "turn.completed");
    await until(frameHas("Stored."), "the reply");
    const f = screen();
    expect(f).not.toContain("sk-supersecret");
    expect(f).toContain("→ ••••");
    const second = JSON.stringify(h.model.requests[1]);
    expect(second).not.toContain("sk-supersecret");
    expect(second).toContain("TANDEM_SECRET");
  });

  it("shows the countdown of a timeout policy and snoozes it on keys (throttled touch)", async () => {
    const { h } = await start(Scripts.questionDemo(), {
      overrides: ['questions.policy={type="timeout", ms=60000, on_timeout="recommended"}'],
    });
    await type("go", KEY.enter);
    await until(frameHas("s left, then the recommended option is used"), "the countdown");
    await type("\x1b[B", "\x1b[A", "\x1b[B");
    await h.waitFor((e) => e.type === "question.deadline_changed");
    const changes = h.events.filter((s) => s.event.type === "question.deadline_changed");
    expect(changes).toHaveLength(1);
  });

  it("says 'answered elsewhere' when another surface wins, then unlocks the composer", async () => {
    const { h, thread } = await start(Scripts.questionDemo());
    await type("go", KEY.enter);
    await until(frameHas("Which stack"), "the overlay");
    const [request] = h.runtime.questions.list({ threadId: thread.id });
    const r = h.runtime.questions.reply(
      thread.id,
      request.request_id,
      { answers: { stack: { selected: ["Rust"] }, name: { selected: [], other: "web" } } },
      { kind: "http" },
    );
    expect(r.ok).toBe(true);
    await until(frameHas("Answered elsewhere (by http)."), "the notice");
    await type(" ");
    await until(() => !live().includes("Answered elsewhere (by http)."), "dismissal");
    await h.waitFor((e) => e.type === "turn.completed");
    await until(liveHas("ask Tandem to do something"), "the unlocked composer");
    expect(screen()).toContain("answered by http");
  });

  it("Enter while running queues a steer shown as queued until it lands; Esc interrupts", async () => {
    const script: Script = {
      steps: [
        { output: [{ type: "message", text: `First answer. ${"word ".repeat(60)}` }], token_delay_ms: 10 },
        {
          output: [{ type: "message", text: `Steer received. ${"word ".repeat(400)}` }],
          token_delay_ms: 20,
          expect: { input_contains: ["use tabs instead"] },
        },
      ],
    };
    const { h } = await start(script, { mode: "default" });
    await type("write something", KEY.enter);
    await h.waitFor((e) => e.type === "agent_message.delta");
    await type("use tabs instead", KEY.enter);
    await until(frameHas("(queued — sent before the next model request)"), "the queued steer");
    await h.waitFor(
      (e) =>
        e.type === "item.completed" && e.item.type === "user_message" && e.item.text === "use tabs instead",
    );
    await until(() => !live().includes("(queued"), "the steer to land");
    await until(frameHas("Steer received."), "the second answer");
    await type(KEY.esc);
    const done = await h.waitFor((e) => e.type === "turn.completed");
    expect(done).toMatchObject({ status: "interrupted" });
    await until(frameHas("■ Interrupted"), "the interrupted marker");
  });

  it("runs slash commands: /default, /new, /threads, /resume ID, /help and unknown ones", async () => {
    const { h, thread } = await start(
      { steps: [{ output: [{ type: "message", text: "Noted." }] }] },
      { mode: "plan" },
    );
    expect(live()).toContain("plan mode");
    await type("/default", KEY.enter);
    await until(liveHas("default mode"), "mode switch");
    await type("/plan", KEY.enter);
    await until(frameHas("Plan mode: the model plans"), "mode switch back");
    // A thread is stored with its first input (README "Use it"): give it one so /resume finds it.
    await type("remember this", KEY.enter);
    await h.waitFor((e) => e.type === "turn.completed");
    await type("/new", KEY.enter);
    await until(() => ctl!.threadId !== thread.id, "a new thread");
    await until(frameHas(ctl!.threadId), "the new id on the status line");
    await type("/threads", KEY.enter);
    await until(
      frameHas("Threads (/resume ID to open one; the ID's last characters are enough):"),
      "the thread list",
    );
    await until(frameHas(thread.id.slice(-8)), "the listed thread by its short id");
    // The short id the list shows (the random end of the id) is enough to resume.
    await type(`/resume ${thread.id.slice(-8)}`, KEY.enter);
    await until(() => ctl!.threadId === thread.id, "the resumed thread");
    await until(frameHas(`Resumed thread ${thread.id}`), "the resume notice");
    await type("/bogus", KEY.enter);
    await until(frameHas("unknown command /bogus"), "the error");
    await type("/help", KEY.enter);
    await until(frameHas("Keys are configurable"), "help");
    expect(runtimeInternals(h.runtime).responders.has(thread.id)).toBe(true);
  });

  it("resumes a thread whose question was pending when the last process ended (Q11)", async () => {
    const home = tempDir("tandem-tui-home-");
    const cwd = tempDir("tandem-tui-cwd-");
    const first = await harness({ script: Scripts.questionDemo(), home, cwd });
    const c1 = new TuiController(first.runtime, { cwd, mode: "plan", keymap: defaultKeymap, frameMs: 5 });
    const thread = c1.startNew();
    const ui1 = render(h(App, { controller: c1, keymap: defaultKeymap }));
    thread.startTurn("make a project", { options: { mode: "plan" } });
    await first.waitFor((e) => e.type === "question.requested");
    ui1.unmount();
    c1.dispose();
    await first.close(); // shutdown leaves the question pending in the store

    const rest = Scripts.questionDemo();
    const second = await harness({ script: { ...rest, steps: rest.steps.slice(1) }, home, cwd });
    h0 = second;
    ctl = new TuiController(second.runtime, { cwd, mode: "default", keymap: defaultKeymap, frameMs: 5 });
    ctl.resume(thread.id);
    ui = render(h(App, { controller: ctl, keymap: defaultKeymap }));
    await inAct();
    await until(liveHas("Which stack should the demo project use?"), "the re-asked question");
    expect(screen()).toContain(`Resumed thread ${thread.id}`);
    expect(screen()).toContain("› make a project");
    await type("1", KEY.enter, "late-answer", KEY.enter);
    const done = await second.waitFor((e) => e.type === "turn.completed");
    expect(done).toMatchObject({ status: "completed" });
    await until(frameHas("Created README.md"), "the final message");
    expect(JSON.stringify(second.model.requests[0])).toContain("late-answer");
  });
});
