/**
 * The TUI shows a sub-agent's question on the ROOT thread and names who asks (README "Sub-agents"):
 * the view store (fed the real runtime's events, showing the root) queues the child's request and
 * drops it once answered; the overlay (ink-testing-library) says which sub-agent asks and its task.
 */
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { defaultKeymap } from "../../src/surfaces/tui/keymap.js";
import { type ActionResult, QuestionOverlay } from "../../src/surfaces/tui/overlay.js";
import { ViewStore } from "../../src/surfaces/tui/view-store.js";
import { askingChild, call, say, spawnCall } from "../helpers/agent-scripts.js";
import { type Harness, harness } from "../helpers/index.js";
import { inAct, pressKeys } from "../helpers/ink-act.js";

let hs: Harness | undefined;
let ink: ReturnType<typeof render> | undefined;
afterEach(async () => {
  ink?.unmount();
  ink = undefined;
  await hs?.close();
  hs = undefined;
});

describe("TUI: sub-agent questions", () => {
  it("the root's view queues the child's question, the overlay names the sub-agent, the answer clears it", async () => {
    hs = await harness({
      script: {
        steps: [
          { output: [spawnCall("TASK-A: choose a colour scheme", "sa")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [say("ok")] },
        ],
        side_steps: askingChild("TASK-A", "qa"),
      },
    });
    const root = hs.runtime.threads.start({ cwd: hs.cwd, mode: "plan" });
    hs.runtime.questions.attach({ threadId: root.id }, { kind: "tui" });
    const view = new ViewStore({ id: root.id, model: "m", mode: "plan", cwd: hs.cwd }, { frameMs: 1 });
    hs.runtime.subscribe((s) => view.handle(s.event));
    const turn = root.startTurn("go");
    await hs.waitFor((e) => e.type === "question.requested");
    view.flushNow();
    // fails if the view store drops events of another thread even when they are its child's questions
    const pending = view.getSnapshot().pending;
    expect(pending).toHaveLength(1);
    const request = pending[0].request;
    expect(request.agent?.nickname).toBe("Ada");

    ink = render(
      h(QuestionOverlay, {
        request,
        keymap: defaultKeymap,
        onSubmit: (r, reply): ActionResult => {
          const res = hs!.runtime.questions.reply(r.thread_id, r.request_id, reply, { kind: "tui" });
          return res.ok ? { ok: true } : { ok: false, message: res.message };
        },
        onDecline: (): ActionResult => ({ ok: true }),
        onTouch: () => {},
      }),
    );
    await inAct();
    // fails if the overlay does not say which sub-agent asks and for what task
    expect(ink.lastFrame()).toContain(
      "asked by sub-agent Ada (default, depth 1) · task: TASK-A: choose a colour",
    );
    await pressKeys(ink.stdin, "2", "\r");
    expect((await turn.done).status).toBe("completed");
    view.flushNow();
    // fails if the settle event of a child's request is not applied to the root's view
    expect(view.getSnapshot().pending).toHaveLength(0);
  });
});
