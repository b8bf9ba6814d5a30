/**
 * Component tests of the question overlay (requirements Q16, README "The terminal UI") with ink-testing-library: every
 * key path, multi-question confirmation, secret masking, countdown + snooze, broker errors, and
 * "answered elsewhere" through the real view store.
 */
import { render } from "ink-testing-library";
import { createElement as h, useSyncExternalStore } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { QuestionRequest } from "../../src/protocol/questions.js";
import { defaultKeymap } from "../../src/surfaces/tui/keymap.js";
import { type ActionResult, QuestionOverlay, QuestionPane } from "../../src/surfaces/tui/overlay.js";
import {
  featuresQuestion,
  nameQuestion,
  requestOf,
  stackQuestion,
  tokenQuestion,
} from "../../src/surfaces/tui/test-fixtures.js";
import { ViewStore } from "../../src/surfaces/tui/view-store.js";
import { inAct, pressKeys } from "../helpers/ink-act.js";

const KEY = {
  enter: "\r",
  esc: "\x1b",
  tab: "\t",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  bs: "\x7f",
};
type Instance = ReturnType<typeof render>;
let instance: Instance | undefined;
afterEach(() => {
  instance?.unmount();
  instance = undefined;
});

/**
 * Renders, then lets the mount's effects run (they attach the input handlers) before any key.
 * Keys go through pressKeys (test/helpers/ink-act.ts): each is fully processed before the next, with no
 * fixed tick. Fails if a key is written before the previous one's effects ran (stale handlers).
 */
async function mountNode(node: Parameters<typeof render>[0]): Promise<Instance> {
  instance = render(node);
  await inAct();
  return instance;
}

const press = (i: Instance, ...keys: string[]) => pressKeys(i.stdin, ...keys);

async function mount(
  request: QuestionRequest,
  over: Partial<{ submit: ActionResult; now: () => number }> = {},
) {
  const onSubmit = vi.fn((_r: QuestionRequest, _reply: unknown): ActionResult => over.submit ?? { ok: true });
  const onDecline = vi.fn((_r: QuestionRequest): ActionResult => ({ ok: true }));
  const onTouch = vi.fn();
  const i = await mountNode(
    h(QuestionOverlay, { request, keymap: defaultKeymap, onSubmit, onDecline, onTouch, now: over.now }),
  );
  return { i, onSubmit, onDecline, onTouch };
}

