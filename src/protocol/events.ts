/**
 * The one event vocabulary every surface renders (STYLE habit 7). Events are facts that
 * already happened; surfaces never mutate core state from them. The bus stamps each event
 * with a monotonically increasing `seq` (used as the SSE id and for replay after reconnect).
 *
 * Secrets never appear in any event payload: secret answers are replaced by REDACTED.
 */
import * as z from "zod";
import { QuestionOutcome, QuestionRequest, Responder } from "./questions.js";

export const Usage = z.object({
  input_tokens: z.number(),
  cached_input_tokens: z.number(),
  output_tokens: z.number(),
  reasoning_output_tokens: z.number(),
  total_tokens: z.number(),
});
export type Usage = z.infer<typeof Usage>;
export const emptyUsage = (): Usage => ({
  input_tokens: 0,
  cached_input_tokens: 0,
  output_tokens: 0,
  reasoning_output_tokens: 0,
  total_tokens: 0,
});

/** Adds `u` into `total` in place. */
export function addUsage(total: Usage, u: Usage): void {
  total.input_tokens += u.input_tokens;
  total.cached_input_tokens += u.cached_input_tokens;
  total.output_tokens += u.output_tokens;
  total.reasoning_output_tokens += u.reasoning_output_tokens;
  total.total_tokens += u.total_tokens;
}

export const CollaborationMode = z.enum(["default", "plan"]);
export type CollaborationMode = z.infer<typeof CollaborationMode>;

/** `failed`: nothing runs and the thread's last turn failed (the next turn starts from there). */
export const ThreadStatus = z.enum(["idle", "running", "waiting_on_user", "failed", "closed"]);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

export const ErrorKind = z.enum([
  "context_length",
  "quota",
  "rate_limit",
  "overloaded",
  "server",
  "stream",
  "timeout",
  "auth",
  "bad_request",
  "interrupted",
  "other",
]);
export type ErrorKind = z.infer<typeof ErrorKind>;

export const ErrorInfo = z.object({ message: z.string(), kind: ErrorKind });
export type ErrorInfo = z.infer<typeof ErrorInfo>;

export const PlanStep = z.object({
  step: z.string(),
  status: z.enum(["pending", "in_progress", "completed"]),
});

/** Display items: what a surface shows for a turn (not the model history; see items.ts). */
export const TurnItem = z.discriminatedUnion("type", [
  z.object({ id: z.string(), type: z.literal("user_message"), text: z.string() }),
  z.object({ id: z.string(), type: z.literal("agent_message"), text: z.string() }),
  z.object({ id: z.string(), type: z.literal("reasoning"), text: z.string() }),
  z.object({
    id: z.string(),
    type: z.literal("command_execution"),
    command: z.string(),
    aggregated_output: z.string(),
    exit_code: z.number().nullable(),
    status: z.enum(["in_progress", "completed", "failed", "declined"]),
    session_id: z.number().optional(),
    /** The user interrupted it (status `failed`); `aggregated_output` is what it printed first. */
    interrupted: z.boolean().optional(),
  }),
  z.object({
    id: z.string(),
    type: z.literal("tool_call"),
    tool: z.string(),
    arguments: z.string(),
    output: z.string().optional(),
    status: z.enum(["in_progress", "completed", "failed"]),
  }),
  z.object({ id: z.string(), type: z.literal("error"), message: z.string() }),
  z.object({
    id: z.string(),
    type: z.literal("file_change"),
    changes: z.array(
      z.object({
        path: z.string(),
        kind: z.enum(["add", "update", "delete", "move"]),
        move_path: z.string().optional(),
        diff: z.string(),
      }),
    ),
    status: z.enum(["in_progress", "completed", "failed", "declined"]),
    error: z.string().optional().describe("Why a failed patch changed nothing (what the model was told)"),
  }),
  z.object({
    id: z.string(),
    type: z.literal("todo_list"),
    items: z.array(z.object({ text: z.string(), completed: z.boolean() })),
    explanation: z.string().nullable(),
    plan: z.array(PlanStep),
    status: z.enum(["in_progress", "completed", "failed"]).optional(),
  }),
]);
export type TurnItem = z.infer<typeof TurnItem>;

const ids = { thread_id: z.string() };
const turnIds = { thread_id: z.string(), turn_id: z.string() };

