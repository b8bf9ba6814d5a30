/**
 * The `/` list and the pickers as components (ink-testing-library), and the pure helpers they use.
 * Keys are written one at a time and each step waits (with a deadline) for the frame it causes.
 */
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { describe, expect, it } from "vitest";
import { filterCommands } from "./commands.js";
import { Composer } from "./composer.js";
import { defaultKeymap } from "./keymap.js";
import { ago, MenuHost, windowStart } from "./picker.js";
import { CommandList } from "./pickers.js";

const KEY = { up: "\x1b[A", down: "\x1b[B", tab: "\t", enter: "\r", esc: "\x1b" };

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function mount(menus?: MenuHost) {
  const sent: string[] = [];
  const interrupts: number[] = [];
  const ui = render(
    h(Composer, {
      keymap: defaultKeymap,
      locked: false,
      running: true,
      onSubmit: (t: string) => sent.push(t),
      onInterrupt: () => interrupts.push(1),
      menus,
    }),
  );
  const frame = () => ui.lastFrame() ?? "";
  const press = async (key: string, expectFrame: (f: string) => boolean, what: string) => {
    ui.stdin.write(key);
    await until(() => expectFrame(frame()), what);
  };
  return { ui, sent, interrupts, frame, press };
}

describe("filterCommands", () => {
  // fails if the list matched anywhere-first, or stayed open after a space or for "//"
  it("puts prefix matches first, then substring matches, and closes on a space or //", () => {
    expect(filterCommands("/").map((c) => c.name)).toContain("model");
    expect(filterCommands("/re").map((c) => c.name)).toEqual([
      "review",
      "redo",
      "rewind",
      "resume",
      "threads",
    ]);
    expect(filterCommands("/d").map((c) => c.name)).toEqual([
      "diff",
      "default",
      "model",
      "undo",
      "redo",
      "rewind",
      "threads",
    ]);
    expect(filterCommands("/mo")[0].name).toBe("model");
    expect(filterCommands("/model ")).toEqual([]);
    expect(filterCommands("//x")).toEqual([]);
    expect(filterCommands("hello")).toEqual([]);
    expect(filterCommands("/zzz")).toEqual([]);
  });
});

describe("picker helpers", () => {
  // fails if ages were rounded up or the window let the selection scroll out of view
  it("formats ages and keeps the selection in the window", () => {
    const now = 10_000_000;
    expect(ago(now - 30_000, now)).toBe("just now");
    expect(ago(now - 3 * 60_000 - 5000, now)).toBe("3m ago");
    expect(ago(now - 2 * 3_600_000, now)).toBe("2h ago");
    expect(ago(now - 3 * 86_400_000, now)).toBe("3d ago");
    expect(windowStart(0, 20, 8)).toBe(0);
    expect(windowStart(19, 20, 8)).toBe(12);
    expect(windowStart(10, 20, 8)).toBe(6);
    expect(windowStart(3, 5, 8)).toBe(0);
  });
});

describe("CommandList", () => {
  // fails if an entry took more than one line or the selection mark moved to another entry
  it("shows one line per command with the selected one marked", () => {
    const ui = render(h(CommandList, { entries: filterCommands("/d"), selected: 1 }));
    const lines = (ui.lastFrame() ?? "").split("\n").filter((l) => l.trim());
    expect(lines).toHaveLength(filterCommands("/d").length);
    expect(lines[0]).toMatch(/^\s+\/diff\s+show the files/);
    expect(lines[1]).toMatch(/^\s*› \/default\s+switch to default mode/);
    ui.unmount();
  });
});