describe("question overlay (component)", () => {
  it("shows options with descriptions, Other and Note, and the key hints", async () => {
    const { i } = await mount(requestOf([stackQuestion, nameQuestion]));
    const f = i.lastFrame()!;
    expect(f).toContain("Question 1/2");
    expect(f).toContain("1. ( ) TypeScript (Recommended)");
    expect(f).toContain("Node 20, strict ESM");
    expect(f).toContain("3. ( ) Other:");
    expect(f).toContain("Note:");
    expect(f).toContain("Esc decline");
  });

  it("digit picks, Enter advances, free text with a note, last Enter submits; keys touch", async () => {
    const { i, onSubmit, onTouch } = await mount(requestOf([stackQuestion, nameQuestion]));
    await press(i, "2");
    expect(i.lastFrame()).toContain("2. (•) Rust");
    await press(i, KEY.enter);
    expect(i.lastFrame()).toContain("Question 2/2");
    await press(i, "my-app", KEY.tab, "short please");
    expect(i.lastFrame()).toContain("Answer: my-app");
    expect(i.lastFrame()).toContain("Note: short please");
    await press(i, KEY.enter);
    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect(onSubmit.mock.calls[0][1]).toEqual({
      answers: {
        stack: { selected: ["Rust"] },
        name: { selected: [], other: "my-app", note: "short please" },
      },
    });
    expect(onTouch.mock.calls.length).toBeGreaterThanOrEqual(5);
  });

  it("↑/↓ move the highlight; Enter takes the highlighted option", async () => {
    const { i, onSubmit } = await mount(requestOf([stackQuestion]));
    await press(i, KEY.down);
    expect(i.lastFrame()).toMatch(/› 2\. \( \) Rust/);
    await press(i, KEY.up, KEY.down, KEY.enter);
    expect(onSubmit.mock.calls[0][1]).toEqual({ answers: { stack: { selected: ["Rust"] } } });
  });

  it("typing on the list goes to Other; Backspace edits it", async () => {
    const { i, onSubmit } = await mount(requestOf([stackQuestion]));
    await press(i, "Zigg", KEY.bs);
    expect(i.lastFrame()).toContain("3. (•) Other: Zig");
    await press(i, KEY.enter);
    expect(onSubmit.mock.calls[0][1]).toEqual({ answers: { stack: { selected: [], other: "Zig" } } });
  });

  it("multi-select toggles with Space and digits", async () => {
    const { i, onSubmit } = await mount(requestOf([featuresQuestion]));
    await press(i, " ", "3", KEY.up, " ");
    const f = i.lastFrame()!;
    expect(f).toContain("1. [x] Tests");
    expect(f).toContain("2. [x] Lint");
    expect(f).toContain("3. [x] CI");
    await press(i, "3", KEY.enter);
    expect(onSubmit.mock.calls[0][1]).toEqual({ answers: { features: { selected: ["Tests", "Lint"] } } });
  });

  it("asks to confirm when some questions are unanswered; n goes back, y submits", async () => {
    const { i, onSubmit } = await mount(requestOf([stackQuestion, nameQuestion]));
    await press(i, "1", KEY.enter, KEY.enter);
    expect(i.lastFrame()).toContain("1 of 2 unanswered (name). Submit anyway?");
    await press(i, "n");
    expect(i.lastFrame()).toContain("Question 2/2");
    expect(onSubmit).not.toHaveBeenCalled();
    await press(i, KEY.enter, "y");
    expect(onSubmit.mock.calls[0][1]).toEqual({
      answers: { stack: { selected: ["TypeScript (Recommended)"] } },
    });
  });

  it("with nothing answered, confirming declines", async () => {
    const { i, onSubmit, onDecline } = await mount(requestOf([nameQuestion]));
    await press(i, KEY.enter);
    expect(i.lastFrame()).toContain("Nothing is answered. Decline the request instead?");
    await press(i, KEY.enter);
    expect(onDecline).toHaveBeenCalledTimes(1);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("Esc declines", async () => {
    const { i, onDecline } = await mount(requestOf([stackQuestion]));
    await press(i, KEY.esc);
    expect(onDecline).toHaveBeenCalledTimes(1);
  });

  it("← / → move between questions", async () => {
    const { i } = await mount(requestOf([stackQuestion, nameQuestion]));
    await press(i, KEY.right);
    expect(i.lastFrame()).toContain("Question 2/2");
    await press(i, KEY.tab, KEY.tab, "\x1b[Z");
    expect(i.lastFrame()).toContain("Question 1/2");
  });

  it("masks secret input and offers no note", async () => {
    const { i, onSubmit } = await mount(requestOf([tokenQuestion]));
    await press(i, "hunter2");
    const f = i.lastFrame()!;
    expect(f).toContain("Secret: •••••••");
    expect(f).not.toContain("hunter2");
    expect(f).not.toContain("Note:");
    await press(i, KEY.enter);
    expect(onSubmit.mock.calls[0][1]).toEqual({ answers: { token: { selected: [], other: "hunter2" } } });
  });

  it("shows a broker error inline and stays open", async () => {
    const { i } = await mount(requestOf([nameQuestion]), {
      submit: { ok: false, message: "request q_test was already answered (by http)" },
    });
    await press(i, "x", KEY.enter);
    expect(i.lastFrame()).toContain("request q_test was already answered (by http)");
    expect(i.lastFrame()).toContain("Answer: x");
  });

  it("shows a countdown for a timeout policy; every key touches (snooze)", async () => {
    const now = () => 1_000_000;
    const request = requestOf([stackQuestion], {
      policy: { type: "timeout", ms: 60_000, on_timeout: "recommended" },
      deadline: 1_000_000 + 42_000,
    });
    const { i, onTouch } = await mount(request, { now });
    expect(i.lastFrame()).toContain("⏱ 42s left, then the recommended option is used — any key snoozes");
    await press(i, KEY.down);
    expect(onTouch).toHaveBeenCalledWith(expect.objectContaining({ request_id: "q_test" }));
    // The broker moved the deadline (question.deadline_changed): the same overlay shows it.
    await inAct(() =>
      i.rerender(
        h(QuestionOverlay, {
          request: { ...request, deadline: 1_000_000 + 60_000 },
          keymap: defaultKeymap,
          onSubmit: (): ActionResult => ({ ok: true }),
          onDecline: (): ActionResult => ({ ok: true }),
          onTouch,
          now,
        }),
      ),
    );
    expect(i.lastFrame()).toContain("⏱ 60s left");
    expect(i.lastFrame()).toMatch(/› 2\. \( \) Rust/);
  });

  it("has no countdown under the wait policy", async () => {
    const { i } = await mount(requestOf([stackQuestion]));
    expect(i.lastFrame()).not.toContain("⏱");
  });
});

function Pane({ store, onSubmit }: { store: ViewStore; onSubmit: () => ActionResult }) {
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  return h(QuestionPane, {
    pending: snap.pending,
    settled: snap.settled,
    keymap: defaultKeymap,
    onSubmit,
    onDecline: (): ActionResult => ({ ok: true }),
    onTouch: () => {},
    onDismiss: () => store.dismissSettled(),
  });
}

describe("question pane (queue + answered elsewhere)", () => {
  const T = { thread_id: "t1", turn_id: "turn1" };

  it("shows the queue head FIFO, says when another surface answered, any key continues", async () => {
    const store = new ViewStore({ id: "t1", model: "m", mode: "plan", cwd: "/" }, { frameMs: 1 });
    const first = requestOf([stackQuestion], { id: "q1" });
    const second = requestOf([nameQuestion], { id: "q2" });
    store.handle({ type: "question.requested", ...T, request: first });
    store.handle({ type: "question.requested", ...T, request: second });
    store.flushNow();
    const onSubmit = vi.fn((): ActionResult => ({ ok: true }));
    instance = await mountNode(h(Pane, { store, onSubmit }));
    expect(instance.lastFrame()).toContain("Which stack?");
    expect(instance.lastFrame()).toContain("(1 more waiting)");
    await press(instance, "2"); // the user is mid-way when the web page answers
    // The store publishes its frame now instead of after its frame timer; act renders it.
    const publish = (e: Parameters<ViewStore["handle"]>[0]) =>
      inAct(() => {
        store.handle(e);
        store.flushNow();
      });
    await publish({
      type: "question.answered",
      ...T,
      request_id: "q1",
      outcome: {
        status: "answered",
        answers: { stack: { selected: ["Rust"] } },
        unanswered: [],
        responder: { kind: "http" },
      },
      responder: { kind: "http" },
    });
    expect(instance.lastFrame()).toContain("Answered elsewhere (by http).");
    expect(instance.lastFrame()).not.toContain("Which stack?");
    await press(instance, "x");
    await inAct(() => store.flushNow());
    expect(instance.lastFrame()).toContain("Project name?");
    expect(onSubmit).not.toHaveBeenCalled();
    store.dispose();
  });

  it("shows an approval ahead of earlier questions; digits decide, no note", async () => {
    const store = new ViewStore({ id: "t1", model: "m", mode: "default", cwd: "/" }, { frameMs: 1 });
    const approval: QuestionRequest = {
      ...requestOf(
        [
          {
            id: "decision",
            header: "Approve",
            prompt: "Run `rm -rf build`?\noutside the sandbox",
            kind: "single",
            options: ["Accept", "Accept for session", "Accept and remember", "Decline", "Cancel"].map(
              (label) => ({
                label,
                description: `${label} it`,
              }),
            ),
            allow_other: false,
            secret: false,
          },
        ],
        { id: "a1" },
      ),
      source: "internal",
      approval: {
        kind: "exec",
        reason: "outside the sandbox",
        command: "rm -rf build",
        cwd: "/w",
        justification: "clean build",
      },
    };
    store.handle({ type: "question.requested", ...T, request: requestOf([nameQuestion], { id: "q1" }) });
    store.handle({ type: "question.requested", ...T, request: approval });
    store.flushNow();
    const onSubmit = vi.fn((): ActionResult => ({ ok: true }));
    instance = await mountNode(h(Pane, { store, onSubmit }));
    const f = instance.lastFrame()!;
    expect(f).toContain("⚠ Approval needed");
    expect(f).toContain("$ rm -rf build");
    expect(f).toContain("Model: clean build");
    expect(f).toContain("(1 more waiting)");
    expect(f).not.toContain("Other:");
    expect(f).not.toContain("Note:");
    await press(instance, KEY.tab, "2", KEY.enter);
    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect((onSubmit.mock.calls[0] as unknown[])[1]).toEqual({
      answers: { decision: { selected: ["Accept for session"] } },
    });
    store.dispose();
  });
});
