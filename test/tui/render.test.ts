/**
 * Transcript and prompt rendering (README "Use it"): syntax colour in fenced code, the user's
 * words for a declined command, the approval overlay (the command once, the justification once,
 * the rule "Accept and remember" stores, no "(running)"), and the animated working indicator.
 */
import { render } from "ink-testing-library";
import { act, createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { QuestionRequest } from "../../src/protocol/questions.js";
import { highlightLine } from "../../src/surfaces/tui/highlight.js";
import { defaultKeymap } from "../../src/surfaces/tui/keymap.js";
import { QuestionOverlay } from "../../src/surfaces/tui/overlay.js";
import { renderCell, renderMdLine } from "../../src/surfaces/tui/render-cell.js";
import { SPINNER, StatusLine } from "../../src/surfaces/tui/status-line.js";
import { requestOf } from "../../src/surfaces/tui/test-fixtures.js";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
let ui: ReturnType<typeof render> | undefined;
afterEach(() => {
  if (ui) act(() => ui!.unmount());
  ui = undefined;
});

describe("fenced code", () => {
  it("colours keywords, strings, numbers and comments", () => {
    // Fails if code lines are painted in one colour (no highlighter) or the text changes.
    const pieces = highlightLine(`const n = 42; // the "answer"`, "ts");
    expect(pieces.map((p) => p.text).join("")).toBe(`const n = 42; // the "answer"`);
    expect(pieces.find((p) => p.text === "const")?.style).toEqual({ color: "magenta" });
    expect(pieces.find((p) => p.text === "42")?.style).toEqual({ color: "yellow" });
    expect(pieces.at(-1)).toEqual({ text: `// the "answer"`, style: { dim: true, italic: true } });
    const py = highlightLine(`def f(): return 'x'  # note`, "python");
    expect(py.find((p) => p.text === "def")?.style).toEqual({ color: "magenta" });
    expect(py.find((p) => p.text === "'x'")?.style).toEqual({ color: "green" });
    const line = renderMdLine({ kind: "code", text: "let x = 1", lang: "rust" }, [], [], {
      width: 60,
      color: true,
    });
    expect(line[0]).toContain("\x1b[35mlet");
  });
});

describe("a declined command", () => {
  it("tells the user they declined it, not the model's instructions", () => {
    // Fails if the transcript shows the model-directed refusal text.
    const text = renderCell(
      {
        kind: "exec",
        key: "k",
        command: "rm -rf build",
        output:
          "The user declined to run this command. Do not retry it as is; adjust your approach or ask the user how to proceed.",
        exitCode: null,
        status: "declined",
      },
      { width: 80, color: false },
    );
    expect(text).toContain("You declined this command.");
    expect(text).not.toContain("Do not retry");
  });
});

describe("the approval overlay", () => {
  it("shows the command, the justification once and the rule that would be remembered", () => {
    // Fails if the justification prints twice (prompt + details) or the stored rule is not shown.
    const base = requestOf([
      {
        id: "decision",
        header: "Approve",
        prompt: "Run `git push origin main`?\nPublish the release branch",
        kind: "single",
        options: [
          { label: "Accept", description: "run it once" },
          { label: "Accept and remember", description: "store a rule" },
          { label: "Decline", description: "do not run it" },
        ],
        allow_other: false,
        secret: false,
      },
    ]);
    const request: QuestionRequest = {
      ...base,
      source: "internal",
      approval: {
        kind: "exec",
        reason: "Publish the release branch",
        cwd: "/work/project",
        command: "git push origin main",
        justification: "Publish the release branch",
        prefix_rule: ["git", "push"],
      },
    };
    act(() => {
      ui = render(
        h(QuestionOverlay, {
          request,
          keymap: defaultKeymap,
          onSubmit: () => ({ ok: true as const }),
          onDecline: () => ({ ok: true as const }),
          onTouch: () => {},
          maxRows: 30,
        }),
      );
    });
    const frame = ui!.lastFrame() ?? "";
    expect(frame).toContain("$ git push origin main");
    expect(frame.split("Publish the release branch").length - 1).toBe(1);
    expect(frame).toContain("Accept and remember stores the rule: git push …");
    expect(frame).not.toContain("(running)");
  });
});

describe("an approval cannot hide its command", () => {
  // Fails if the overlay passes the model's control characters to the terminal: a carriage
  // return and an erase-line sequence would then show `ls -la` while `touch PWNED` runs, and
  // a bidi override would reverse what the user reads.
  it("shows carriage returns, escapes and bidi overrides as visible symbols", () => {
    const spoof = "touch PWNED #\r\x1b[2Kls -la";
    const base = requestOf([
      {
        id: "decision",
        header: "Approve",
        prompt: `Run \`${spoof}\`?`,
        kind: "single",
        options: [
          { label: "Accept", description: "run it once" },
          { label: "Decline\x1b[2K\rAccept", description: "do not run it" },
        ],
        allow_other: false,
        secret: false,
      },
    ]);
    const request: QuestionRequest = {
      ...base,
      source: "internal",
      approval: {
        kind: "exec",
        reason: "needs the network",
        cwd: "/work/project",
        command: spoof,
        justification: "harmless \u202eexe.tahw",
      },
    };
    act(() => {
      ui = render(
        h(QuestionOverlay, {
          request,
          keymap: defaultKeymap,
          onSubmit: () => ({ ok: true as const }),
          onDecline: () => ({ ok: true as const }),
          onTouch: () => {},
          maxRows: 30,
        }),
      );
    });
    const frame = ui!.lastFrame() ?? "";
    expect(frame).toContain("$ touch PWNED #␍␛[2Kls -la");
    expect(frame).toContain("⟪U+202E⟫");
    expect(frame).toContain("Decline␛[2K␍Accept");
    expect(frame).not.toMatch(/\r|\x1b\[2K|\u202e/);
  });
});

describe("the working indicator", () => {
  it("animates a spinner beside the elapsed time while a turn runs", async () => {
    // Fails if the indicator is static (no spinner frame change while the model streams).
    const status = {
      id: "t1",
      model: "m",
      mode: "default" as const,
      cwd: "/w",
      state: "running" as const,
      usage: null,
      turnStartedAt: Date.now(),
      retrying: null,
      demo: false,
      plan: null,
    };
    act(() => {
      ui = render(h(StatusLine, { status, pending: 0, hint: null }));
    });
    const frameOf = (s: string) => SPINNER.find((f) => s.includes(`${f} working`));
    const first = frameOf(ui!.lastFrame() ?? "");
    expect(first).toBeDefined();
    const end = Date.now() + 10_000;
    let next = first;
    while (next === first && Date.now() < end) {
      await act(() => new Promise((r) => setTimeout(r, 50)));
      next = frameOf(ui!.lastFrame() ?? "");
    }
    expect(next).toBeDefined();
    expect(next).not.toBe(first);
    expect(ui!.lastFrame()).toMatch(/working \d+s/);
  });
});

describe("a command cell cannot hide its command", () => {
  // Fails if the transcript writes the model's control characters to the terminal raw.
  it("shows control characters in the command line as symbols", () => {
    const out = renderCell(
      {
        kind: "exec",
        key: "c",
        command: "touch PWNED #\r\x1b[2Kls",
        status: "completed",
        exitCode: 0,
        output: "",
      } as never,
      { width: 80, color: false },
    );
    expect(out).toContain("touch PWNED #␍␛[2Kls");
    expect(out).not.toMatch(/\r|\x1b\[2K/);
  });
});