export const Event = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("thread.started"),
    ...ids,
    cwd: z.string(),
    model: z.string(),
    mode: CollaborationMode,
  }),
  z.object({ type: z.literal("thread.status_changed"), ...ids, status: ThreadStatus }),
  z.object({
    type: z.literal("mcp.status"),
    ...ids,
    server: z.string().describe("The MCP server's name in config (mcp_servers.NAME)"),
    status: z.enum(["ready", "failed"]).describe("Reported once per server when the thread starts"),
    tools: z.number().describe("Tools of this server offered to the model (0 when failed)"),
    error: z.string().optional().describe("Why it failed; its tools are left out"),
  }),
  z.object({ type: z.literal("turn.started"), ...turnIds, mode: CollaborationMode }),
  z.object({
    type: z.literal("turn.completed"),
    ...turnIds,
    status: z.enum(["completed", "interrupted", "failed"]),
    usage: Usage,
    error: ErrorInfo.optional(),
  }),
  z.object({ type: z.literal("item.started"), ...turnIds, item: TurnItem }),
  z.object({ type: z.literal("item.updated"), ...turnIds, item: TurnItem }),
  z.object({ type: z.literal("item.completed"), ...turnIds, item: TurnItem }),
  z.object({ type: z.literal("agent_message.delta"), ...turnIds, item_id: z.string(), delta: z.string() }),
  z.object({ type: z.literal("reasoning.delta"), ...turnIds, item_id: z.string(), delta: z.string() }),
  z.object({
    type: z.literal("exec.output_delta"),
    ...turnIds,
    item_id: z.string(),
    stream: z.enum(["stdout", "stderr"]),
    chunk: z.string(),
  }),
  z.object({
    type: z.literal("plan.updated"),
    ...turnIds,
    explanation: z.string().nullable(),
    plan: z.array(PlanStep),
  }),
  z.object({ type: z.literal("turn.diff"), ...turnIds, diff: z.string() }),
  z.object({ type: z.literal("input.queued"), ...turnIds, input_id: z.string(), text: z.string() }),
  z.object({ type: z.literal("token.usage"), ...turnIds, last: Usage, total: Usage }),
  z.object({
    type: z.literal("context.compacting"),
    ...turnIds,
    item_id: z.string().describe("Names the compaction on surfaces that show it as an item"),
    reason: z.enum(["auto", "manual", "context_length"]),
  }),
  z.object({
    type: z.literal("context.compacted"),
    ...turnIds,
    item_id: z.string(),
    reason: z.enum(["auto", "manual", "context_length"]),
    before_tokens: z.number().describe("Estimated prompt size before (tokens)"),
    after_tokens: z.number().describe("Estimated prompt size of the compacted view (tokens)"),
    summary: z.string().describe("The handoff summary that replaces older history in the prompt"),
  }),
  z.object({
    type: z.literal("context.compaction_failed"),
    ...turnIds,
    item_id: z.string(),
    message: z.string(),
  }),
  z.object({
    type: z.literal("error"),
    thread_id: z.string().optional(),
    turn_id: z.string().optional(),
    error: ErrorInfo,
    will_retry: z.boolean(),
    attempt: z.number().optional(),
  }),
  z.object({
    type: z.literal("hook.warning"),
    ...ids,
    turn_id: z.string().optional(),
    message: z
      .string()
      .describe(
        'What a user hook reported or why it did not run (README "Hooks"): for the user, never the model',
      ),
  }),
  z.object({ type: z.literal("question.requested"), ...turnIds, request: QuestionRequest }),
  z.object({
    type: z.literal("question.deadline_changed"),
    ...turnIds,
    request_id: z.string(),
    deadline: z.number().nullable(),
  }),
  z.object({
    type: z.literal("question.answered"),
    ...turnIds,
    request_id: z.string(),
    outcome: QuestionOutcome,
    responder: Responder,
  }),
  z.object({
    type: z.literal("question.declined"),
    ...turnIds,
    request_id: z.string(),
    outcome: QuestionOutcome,
    responder: Responder,
  }),
  z.object({
    type: z.literal("question.timed_out"),
    ...turnIds,
    request_id: z.string(),
    outcome: QuestionOutcome,
  }),
  z.object({
    type: z.literal("question.cancelled"),
    ...turnIds,
    request_id: z.string(),
    outcome: QuestionOutcome,
  }),
]);
export type Event = z.infer<typeof Event>;
export type EventType = Event["type"];
export type EventOf<T extends EventType> = Extract<Event, { type: T }>;

/** An event as delivered by the bus. */
export interface Stamped {
  seq: number;
  time: number;
  event: Event;
}
