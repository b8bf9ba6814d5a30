import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answersIn, fillAnswers } from "./answers.js";
import { planStep } from "./output.js";
import { parseScript } from "./script.js";
import { DEMO_ENDED_MESSAGE, projectDemo } from "./scripts.js";
import { startMockModel } from "./server.js";
import { readEvents } from "./test-util.js";

/** A request body carrying request_user_input's output, as Tandem sends it. */
function bodyWith(answers: Record<string, unknown>) {
  const output = JSON.stringify({ status: "answered", answers, unanswered: [] });
  return {
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
      { type: "function_call_output", call_id: "call_q01", output },
    ],
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Plans the project demo's scaffold step for `stack` and runs its command in a temp dir. */
function scaffold(stack: string, name: string): string {
  const script = parseScript(projectDemo());
  const plan = planStep(
    script.steps[1],
    2,
    bodyWith({ stack: { selected: [stack] }, name: { selected: [], other: name } }),
  );
  const call = plan.items[0];
  if (call.type !== "function_call") throw new Error("expected a function call");
  const dir = mkdtempSync(join(tmpdir(), "tandem-answers-"));
  dirs.push(dir);
  execFileSync("bash", ["-c", JSON.parse(call.arguments).cmd], { cwd: dir });
  return dir;
}

describe("{{answer:ID}} placeholders", () => {
  // Fails if the free text does not win over a selection, or a later output does not override.
  it("reads answers from request_user_input outputs, later ones winning", () => {
    const body = bodyWith({ stack: { selected: ["Rust"] }, name: { selected: ["x"], other: " My App " } });
    body.input.push({
      type: "function_call_output",
      call_id: "c2",
      output: '{"answers":{"stack":{"selected":["Go"]}}}',
    });
    const answers = answersIn(body);
    expect(answers.get("stack")).toBe("Go");
    expect(answers.get("name")).toBe("My App");
    expect(
      fillAnswers("{{answer:name}}/{{answer:name|slug}}/{{answer:none}}/{{answer:none|slug}}", answers),
    ).toBe("My App/my-app//demo");
  });

  // Fails if the scripted scaffold ignores the stack answer.
  it("the project demo writes a Rust project for Rust and a TypeScript one otherwise", () => {
    const rust = scaffold("Rust", "Demo App");
    expect(readFileSync(join(rust, "Cargo.toml"), "utf8")).toContain('name = "demo-app"');
    expect(readFileSync(join(rust, "src/main.rs"), "utf8")).toContain("Hello from demo-app!");
    expect(existsSync(join(rust, "package.json"))).toBe(false);
    const ts = scaffold("TypeScript (Recommended)", "it's; rm -rf ~");
    expect(JSON.parse(readFileSync(join(ts, "package.json"), "utf8")).name).toBe("it-s-rm-rf");
    expect(existsSync(join(ts, "src/index.ts"))).toBe(true);
    expect(existsSync(join(ts, "Cargo.toml"))).toBe(false);
  });

  // Fails if a string `arguments` gets the raw value (a quote would break its JSON).
  it("escapes values inserted into verbatim JSON arguments", () => {
    const step = parseScript({
      steps: [{ output: [{ type: "function_call", name: "f", arguments: '{"q":"{{answer:name}}"}' }] }],
    }).steps[0];
    const plan = planStep(step, 1, bodyWith({ name: { selected: [], other: 'say "hi"\n' } }));
    const call = plan.items[0];
    expect(call.type === "function_call" && JSON.parse(call.arguments)).toEqual({ q: 'say "hi"' });
  });
});

describe("ended_message", () => {
  // Fails if a request after the last step gets the 400 "script exhausted" instead of one message.
  it("answers every request after the script's end with one assistant message", async () => {
    const model = await startMockModel({ script: projectDemo() });
    try {
      const post = () =>
        fetch(`${model.url}/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", stream: true, input: [] }),
        });
      for (let i = 0; i < 3; i++) expect((await post()).status).toBe(200);
      for (let i = 0; i < 2; i++) {
        const res = await post();
        expect(res.status).toBe(200);
        const { events } = await readEvents(res);
        const done = events.filter((e) => e.type === "response.output_item.done");
        expect(done).toHaveLength(1);
        expect(done[0].item.content[0].text).toBe(DEMO_ENDED_MESSAGE);
      }
    } finally {
      await model.close();
    }
  });
});
