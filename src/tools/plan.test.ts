import { describe, expect, it } from "vitest";
import { makeCtx } from "./exec/test-helpers.js";
import { createUpdatePlanTool, type PlanUpdate, UpdatePlanArgs, validatePlan } from "./plan.js";
import { ToolRegistry } from "./registry.js";

const call = (args: unknown) => ({
  type: "function_call" as const,
  name: "update_plan",
  arguments: JSON.stringify(args),
  call_id: "c1",
});

async function dispatch(args: unknown, tool = createUpdatePlanTool()) {
  const r = await new ToolRegistry([tool]).dispatch(call(args), makeCtx());
  if (r.aborted) throw new Error("aborted");
  return r.result;
}

describe("update_plan", () => {
  it("has the Codex description and a wire schema requiring plan", () => {
    const tool = createUpdatePlanTool();
    expect(tool.description).toBe(
      "Updates the task plan.\nProvide an optional explanation and a list of plan items, each with a step and status.\nAt most one step can be in_progress at a time.\n",
    );
    const wire = new ToolRegistry([tool]).wire()[0] as { parameters: Record<string, any> };
    expect(wire.parameters.required).toEqual(["plan"]);
    expect(wire.parameters.properties.plan.items.properties.status.enum).toEqual([
      "pending",
      "in_progress",
      "completed",
    ]);
  });

  it("accepts a plan: model sees 'Plan updated', surfaces get a todo_list, listeners the update", async () => {
    const seen: PlanUpdate[] = [];
    const tool = createUpdatePlanTool({ onPlan: (u) => seen.push(u) });
    const plan = [
      { step: "Read the parser", status: "completed" },
      { step: "Fix the bug", status: "in_progress" },
      { step: "Add a test", status: "pending" },
    ];
    const r = await dispatch({ explanation: "Found the cause", plan }, tool);
    expect(r).toEqual({
      output: "Plan updated",
      success: true,
      display: {
        type: "todo_list",
        items: [
          { text: "Read the parser", completed: true },
          { text: "Fix the bug", completed: false },
          { text: "Add a test", completed: false },
        ],
        explanation: "Found the cause",
        plan,
      },
    });
    expect(seen).toEqual([{ explanation: "Found the cause", plan }]);
  });

  it("allows no explanation and an empty plan; a throwing listener is ignored", async () => {
    const tool = createUpdatePlanTool({
      onPlan: () => {
        throw new Error("listener bug");
      },
    });
    const r = await dispatch({ plan: [] }, tool);
    expect(r.success).toBe(true);
    expect(r.display).toMatchObject({ items: [], explanation: null, plan: [] });
  });

  it("rejects two steps in progress, naming them", async () => {
    const r = await dispatch({
      plan: [
        { step: "a", status: "in_progress" },
        { step: "b", status: "completed" },
        { step: "c", status: "in_progress" },
        { step: "d", status: "in_progress" },
      ],
    });
    expect(r).toEqual({
      output:
        "update_plan: at most one step can be in_progress at a time, but steps 1, 3 and 4 are. " +
        "Mark finished steps completed and the others pending.",
      success: false,
    });
  });

  it("rejects blank step text", () => {
    expect(validatePlan({ plan: [{ step: "  ", status: "pending" }] })).toBe(
      "update_plan: step 1 has no text; describe every step.",
    );
    expect(
      validatePlan({
        plan: [
          { step: "", status: "pending" },
          { step: "ok", status: "pending" },
          { step: "", status: "pending" },
        ],
      }),
    ).toBe("update_plan: steps 1 and 3 have no text; describe every step.");
  });

  it("leaves schema errors (bad status, missing plan) to the registry with precise paths", async () => {
    const bad = await dispatch({ plan: [{ step: "a", status: "done" }] });
    expect(bad.success).toBe(false);
    expect(bad.output).toContain("invalid arguments for update_plan: plan.0.status:");
    const missing = await dispatch({ explanation: "x" });
    expect(missing.output).toContain("plan:");
    expect(UpdatePlanArgs.safeParse({ plan: [{ step: "a", status: "pending" }] }).success).toBe(true);
  });
});
