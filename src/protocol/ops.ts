/**
 * Operations a surface submits to the runtime. Validated at the surface boundary.
 */
import * as z from "zod";
import { CollaborationMode } from "./events.js";
import { QuestionPolicy, QuestionReply } from "./questions.js";

export const TurnOptions = z.object({
  model: z.string().optional(),
  effort: z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  mode: CollaborationMode.optional(),
  question_policy: QuestionPolicy.optional(),
  output_schema: z.record(z.string(), z.unknown()).optional(),
  cwd: z.string().optional(),
  sandbox: z.enum(["read-only", "workspace-write", "danger-full-access"]).optional(),
  approval_policy: z.enum(["never", "on-request", "on-failure", "untrusted"]).optional(),
  read_only_tools: z
    .boolean()
    .optional()
    .describe(
      "Only tools that cannot change anything (a review): no MCP tools, sub-agents, write_stdin or patches",
    ),
});
export type TurnOptions = z.infer<typeof TurnOptions>;

export const Op = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("user_input"),
    thread_id: z.string(),
    text: z.string(),
    images: z.array(z.string()).optional(),
    options: TurnOptions.optional(),
  }),
  z.object({ type: z.literal("steer"), thread_id: z.string(), text: z.string() }),
  z.object({ type: z.literal("interrupt"), thread_id: z.string() }),
  z.object({ type: z.literal("shutdown") }),
  z.object({
    type: z.literal("question_reply"),
    thread_id: z.string(),
    request_id: z.string(),
    reply: QuestionReply,
  }),
  z.object({
    type: z.literal("question_decline"),
    thread_id: z.string(),
    request_id: z.string(),
    reason: z.string().optional(),
  }),
  z.object({ type: z.literal("question_touch"), request_id: z.string() }),
]);
export type Op = z.infer<typeof Op>;