describe("the / list in the composer", () => {
  // fails if typing "/" did not open the list, ↑/↓ did not move it, or Enter ran the typed text
  // instead of the selected command
  it("opens on /, filters, moves with ↓ and runs the selected command on Enter", async () => {
    const { ui, sent, frame, press } = mount();
    await until(() => frame().includes("›"), "the composer");
    await press(
      "/",
      (f) => f.includes("/approvals") && f.includes("1/21"),
      "the full list (8 rows and a counter)",
    );
    await press("d", (f) => f.includes("/diff") && !f.includes("/approvals"), "the filtered list");
    expect(frame()).toMatch(/› \/diff/);
    await press(KEY.down, (f) => /› \/default/.test(f), "the selection on /default");
    await press(KEY.enter, () => sent.length === 1, "the command to run");
    expect(sent).toEqual(["/default"]);
    ui.unmount();
  });

  // fails if Tab did not complete, or Esc in the list interrupted the turn instead of closing it
  it("completes with Tab and closes with Esc without interrupting", async () => {
    const { ui, sent, interrupts, frame, press } = mount();
    await until(() => frame().includes("›"), "the composer");
    await press("/", (f) => f.includes("/approvals"), "the list");
    await press("m", (f) => f.includes("/model") && !f.includes("/approvals"), "the filtered list");
    await press(KEY.tab, (f) => f.includes("/model ") && !f.includes("choose the model"), "completion");
    await press("x", (f) => f.includes("/model x"), "typing after the completion");
    await press("\x15", (f) => !f.includes("/model"), "Ctrl+U to clear the draft");
    await press("/", (f) => f.includes("/approvals"), "the list again");
    await press(KEY.esc, (f) => !f.includes("/approvals"), "the list to close");
    expect(interrupts).toEqual([]);
    expect(sent).toEqual([]);
    await press(KEY.esc, () => interrupts.length === 1, "Esc to interrupt once the list is closed");
    ui.unmount();
  });

  // fails if a command recalled with ↑ opened the list and so stopped ↑ from reaching older history
  it("lets ↑ walk past commands in the history", async () => {
    const history = { entries: () => ["older message", "/status"], subscribe: () => () => {} };
    const sent: string[] = [];
    const ui = render(
      h(Composer, {
        keymap: defaultKeymap,
        locked: false,
        running: false,
        onSubmit: (t: string) => sent.push(t),
        onInterrupt: () => {},
        history,
      }),
    );
    const frame = () => ui.lastFrame() ?? "";
    await until(() => frame().includes("›"), "the composer");
    ui.stdin.write(KEY.up);
    await until(() => frame().includes("› /status"), "the recalled command");
    expect(frame()).not.toContain("show model, provider");
    ui.stdin.write(KEY.up);
    await until(() => frame().includes("› older message"), "the older entry");
    ui.unmount();
  });

  // fails if the picker did not take the keys, ignored ↓, did not report the choice (or Esc), or
  // did not preselect the initial item when none is current
  it("shows an open picker instead of the input and reports the choice", async () => {
    const menus = new MenuHost();
    const picked: Array<string | undefined> = [];
    const { ui, frame, press } = mount(menus);
    await until(() => frame().includes("›"), "the composer");
    menus.open({
      title: "Pick a colour",
      items: [
        { label: "red", value: "r" },
        { label: "green", value: "g", current: true },
        { label: "blue", value: "b" },
      ],
      onPick: (v) => picked.push(v),
      onCancel: () => picked.push(undefined),
    });
    await until(() => frame().includes("Pick a colour"), "the picker");
    expect(frame()).toMatch(/› 2\. green \(current\)/);
    await press(KEY.down, (f) => /› 3\. blue/.test(f), "the selection to move");
    await press(KEY.enter, () => picked.length === 1, "the choice");
    expect(picked).toEqual(["b"]);
    await until(() => !frame().includes("Pick a colour"), "the picker to close");
    menus.open({
      title: "Again",
      items: [{ label: "x", value: "x" }],
      onPick: (v) => picked.push(v),
      onCancel: () => picked.push(undefined),
    });
    await until(() => frame().includes("Again"), "the second picker");
    await press(KEY.esc, () => picked.length === 2, "the cancel");
    expect(picked).toEqual(["b", undefined]);
    menus.open({
      title: "Preselected",
      items: [
        { label: "one", value: "1" },
        { label: "two", value: "2", initial: true },
      ],
      onPick: (v) => picked.push(v),
    });
    await until(() => /› 2\. two/.test(frame()), "the initial item selected");
    expect(frame()).not.toContain("(current)");
    ui.unmount();
  });
});
