import { describe, expect, it } from "vitest";
import { REDACTED } from "../../protocol/questions.js";
import { block, displayWidth, hardWrap, paint, wrapPieces } from "./ansi.js";
import { type Cell, type CellInput, cellsFromHistory, makeCell, parseExecOutput } from "./cells.js";
import { parseLines } from "./markdown.js";
import { renderCell } from "./render-cell.js";
import { nameQuestion, requestOf, tokenQuestion } from "./test-fixtures.js";

const plainOpts = { width: 40, color: false };
const r = (c: CellInput, o = plainOpts) => renderCell(makeCell(c), o);

describe("ansi", () => {
  it("measures wide characters and wraps CJK without spaces", () => {
    expect(displayWidth("中文ab")).toBe(6);
    expect(displayWidth("e\u0301")).toBe(1);
    const lines = wrapPieces([{ text: "这是一个使用Rust编写的项目" }], 10).map((l) =>
      l.map((p) => p.text).join(""),
    );
    expect(lines.every((l) => displayWidth(l) <= 10)).toBe(true);
    expect(lines.join("")).toBe("这是一个使用Rust编写的项目");
  });

  it("wraps words greedily with a hanging indent and cuts overlong words", () => {
    expect(
      block([{ text: "- " }], [{ text: "  " }], [{ text: "alpha beta gamma delta" }], 12, false),
    ).toEqual(["- alpha beta", "  gamma", "  delta"]);
    expect(wrapPieces([{ text: "abcdefghij" }], 4).map((l) => l[0].text)).toEqual(["abcd", "efgh", "ij"]);
    expect(hardWrap("  ab  cd", 4)).toEqual(["  ab", "  cd"]);
  });

  it("paints only with colour on", () => {
    expect(paint("x", { bold: true, color: "red" }, true)).toBe("\x1b[1;31mx\x1b[0m");
    expect(paint("x", { bold: true }, false)).toBe("x");
  });
});

describe("renderCell", () => {
  it("renders user input and assistant Markdown with prefixes and hanging indents", () => {
    expect(r({ kind: "user", text: "fix the bug\nplease" })).toBe("\n› fix the bug\n  please\n");
    const md = parseLines([
      "# Plan",
      "- read the files and then run the tests",
      "```sh",
      "  npm   test",
      "```",
    ]).out;
    expect(r({ kind: "agent", lines: md, first: true }, { width: 30, color: false })).toBe(
      [
        "",
        "• Plan",
        "  - read the files and then",
        "    run the tests",
        "  ┌ sh",
        "  │   npm   test",
        "  └",
        "",
      ]
        .join("\n")
        .replace("- read", "• read"),
    );
  });

  it("folds long command output and shows the exit code", () => {
    const output = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const text = r({ kind: "exec", command: "make", output, exitCode: 2, status: "failed" });
    expect(text).toContain("$ make\n  │ line 0\n");
    expect(text).toContain("  │ … 12 more lines\n");
    expect(text.endsWith("  └ exit 2\n")).toBe(true);
  });

  it("shows question history with secrets as ••••", () => {
    const text = r(
      {
        kind: "questions",
        request: requestOf([nameQuestion, tokenQuestion]),
        outcome: {
          status: "answered",
          answers: { name: { selected: [], other: "app" }, token: { selected: [], other: REDACTED } },
          unanswered: [],
          responder: { kind: "tui" },
        },
      },
      { width: 80, color: false },
    );
    expect(text).toBe(
      [
        "? Questions — answered by tui",
        "  Name: Project name?",
        "    → “app”",
        "  Token: Paste the deploy token",
        "    → ••••",
        "",
      ].join("\n"),
    );
  });

  it("boxes the demo banner and renders turn ends", () => {
    const banner = r({ kind: "banner", title: "DEMO", lines: ["scripted model"] });
    expect(banner.split("\n")[0]).toBe(`╭${"─".repeat(16)}╮`);
    expect(banner).toContain("│ scripted model │");
    const usage = {
      input_tokens: 1,
      cached_input_tokens: 0,
      output_tokens: 1,
      reasoning_output_tokens: 0,
      total_tokens: 1500,
    };
    expect(r({ kind: "turn", status: "completed", ms: 2500, usage })).toBe("─ done in 2.5s · 1.5k tokens\n");
    expect(r({ kind: "turn", status: "interrupted", ms: null, usage: null })).toBe("■ Interrupted\n");
  });
});

