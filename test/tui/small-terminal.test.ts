/**
 * The TUI on a small terminal (README "Use it"), end to end in tmux: a real `tandem`
 * against `tandem mock-model`, in a 60x15 pane. A tall question overlay (three questions with long
 * options) must scroll inside the rows it has instead of pushing the transcript out — Ink wipes
 * the terminal's scrollback when its frame reaches the terminal's height — and resizing while
 * the overlay shows must leave no debris. Then the editing keys: Esc on a partly answered batch
 * asks before discarding, and the Other field has a real cursor.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const NAME = "tandem-tui-small";
const { launch, startMock, waitFor, keys, literal } = tuiHarness({
  name: NAME,
  command: builtOrSourceTui(),
  width: 60,
  height: 15,
});

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
/** This file's live tmux session (the harness names it `<name>-<pid>-<n>`). */
const session = () =>
  tmux("list-sessions", "-F", "#{session_name}")
    .split("\n")
    .filter((s) => s.startsWith(`${NAME}-${process.pid}-`))
    .pop()!;
/** The visible screen only. */
const screen = () => tmux("capture-pane", "-p", "-t", session());
/** Everything: scrollback from its start plus the screen. */
const everything = () => tmux("capture-pane", "-p", "-J", "-S", "-", "-t", session());
const count = (text: string, s: string) => text.split(s).length - 1;

/** Polls `read` until `ok` holds; throws with the last capture after `ms`. */
async function until(read: () => string, ok: (s: string) => boolean, what: string, ms = 20_000) {
  const end = Date.now() + ms;
  let last = "";
  while (Date.now() < end) {
    last = read();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never saw ${what}; last capture:\n${last}`);
}

const long = (topic: string) => [
  { label: `${topic} alpha`, description: `The first ${topic} choice, described at length so it wraps.` },
  { label: `${topic} beta`, description: `The second ${topic} choice, also long enough to need two lines.` },
  { label: `${topic} gamma`, description: `The third ${topic} choice with yet another long description.` },
  { label: `${topic} delta`, description: `The fourth and last ${topic} choice: the one below the fold.` },
];

const script: Script = {
  steps: [
    { output: [{ type: "message", text: "Earlier reply: the first turn is done." }] },
    {
      output: [
        {
          type: "function_call",
          name: "request_user_input",
          call_id: "call_tall",
          arguments: {
            questions: [
              {
                id: "db",
                header: "Database",
                question: "Which database should we use?",
                options: long("db"),
              },
              { id: "ui", header: "Frontend", question: "Which frontend framework?", options: long("ui") },
              { id: "ci", header: "CI", question: "Which CI provider?", options: long("ci") },
            ],
          },
        },
      ],
    },
    { output: [{ type: "message", text: "Thanks, all set." }] },
  ],
};

describe.skipIf(!hasTmux)("TUI at 60x15 (real processes in tmux)", { timeout: 120_000 }, () => {
  it("a tall overlay scrolls in place, survives a resize, asks before discarding, and edits at the cursor", async () => {
    const mock = await startMock(script);
    launch({ url: mock.url, args: ["--mode", "plan"] });
    await waitFor("ask Tandem to do something");
    literal("first turn");
    keys("Enter");
    await waitFor("Earlier reply: the first turn is done.");
    literal("ask me three things");
    keys("Enter");
    await waitFor("Which database should we use?");

    // Fails if the overlay is not bounded: its frame reaches the terminal's height and Ink
    // clears the scrollback, losing the earlier turn.
    let all = await until(everything, (s) => s.includes("↓"), "the 'more below' line");
    expect(all).toContain("› first turn");
    expect(all).toContain("Earlier reply: the first turn is done.");
    let shown = screen();
    expect(shown).toContain("╭");
    expect(shown).toContain("╰");
    expect(shown).not.toContain("db delta"); // below the fold…
    // …until the highlight moves there (fails if the window does not follow the focus).
    keys("Down", "Down", "Down");
    shown = await until(screen, (s) => s.includes("› 4. ( ) db delta"), "the focused last option");
    expect(shown).toContain("↑");
    // Aligned rows (fails if wrapped description lines are not indented to their column).
    const desc = shown.split("\n").filter((l) => /fourth and last|below the fold/.test(l));
    expect(desc.length).toBeGreaterThanOrEqual(1);

    // Resize while the overlay shows: exactly one overlay remains, the transcript is still in
    // the scrollback, once (fails if the old frame's lines stay behind as debris).
    const overlayWidth = (s: string) =>
      s
        .split("\n")
        .find((l) => l.startsWith("│ ? Question"))
        ?.trimEnd().length;
    tmux("resize-window", "-t", session(), "-x", "48", "-y", "15");
    all = await until(everything, (s) => overlayWidth(s) === 48, "the overlay redrawn at 48 columns");
    expect(count(all, "? Question 1/3")).toBe(1);
    expect(count(all, "Which database should we use?")).toBe(1);
    expect(count(all, "Earlier reply: the first turn is done.")).toBe(1);
    expect(count(all, "╭")).toBe(count(all, "╰"));
    expect(all).toContain("› 4. ( ) db delta");
    tmux("resize-window", "-t", session(), "-x", "60", "-y", "15");
    all = await until(everything, (s) => overlayWidth(s) === 60, "the overlay at 60 columns");
    expect(count(all, "? Question 1/3")).toBe(1);
    expect(count(all, "╭")).toBe(count(all, "╰"));
    expect(all).toContain("› first turn");

    // Esc with an answer given asks first; Esc keeps editing (fails if Esc declines at once).
    keys("Enter"); // takes db delta, on to question 2
    await waitFor("Which frontend framework?");
    keys("Escape");
    await waitFor("Discard your answers?");
    expect(screen()).toContain("Enter = discard · Esc = keep editing");
    keys("Escape");
    await until(
      screen,
      (s) => !s.includes("Discard your answers?") && s.includes("Which frontend"),
      "editing",
    );

    // Cursor editing in the Other field of question 2: typed "hllo wrld", fixed in place.
    literal("hllo wrld");
    keys("Home", "Right");
    literal("e");
    keys("M-Right", "Right", "Right");
    literal("o");
    keys("End");
    literal("!");
    keys("C-Left", "DC");
    literal("W");
    // Fails if keys only append at the end (the text would read "hllo wrldeo!W").
    await until(everything, (s) => s.includes("Other: hello World!"), "the edited Other text");
    keys("Enter");
    await waitFor("Which CI provider?");
    keys("2", "Enter");
    await waitFor("Thanks, all set.");
    const out = requests(mock.log)[2].input.find((i: { type: string }) => i.type === "function_call_output");
    expect(JSON.parse(out.output)).toMatchObject({
      answers: {
        db: { selected: ["db delta"] },
        ui: { selected: [], other: "hello World!" },
        ci: { selected: ["ci beta"] },
      },
    });
    all = everything();
    expect(all).toContain("› first turn");
    expect(all).toContain("Earlier reply: the first turn is done.");
  });
});
