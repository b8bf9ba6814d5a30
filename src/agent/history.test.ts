/** normalizeForPrompt: every call paired once, outputs in call order (README "Sandbox and approvals"). */
import { describe, expect, it } from "vitest";
import { type FunctionCallItem, outputFor, type ResponseItem, userMessage } from "../protocol/items.js";
import { ABORTED_OUTPUT, normalizeForPrompt } from "./history.js";

const call = (id: string): FunctionCallItem => ({
  type: "function_call",
  name: "exec_command",
  call_id: id,
  arguments: "{}",
});
const shape = (items: ResponseItem[]) =>
  items.map((i) => ("call_id" in i ? `${i.type.endsWith("_output") ? "out" : "call"}:${i.call_id}` : i.type));

describe("normalizeForPrompt", () => {
  // fails if outputs stored as they finished (out of call order) reach the model unsorted.
  it("puts a run of outputs stored out of order back in call order", () => {
    const [a, b, c] = [call("a"), call("b"), call("c")];
    const h = [userMessage("hi"), a, b, c, outputFor(c, "C"), outputFor(a, "A"), outputFor(b, "B")];
    expect(shape(normalizeForPrompt(h))).toEqual([
      "message",
      "call:a",
      "call:b",
      "call:c",
      "out:a",
      "out:b",
      "out:c",
    ]);
  });

  // fails if an orphan's "aborted" output is appended after its finished siblings instead of in
  // call order, or if a second output for one call reaches the model.
  it("merges aborted outputs for orphans in call order and drops duplicate outputs", () => {
    const [a, b, c] = [call("a"), call("b"), call("c")];
    const h = [a, b, outputFor(b, "B"), outputFor(b, "again"), c, outputFor(c, "C"), userMessage("next")];
    const out = normalizeForPrompt(h);
    expect(shape(out)).toEqual(["call:a", "call:b", "out:a", "out:b", "call:c", "out:c", "message"]);
    expect(out[2]).toMatchObject({ output: ABORTED_OUTPUT });
    expect(out[3]).toMatchObject({ output: "B" });
  });

  it("leaves history already in call order unchanged", () => {
    const [a, b] = [call("a"), call("b")];
    const h = [userMessage("x"), a, outputFor(a, "A"), b, outputFor(b, "B"), userMessage("y")];
    expect(normalizeForPrompt(h)).toEqual(h);
  });
});
