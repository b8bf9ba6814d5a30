/**
 * The web app's pure display model (web/src/lib): diffs and patches parsed into coloured lines,
 * terminal output into styled segments, and the transcript built two ways — from live events
 * and from stored history — from one real turn of a real runtime on the scripted model. The two
 * must agree: that is what "a reload keeps everything" means for the transcript.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import type { EventOf } from "../../src/protocol/events.js";
import { unifiedDiff } from "../../src/tools/patch/diff.js";
import { parseAnsi } from "../../web/src/lib/ansi.js";
import { diffStat, parseCodexPatch, parseUnifiedDiff } from "../../web/src/lib/diff.js";
import { type Entry, Transcript } from "../../web/src/lib/transcript.js";
import { decide, type Harness, harness } from "../helpers/index.js";

describe("diffs for display", () => {
  // Fails if a header line is shown as a change, a change is dropped, or a rename loses a name.
  it("parses the runtime's unified diffs, including adds, deletes and moves", () => {
    const files = parseUnifiedDiff(
      unifiedDiff("a\nb\nc\n", "a\nB\nc\nd\n", { oldPath: "src/x.ts" }) +
        unifiedDiff(null, "new\n", { oldPath: "n.txt" }) +
        unifiedDiff("gone\n", null, { oldPath: "g.txt" }) +
        unifiedDiff("same\n", "same\n", { oldPath: "old.txt", newPath: "new.txt" }),
    );
    expect(files.map((f) => [f.path, f.kind, f.move_path])).toEqual([
      ["src/x.ts", "update", undefined],
      ["n.txt", "add", undefined],
      ["g.txt", "delete", undefined],
      ["old.txt", "move", "new.txt"],
    ]);
    expect(files[0].lines.map((l) => `${l.t}:${l.text}`)).toEqual([
      "hunk:@@ -1,3 +1,4 @@",
      "ctx:a",
      "del:b",
      "add:B",
      "ctx:c",
      "add:d",
    ]);
    expect(diffStat(files)).toEqual({ added: 3, removed: 2 });
  });

  // Fails if a stored apply_patch input (what a reload has) is not shown as a diff per file.
  it("parses a Codex patch into files with their kinds", () => {
    const files = parseCodexPatch(
      [
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+# New",
        "+text",
        "*** Update File: src/app.ts",
        "*** Move to: src/main.ts",
        "@@ function main() {",
        " keep",
        "-old();",
        "+fresh();",
        "*** End of File",
        "*** Delete File: tmp.txt",
        "*** End Patch",
        "",
      ].join("\n"),
    );
    expect(files.map((f) => [f.path, f.kind, f.move_path ?? null])).toEqual([
      ["docs/new.md", "add", null],
      ["src/app.ts", "move", "src/main.ts"],
      ["tmp.txt", "delete", null],
    ]);
    expect(files[0].lines).toEqual([
      { t: "add", text: "# New" },
      { t: "add", text: "text" },
    ]);
    expect(files[1].lines.map((l) => l.t)).toEqual(["hunk", "ctx", "del", "add"]);
    expect(files[2].lines).toEqual([]);
  });
});

describe("terminal output for display", () => {
  // Fails if colours are lost, escape codes reach the page as text, or control characters act.
  it("keeps SGR colours as styles and shows nothing else of the escapes", () => {
    const segs = parseAnsi(
      "\x1b]0;title\x07\x1b[1;32mok\x1b[0m plain \x1b[38;5;196mred\x1b[39m \x1b[38;2;1;2;3mrgb\x1b[0m\x1b[2K",
    );
    expect(segs).toEqual([
      { bold: true, fg: "c2", text: "ok" },
      { text: " plain " },
      { fg: "rgb(255, 0, 0)", text: "red" },
      { text: " " },
      { fg: "rgb(1, 2, 3)", text: "rgb" },
    ]);
  });

  it("keeps what a carriage return overwrote last, and shows bidi and control characters", () => {
    const text = parseAnsi("10%\r50%\r100%\nrm -rf ~ \u202e;x\u0007\n")
      .map((s) => s.text)
      .join("");
    expect(text).toBe("100%\nrm -rf ~ ⟪U+202E⟫;x␇\n");
  });
});

const PATCH = "*** Begin Patch\n*** Add File: notes.txt\n+one\n+two\n*** End Patch";
const plan = (s: string[]) => ({
  type: "function_call" as const,
  name: "update_plan",
  arguments: { plan: ["Write", "Check"].map((step, i) => ({ step, status: s[i] })) },
});
const TURN: Script = {
  steps: [
    { output: [{ type: "reasoning", summary: "Think first." }, plan(["in_progress", "pending"])] },
    { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH }] },
    {
      output: [{ type: "function_call", name: "exec_command", arguments: { cmd: "cat notes.txt; exit 3" } }],
    },
    { output: [plan(["completed", "completed"])] },
    { output: [{ type: "message", text: "## Done\n\n**ok**" }] },
  ],
};

/** What a reader sees of an entry, without ids (live and stored ids differ for turn markers). */
function seen(e: Entry): unknown {
  switch (e.kind) {
    case "user":
    case "agent":
    case "reasoning":
      return [e.kind, e.text];
    case "command":
      return [e.kind, e.command, e.output.trim(), e.exit];
    case "patch":
      return [e.kind, e.status, e.files.map((f) => [f.path, f.kind, f.lines.filter((l) => l.t !== "hunk")])];
    case "plan":
      return [e.kind, e.steps];
    default:
      return [e.kind];
  }
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the transcript model", () => {
  // Fails if a reload (history) shows a turn differently from how it streamed live: a plan drawn
  // twice or as a tool call, a patch as raw text, a command without its output or exit status.
  it("draws the same cells from live events and from stored history", async () => {
    h = await harness({ script: TURN, overrides: ['sandbox_mode="danger-full-access"'] });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    await thread.startTurn("write notes").done;
    const live = new Transcript();
    for (const s of h.events)
      if ("thread_id" in s.event && s.event.thread_id === thread.id) live.apply(s.event);
    const stored = new Transcript();
    stored.load([...thread.items()]);

    const cells = (t: Transcript) =>
      t.entries.filter((e) => e.kind !== "turn" && e.kind !== "diff").map(seen);
    expect(cells(live)).toEqual(cells(stored));
    expect(cells(stored)).toEqual([
      ["user", "write notes"],
      ["reasoning", "Think first."],
      [
        "plan",
        [
          { step: "Write", status: "completed" },
          { step: "Check", status: "completed" },
        ],
      ],
      [
        "patch",
        "completed",
        [
          [
            "notes.txt",
            "add",
            [
              { t: "add", text: "one" },
              { t: "add", text: "two" },
            ],
          ],
        ],
      ],
      ["command", "cat notes.txt; exit 3", "one\ntwo", 3],
      ["agent", "## Done\n\n**ok**"],
    ]);
    // Live only: the turn's net diff, moved after the answer, and the end marker.
    expect(live.entries.slice(-2).map((e) => e.kind)).toEqual(["diff", "turn"]);
  });
});

