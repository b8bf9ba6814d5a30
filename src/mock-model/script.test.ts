import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitArguments, splitTokens } from "./output.js";
import { loadScriptFile, MockModelScriptError, parseScript } from "./script.js";
import {
  QUESTION_DEMO_QUESTIONS,
  questionDemo,
  README_DEMO_ARGUMENTS,
  README_DEMO_FINAL,
  readmeDemo,
} from "./scripts.js";

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a throw");
}

describe("parseScript", () => {
  it("applies defaults", () => {
    const script = parseScript({ steps: [{}, { output: [{ type: "function_call", name: "x" }] }] });
    expect(script.steps[0].output).toEqual([]);
    expect(script.steps[1].output[0]).toEqual({ type: "function_call", name: "x", arguments: {} });
  });

  it("names the step and field of an unknown output type", () => {
    const err = errorOf(() => parseScript({ steps: [{}, { output: [{ type: "image" }] }] }));
    expect(MockModelScriptError.isInstance(err)).toBe(true);
    expect(err.message).toContain("mock-model: invalid script inline script:");
    expect(err.message).toContain("step 2 (steps[1].output[0].type)");
  });

  it("names a missing function name, a bad fault code and a typo'd key in one message", () => {
    const err = errorOf(() =>
      parseScript({
        steps: [
          { output: [{ type: "function_call", arguments: {} }] },
          { fault: { type: "failed", code: "teapot" } },
          { delay: 5 },
        ],
      }),
    );
    expect(err.message).toContain("step 1 (steps[0].output[0].name)");
    expect(err.message).toContain("step 2 (steps[1].fault.code)");
    expect(err.message).toMatch(/step 3 \(steps\[2\]\): Unrecognized key: "delay"/);
    expect(err.message).toContain("docs/mock-model.md");
  });

  it("rejects a non-error http status and a missing steps array", () => {
    expect(
      errorOf(() => parseScript({ steps: [{ fault: { type: "http", status: 200 } }] })).message,
    ).toContain("step 1 (steps[0].fault.status)");
    expect(errorOf(() => parseScript({ step: [] })).message).toContain("steps: Invalid input");
  });
});

describe("loadScriptFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "mock-model-script-"));

  it("loads a valid file", () => {
    const path = join(dir, "ok.json");
    writeFileSync(
      path,
      JSON.stringify({ model: "m", steps: [{ output: [{ type: "message", text: "hi" }] }] }),
    );
    expect(loadScriptFile(path).model).toBe("m");
  });

  it("reports invalid JSON, a missing file and a bad script with the path", () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{ steps: ");
    expect(errorOf(() => loadScriptFile(bad)).message).toMatch(
      /^mock-model: script .*bad\.json is not valid JSON/,
    );
    expect(errorOf(() => loadScriptFile(join(dir, "none.json"))).message).toMatch(
      /cannot read script .*none\.json/,
    );
    const wrong = join(dir, "wrong.json");
    writeFileSync(wrong, JSON.stringify({ steps: [{ output: [{ type: "message" }] }] }));
    expect(errorOf(() => loadScriptFile(wrong)).message).toContain(`invalid script ${wrong}`);
  });
});

describe("built-in scripts", () => {
  it("readmeDemo carries the seed's ids and exact argument strings", () => {
    const script = parseScript(readmeDemo());
    expect(script.steps).toHaveLength(4);
    const calls = script.steps.slice(0, 3).map((s) => s.output[0]);
    expect(calls.map((c) => (c.type === "function_call" ? [c.id, c.call_id, c.name] : []))).toEqual([
      ["fc_001", "call_001", "exec_command"],
      ["fc_002", "call_002", "exec_command"],
      ["fc_003", "call_003", "exec_command"],
    ]);
    expect(README_DEMO_ARGUMENTS.check).toBe('{"cmd":"printf \'README absent\\\\n\'","yield_time_ms":1000}');
    expect(JSON.parse(README_DEMO_ARGUMENTS.check).cmd).toBe("printf 'README absent\\n'");
    expect(JSON.parse(README_DEMO_ARGUMENTS.write).cmd).toBe(
      "cat > README.md <<'EOF'\n# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。\nEOF",
    );
    expect(JSON.parse(README_DEMO_ARGUMENTS.verify)).toEqual({ cmd: "cat README.md", yield_time_ms: 1000 });
    expect(script.steps[3].output).toEqual([{ type: "message", text: README_DEMO_FINAL }]);
    expect(script.steps[0].token_delay_ms).toBeUndefined();
    expect(parseScript(readmeDemo({ tokenDelayMs: 15 })).steps.every((s) => s.token_delay_ms === 15)).toBe(
      true,
    );
  });

  it("questionDemo asks two questions, then writes, then reports", () => {
    const script = parseScript(questionDemo());
    const ask = script.steps[0].output.find((o) => o.type === "function_call");
    expect(ask).toMatchObject({ name: "request_user_input", arguments: QUESTION_DEMO_QUESTIONS });
    expect(QUESTION_DEMO_QUESTIONS.questions.map((q) => q.id)).toEqual(["stack", "name"]);
    expect(script.steps[1].output[0]).toMatchObject({ name: "exec_command" });
    expect(script.steps[2].output[0].type).toBe("message");
  });
});

describe("chunking", () => {
  it("splits text into word and CJK tokens that join back", () => {
    const text = "  Hello, world!\n\nREADME.md 已创建 🎉 done ";
    const tokens = splitTokens(text);
    expect(tokens.join("")).toBe(text);
    expect(tokens).toContain("Hello, ");
    expect(tokens).toContain("已");
    expect(splitTokens("")).toEqual([]);
  });

  it("splits arguments by code points without breaking surrogate pairs", () => {
    const args = JSON.stringify({ cmd: "echo 🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉" });
    const pieces = splitArguments(args, 5);
    expect(pieces.join("")).toBe(args);
    for (const p of pieces) expect(p).not.toMatch(/[\ud800-\udbff]$/);
  });
});