describe("cells from a stored history", () => {
  it("skips injected context, pairs commands with output, shows settled questions", () => {
    const cells = cellsFromHistory(
      [
        { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>x" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
        { type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}', call_id: "c1" },
        { type: "function_call_output", call_id: "c1", output: "Process exited with code 0\nOutput:\na\n" },
        { type: "function_call", name: "request_user_input", arguments: "{}", call_id: "c2" },
        { type: "function_call_output", call_id: "c2", output: "{}" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
      ],
      (callId) =>
        callId === "c2"
          ? {
              request: requestOf([nameQuestion]),
              outcome: { status: "declined", responder: { kind: "http" } },
            }
          : undefined,
    );
    expect(cells.map((c: Cell) => c.kind)).toEqual(["user", "exec", "questions", "agent"]);
    expect(cells[1]).toMatchObject({ command: "ls", output: "a\n", exitCode: 0 });
    expect(parseExecOutput("no header")).toEqual({ text: "no header", exitCode: null, interrupted: false });
  });
});

describe("plan and file-change cells", () => {
  it("renders a plan as a checklist and a patch as files with diff lines", () => {
    const plan = r(
      {
        kind: "plan",
        explanation: null,
        steps: [
          { step: "read", status: "completed" },
          { step: "edit", status: "in_progress" },
          { step: "test", status: "pending" },
        ],
      },
      { width: 40, color: false },
    );
    expect(plan).toBe("☰ Plan\n  ✔ read\n  ◐ edit\n  ○ test\n");
    const files = r(
      {
        kind: "files",
        status: "completed",
        changes: [{ path: "a.ts", kind: "update", diff: "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-old\n+new" }],
      },
      { width: 40, color: false },
    );
    expect(files).toBe("✎ Edited 1 file\n  M a.ts\n    @@ -1 +1 @@\n    -old\n    +new\n");
  });
});

describe("leading whitespace and multi-line commands", () => {
  // fails if word wrapping drops a line's leading spaces (the /diff context lines lost theirs)
  // or a heredoc's later lines start at column 0, outside the cell.
  it("keeps a diff's context-line space and wraps each command line inside the cell", () => {
    const diff = renderCell(
      makeCell({ kind: "notice", text: "Diff:\n context\n-old\n+new\n  two", tone: "info" }),
      {
        width: 40,
        color: false,
      },
    );
    expect(diff.split("\n")).toEqual(["Diff:", "   context", "  -old", "  +new", "    two", ""]);
    const cmd = renderCell(
      makeCell({
        kind: "exec",
        command: "cat > a <<'EOF'\n# a first line long enough that it has to wrap here\n    indented\nEOF",
        output: "",
        exitCode: 0,
        status: "completed",
      }),
      { width: 40, color: false },
    ).split("\n");
    expect(cmd.slice(0, 5)).toEqual([
      "$ cat > a <<'EOF'",
      "  # a first line long enough that it has",
      "  to wrap here",
      "      indented",
      "  EOF",
    ]);
    for (const l of cmd) expect(displayWidth(l)).toBeLessThanOrEqual(40);
  });
});

describe("sub-agent cards", () => {
  // fails if a wait_agent or spawn_agent result is drawn as the JSON the model read, or the
  // final message loses its Markdown
  it("draws wait_agent's children with status and Markdown final message, from history", () => {
    const wait = JSON.stringify({
      status: {
        "t-1": {
          agent_id: "t-1",
          nickname: "Ada",
          role: "explorer",
          status: "completed",
          final_message: "Found **3** tests:\n- a\n- b",
        },
        "t-2": { agent_id: "t-2", nickname: "Bo", role: "worker", status: "failed", error: "model error" },
      },
      timed_out: false,
    });
    const cells = cellsFromHistory(
      [
        {
          type: "function_call",
          call_id: "c1",
          name: "spawn_agent",
          arguments: '{"message":"find the tests","agent_type":"explorer"}',
        },
        { type: "function_call_output", call_id: "c1", output: '{"agent_id":"t-1","nickname":"Ada"}' },
        { type: "function_call", call_id: "c2", name: "wait_agent", arguments: '{"ids":["t-1","t-2"]}' },
        { type: "function_call_output", call_id: "c2", output: wait },
      ] as any,
      () => undefined,
    );
    const text = cells.map((c) => renderCell(c, { width: 60, color: false })).join("\n");
    expect(text).toContain("◇ Sub-agent started\n  ● Ada (explorer) · started\n    find the tests");
    expect(text).toContain("◇ Sub-agents finished\n  ● Ada (explorer) · completed\n    Found 3 tests:");
    expect(text).toMatch(/ {4}• a\n {4}• b/);
    expect(text).toContain("  ● Bo (worker) · failed\n    model error");
    expect(text).not.toContain("final_message");
    expect(text).not.toContain("agent_id");
  });
});
