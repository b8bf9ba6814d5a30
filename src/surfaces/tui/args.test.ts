import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { parseTuiArgs, UsageError } from "./args.js";
import { COMMANDS, parseCommand } from "./commands.js";

describe("tui args", () => {
  it("parses the flags", () => {
    expect(
      parseTuiArgs([
        "--cd",
        tmpdir(),
        "-m",
        "gpt-x",
        "-c",
        "a=1",
        "-c",
        "b=2",
        "--resume",
        "t1",
        "--mode",
        "plan",
        "--tui",
      ]),
    ).toEqual({
      cd: tmpdir(),
      model: "gpt-x",
      config: ["a=1", "b=2"],
      resumeId: "t1",
      mode: "plan",
      help: false,
      prompt: undefined,
    });
    expect(parseTuiArgs(["hello there"]).prompt).toBe("hello there");
  });

  it("rejects bad input with a usage error", () => {
    expect(() => parseTuiArgs(["--mode", "fast"])).toThrow(UsageError);
    expect(() => parseTuiArgs(["--nope"])).toThrow(UsageError);
    expect(() => parseTuiArgs(["a", "b"])).toThrow(/at most one PROMPT/);
    // Fails if a missing --cd is accepted (the TUI would store a thread for it).
    expect(() => parseTuiArgs(["--cd", "/nonexistent-tandem-dir"])).toThrow(/does not exist/);
  });
});

describe("slash commands", () => {
  it("parses commands, arguments, aliases and literal slashes", () => {
    expect(parseCommand("hello")).toBeNull();
    expect(parseCommand("//etc/hosts")).toBeNull();
    expect(parseCommand("/resume abc")).toEqual({ ok: true, name: "resume", arg: "abc" });
    expect(parseCommand("/exit")).toEqual({ ok: true, name: "quit", arg: "" });
    const bad = parseCommand("/frobnicate");
    expect(bad).toMatchObject({ ok: false });
    expect(bad && !bad.ok && bad.error).toContain("/plan");
    expect(Object.keys(COMMANDS)).toEqual([
      ...[
        "model",
        "approvals",
        "status",
        "diff",
        "review",
        "undo",
        "redo",
        "rewind",
        "fork",
        "compact",
        "init",
      ],
      ...["plan", "default"],
      ...["new", "clear", "resume", "threads", "agents", "skills", "help", "quit"],
    ]);
  });
});
