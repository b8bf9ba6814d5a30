/**
 * /undo, /redo, /fork and the rewind picker (Esc Esc) in a real terminal: tmux runs the built
 * `tandem` TUI against `tandem mock-model`. The scripted turn patches a file; /undo shows the diff
 * on the question overlay and, applied, restores it; /redo re-applies it; Esc Esc opens the picker
 * of earlier messages, and choosing one cuts the conversation back (the model's next request
 * shows it); /fork shows the new thread. Files are checked on disk. Polls, never sleeps.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal } = tuiHarness({
  name: "tandem-tui-undo",
  command: builtOrSourceTui(),
});

const PATCH = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-one", "+two", "*** End Patch"].join("\n");
const READY = "ask Tandem to do something";

/** Polls until `file` holds `text` (the TUI writes it from its own process). */
async function fileBecomes(file: string, text: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (readFileSync(file, "utf8") === text) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `${file} never held ${JSON.stringify(text)}; it holds ${JSON.stringify(readFileSync(file, "utf8"))}`,
  );
}

describe.skipIf(!hasTmux)("TUI undo, redo, rewind and fork (real processes)", { timeout: 120_000 }, () => {
  // fails if /undo writes without the overlay's Apply, restores the wrong bytes, /redo does not
  // re-apply, Esc Esc opens no picker, the rewind does not cut what the model is sent, or /fork
  // does not switch to a new thread
  it("undoes and redoes a patch through the overlay, rewinds with Esc Esc, forks", async () => {
    const mock = await startMock({
      steps: [
        { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "p1" }] },
        { output: [{ type: "message", text: "patched it" }] },
        { output: [{ type: "message", text: "second reply" }] },
        { output: [{ type: "message", text: "after the rewind" }] },
      ],
    } satisfies Script);
    const cwd = launch({ url: mock.url }).cwd;
    const file = join(cwd, "a.txt");
    writeFileSync(file, "one\n");
    await waitFor(READY);
    literal("patch the file");
    keys("Enter");
    await waitFor("patched it");
    expect(readFileSync(file, "utf8")).toBe("two\n");

    literal("/undo");
    keys("Enter");
    let screen = await waitFor("Undo the file changes of turn");
    expect(screen).toContain("-two");
    expect(screen).toContain("+one");
    expect(readFileSync(file, "utf8")).toBe("two\n"); // nothing before the answer
    keys("1");
    await waitFor("1. (•) Apply");
    keys("Enter");
    await waitFor("1 file(s) written");
    await fileBecomes(file, "one\n");

    literal("/redo");
    keys("Enter");
    await waitFor("Redo the file changes of turn");
    keys("1");
    await waitFor("1. (•) Apply");
    keys("Enter");
    await fileBecomes(file, "two\n");
    // The file is written before the overlay closes: keys typed in between went to the overlay.
    await waitFor("Redid turn");

    literal("second message");
    keys("Enter");
    await waitFor("second reply");
    keys("Escape");
    keys("Escape");
    screen = await waitFor("Rewind the conversation to before");
    expect(screen).toContain("patch the file");
    keys("Enter"); // the newest: "second message"
    await waitFor("Also restore the files to that point?");
    keys("Enter"); // conversation only
    await waitFor("Rewound: the conversation continues");
    literal("third message");
    keys("Enter");
    await waitFor("after the rewind");
    const last = requests(mock.log).at(-1);
    const texts = JSON.stringify(last.input);
    expect(texts).toContain("patch the file");
    expect(texts).toContain("third message");
    expect(texts).not.toContain("second message");
    expect(readFileSync(file, "utf8")).toBe("two\n");

    literal("/fork");
    keys("Enter");
    screen = await waitFor(/Forked into (\S+)/);
    const forkId = /Forked into (\S+)/.exec(screen)?.[1];
    await waitFor(`Resumed thread ${forkId}`);
  });
});