describe("a reload draws what the live session drew", () => {
  // Fails if a reloaded patch is drawn from its patch text (no hunk line numbers, no context
  // read from the file) instead of the unified diff it showed live, or if a settled approval is
  // missing live or after a reload, or lands after the command it gated.
  it("patches as their diffs, approvals with their decisions, in the same places", async () => {
    const { serve } = await import("../helpers/http.js");
    const patch = "*** Begin Patch\n*** Update File: story.txt\n@@\n two\n-three\n+THREE\n*** End Patch";
    const s = await serve({
      script: {
        steps: [
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: patch }] },
          {
            output: [
              { type: "function_call", name: "exec_command", arguments: { cmd: "echo made > made.txt" } },
            ],
          },
          { output: [{ type: "message", text: "done" }] },
        ],
      },
      overrides: ['approval_policy="untrusted"'],
    });
    try {
      writeFileSync(join(s.h.cwd, "story.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
      const thread = s.h.runtime.threads.start({ cwd: s.h.cwd });
      s.h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
      const turn = thread.startTurn("edit the story");
      const asked = (await s.h.waitFor(
        (e) => e.type === "question.requested" && !!e.request.approval?.command,
      )) as EventOf<"question.requested">;
      decide(s.h, asked, "Accept");
      await turn.done;

      const live = new Transcript();
      for (const e of s.h.events)
        if ("thread_id" in e.event && e.event.thread_id === thread.id) live.apply(e.event);
      const res = await s.call("GET", `/thread/${thread.id}`);
      expect(res.status).toBe(200);
      const stored = new Transcript();
      stored.load(res.json.items, res.json.thread, res.json.turns, res.json.approvals);

      const full = (e: Entry) =>
        e.kind === "patch"
          ? [e.kind, e.status, e.files.map((f) => [f.path, f.kind, f.lines])]
          : e.kind === "approval"
            ? [e.kind, e.id, e.prompt.split("\n")[0], e.decision, e.accepted]
            : seen(e);
      const cells = (t: Transcript) => t.entries.filter((e) => e.kind !== "turn").map(full);
      expect(cells(stored)).toEqual(cells(live));
      const kinds = cells(stored).map((c) => (c as unknown[])[0]);
      expect(kinds).toEqual(["user", "patch", "approval", "command", "agent", "diff"]);
      const drawn = stored.entries.find((e) => e.kind === "patch");
      expect(drawn?.kind === "patch" && drawn.files[0].lines[0]).toEqual({
        t: "hunk",
        text: "@@ -1,6 +1,6 @@",
      });
      const approval = stored.entries.find((e) => e.kind === "approval");
      expect(approval).toMatchObject({
        prompt: expect.stringContaining("echo made > made.txt"),
        decision: "Accept · via test",
        accepted: true,
      });
    } finally {
      await s.close();
    }
  });
});
