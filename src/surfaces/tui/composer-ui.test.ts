import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { describe, expect, it } from "vitest";
import { Composer, type PasteSource } from "./composer.js";
import { ComposerHistory } from "./history.js";
import { defaultKeymap } from "./keymap.js";
import type { PasteListener } from "./paste.js";

const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

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
    await tick();
    ui.stdin.write("\x1b[200~one\rtwo\r");
    await tick();
    ui.stdin.write("\\\rthree\x1b[201~");
    await tick();
    expect(sent).toEqual([]);
    expect(ui.lastFrame()).toContain("› one");
    expect(ui.lastFrame()).toContain("  three");
    ui.stdin.write("\r");
    await tick();
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
    await tick();
    expect(listener?.("a\nb")).toBe(true);
    await tick();
    expect(ui.lastFrame()).toContain("  b");
    ui.stdin.write("\r");
    await tick();
    expect(sent).toEqual(["a\nb"]);
    ui.rerender(
      h(Composer, {
        keymap: defaultKeymap,
        locked: true,
        running: false,
        onSubmit: () => {},
        onInterrupt: () => {},
        pastes,
      }),
    );
    await tick();
    expect(listener).toBeUndefined();
    ui.unmount();
  });

  it("recalls stored history and follows updates from a resumed thread", async () => {
    const history = new ComposerHistory(undefined);
    history.record("from last time", "/");
    const { ui } = mount({ history });
    await tick();
    ui.stdin.write("\x1b[A");
    await tick();
    expect(ui.lastFrame()).toContain("› from last time");
    ui.stdin.write("\x1b[B");
    await tick();
    history.addThread(["from the thread"]);
    await tick();
    ui.stdin.write("\x1b[A");
    await tick();
    expect(ui.lastFrame()).toContain("› from the thread");
    ui.unmount();
  });
});
