import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { describe, expect, it } from "vitest";
import { inAct } from "../../../test/helpers/ink-act.js";
import { Composer, type PasteSource } from "./composer.js";
import { ComposerHistory } from "./history.js";
import { defaultKeymap } from "./keymap.js";
import type { PasteListener } from "./paste.js";

// inAct (test/helpers/ink-act.ts) finishes every render and effect an input causes before the next
// step: no fixed tick raced against a busy machine. Fails if a key reaches a stale handler.

function mount(opts: { pastes?: PasteSource; history?: ComposerHistory; locked?: boolean } = {}) {
  const sent: string[] = [];
  const ui = render(
    h(Composer, {
      keymap: defaultKeymap,
      locked: opts.locked ?? false,
      running: false,
      onSubmit: (t: string) => sent.push(t),
      onInterrupt: () => {},
      history: opts.history,
      pastes: opts.pastes,
    }),
  );
  return { ui, sent };
}

describe("Composer paste and history", () => {
  it("collects an in-band bracketed paste (markers reaching Ink) without submitting", async () => {
    const { ui, sent } = mount();
    await inAct();
    await inAct(() => ui.stdin.write("\x1b[200~one\rtwo\r"));
    await inAct(() => ui.stdin.write("\\\rthree\x1b[201~"));
    expect(sent).toEqual([]);
    expect(ui.lastFrame()).toContain("› one");
    expect(ui.lastFrame()).toContain("  three");
    await inAct(() => ui.stdin.write("\r"));
    expect(sent).toEqual(["one\ntwo\n\\\nthree"]);
    ui.unmount();
  });

  it("takes out-of-band pastes only while unlocked", async () => {
    let listener: PasteListener | undefined;
    const pastes: PasteSource = {
      onPaste: (l) => {
        listener = l;
        return () => {
          listener = undefined;
        };
      },
    };
    const { ui, sent } = mount({ pastes });
    await inAct();
    let took: boolean | undefined;
    await inAct(() => {
      took = listener?.("a\nb");
    });
    expect(took).toBe(true);
    expect(ui.lastFrame()).toContain("  b");
    await inAct(() => ui.stdin.write("\r"));
    expect(sent).toEqual(["a\nb"]);
    await inAct(() =>
      ui.rerender(
        h(Composer, {
          keymap: defaultKeymap,
          locked: true,
          running: false,
          onSubmit: () => {},
          onInterrupt: () => {},
          pastes,
        }),
      ),
    );
    expect(listener).toBeUndefined();
    ui.unmount();
  });

  it("recalls stored history and follows updates from a resumed thread", async () => {
    const history = new ComposerHistory(undefined);
    history.record("from last time", "/");
    const { ui } = mount({ history });
    await inAct();
    await inAct(() => ui.stdin.write("\x1b[A"));
    expect(ui.lastFrame()).toContain("› from last time");
    await inAct(() => ui.stdin.write("\x1b[B"));
    await inAct(() => history.addThread(["from the thread"]));
    await inAct(() => ui.stdin.write("\x1b[A"));
    expect(ui.lastFrame()).toContain("› from the thread");
    ui.unmount();
  });
});
