/**
 * `update_plan` (requirements T3): the model keeps a visible step list with statuses.
 *
 * Contract of `execute`:
 * - Arguments are schema-checked by the registry; then `validatePlan` enforces what the schema
 *   cannot say (at most one step in_progress, no blank step text) with a precise message and
 *   `success:false`; the plan is not recorded then.
 * - Success: the model sees `Plan updated`; `display` is `{type: "todo_list", items: [{text,
 *   completed}], explanation, plan}` (`explanation` null when absent); `onPlan(update, ctx)`
 *   runs (e.g. for the runtime to publish a plan event); a throwing listener is ignored.
 * - Never waits, never touches files; abort before running → AbortError.
 */
import * as z from "zod";
import { AbortError } from "../util/abort.js";
import type { FunctionTool, ToolContext, ToolResult } from "./types.js";

export const TOOL_NAME = "update_plan";

export const StepStatus = z.enum(["pending", "in_progress", "completed"]);
export type StepStatus = z.infer<typeof StepStatus>;

export const PlanStep = z.object({
  step: z.string().describe("What this step does, in a short sentence."),
  status: StepStatus.describe("One of: pending, in_progress, completed"),
});
export type PlanStep = z.infer<typeof PlanStep>;

export const UpdatePlanArgs = z.object({
  explanation: z.string().optional().describe("Optional: why the plan changed."),
  plan: z.array(PlanStep).describe("The list of steps"),
});
export type UpdatePlanArgs = z.infer<typeof UpdatePlanArgs>;

export const DESCRIPTION = `Updates the task plan.
Provide an optional explanation and a list of plan items, each with a step and status.
At most one step can be in_progress at a time.
`;

export interface PlanUpdate {
  explanation: string | null;
  plan: PlanStep[];
}

export interface UpdatePlanToolOptions {
  /** Called with every accepted plan. */
  onPlan?(update: PlanUpdate, ctx: ToolContext): void;
}

/** The error the model should see, or undefined when the plan is acceptable. */
export function validatePlan(args: UpdatePlanArgs): string | undefined {
  const blank = args.plan.map((s, i) => (s.step.trim() === "" ? i + 1 : 0)).filter((n) => n > 0);
  if (blank.length > 0)
    return `update_plan: ${blank.length > 1 ? "steps" : "step"} ${list(blank)} ${blank.length > 1 ? "have" : "has"} no text; describe every step.`;
  const active = args.plan.map((s, i) => (s.status === "in_progress" ? i + 1 : 0)).filter((n) => n > 0);
  if (active.length > 1)
    return (
      `update_plan: at most one step can be in_progress at a time, but steps ${list(active)} are. ` +
      "Mark finished steps completed and the others pending."
    );
  return undefined;
}

function list(ns: number[]): string {
  return ns.length === 1 ? `${ns[0]}` : `${ns.slice(0, -1).join(", ")} and ${ns[ns.length - 1]}`;
}

export function createUpdatePlanTool(opts: UpdatePlanToolOptions = {}): FunctionTool<UpdatePlanArgs> {
  return {
    kind: "function",
    name: TOOL_NAME,
    description: DESCRIPTION,
    parameters: UpdatePlanArgs,
    async execute(args, ctx): Promise<ToolResult> {
      if (ctx.signal.aborted) throw new AbortError("update_plan was interrupted");
      const error = validatePlan(args);
      if (error) return { output: error, success: false };
      const update: PlanUpdate = {
        explanation: args.explanation ?? null,
        plan: args.plan.map((s) => ({ step: s.step, status: s.status })),
      };
      try {
        opts.onPlan?.(update, ctx);
      } catch {
        /* a listener's failure does not undo the update */
      }
      const display = {
        type: "todo_list",
        items: update.plan.map((s) => ({ text: s.step, completed: s.status === "completed" })),
        explanation: update.explanation,
        plan: update.plan,
      };
      // `todo_list` is not yet a TurnItem member (the lead adds it); the patch is passed through.
      return { output: "Plan updated", success: true, display: display as unknown as ToolResult["display"] };
    },
  };
}
