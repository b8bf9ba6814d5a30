/**
 * Sub-agent tools (README "Sub-agents"), with Codex's names and argument names: `spawn_agent`,
 * `send_input`, `wait_agent`, `close_agent`, `list_agents`.
 *
 * Contract: the tools only validate and format; the work is `AgentOps`' (runtime/agents), bound
 * to the calling thread through `ctx.threadId`. An op that throws (a limit, an unknown id) becomes
 * an error output the model reads (the registry's rule); an AbortError marks the call aborted.
 * Results are JSON text. `wait_agent` honours `ctx.signal` (interrupt ends the wait at once).
 */
import * as z from "zod";
import type { FunctionTool, ToolContext, ToolResult } from "./types.js";

export const SpawnAgentArgs = z.strictObject({
  message: z.string().min(1).describe("The task for the sub-agent: everything it needs to know"),
  agent_type: z.string().optional().describe("A role listed in this tool's description (default: default)"),
  model: z.string().optional().describe("Model for the sub-agent (default: the role's, else yours)"),
  reasoning_effort: z
    .enum(["minimal", "low", "medium", "high", "xhigh"])
    .optional()
    .describe("Reasoning effort for the sub-agent"),
});
export type SpawnAgentArgs = z.infer<typeof SpawnAgentArgs>;

export const SendInputArgs = z.strictObject({
  id: z.string().min(1).describe("The sub-agent's agent_id (or nickname)"),
  message: z.string().min(1).describe("What to tell it"),
  interrupt: z
    .boolean()
    .optional()
    .describe("true: stop what it is doing and start on this message; false (default): queue it"),
});
export type SendInputArgs = z.infer<typeof SendInputArgs>;

export const WaitAgentArgs = z.strictObject({
  ids: z.array(z.string().min(1)).min(1).describe("agent_ids (or nicknames) to wait for"),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(3_600_000)
    .optional()
    .describe("Stop waiting after this long (default 300000); the result then says timed_out"),
});
export type WaitAgentArgs = z.infer<typeof WaitAgentArgs>;

export const CloseAgentArgs = z.strictObject({
  id: z.string().min(1).describe("The sub-agent's agent_id (or nickname)"),
});
export type CloseAgentArgs = z.infer<typeof CloseAgentArgs>;

export const ListAgentsArgs = z.strictObject({});

/** What the tools need from the runtime; every method acts for the thread `ctx.threadId`. */
export interface AgentOps {
  spawn(args: SpawnAgentArgs, ctx: ToolContext): Promise<unknown> | unknown;
  send(args: SendInputArgs, ctx: ToolContext): Promise<unknown> | unknown;
  wait(args: WaitAgentArgs, ctx: ToolContext): Promise<unknown>;
  close(args: CloseAgentArgs, ctx: ToolContext): Promise<unknown>;
  list(ctx: ToolContext): unknown;
}

export const AGENT_TOOL_NAMES = ["spawn_agent", "send_input", "wait_agent", "close_agent", "list_agents"];

const json = async (p: Promise<unknown> | unknown): Promise<ToolResult> => ({
  output: JSON.stringify(await p),
  success: true,
});

/** The five tools; `roles` is the role list shown in spawn_agent's description. */
export function createAgentTools(ops: AgentOps, opts: { roles: string; maxDepth: number }): FunctionTool[] {
  const spawn: FunctionTool<SpawnAgentArgs> = {
    kind: "function",
    name: "spawn_agent",
    description: [
      "Start a sub-agent on a task; it works in parallel with you, in its own thread, with your sandbox",
      "and approval policy. Returns {agent_id, nickname}; collect its result with wait_agent.",
      "Give it a self-contained task. Its questions and approvals reach the user, attributed to it.",
      `Sub-agents may nest ${opts.maxDepth} level(s) deep. Roles (agent_type):`,
      opts.roles,
    ].join("\n"),
    parameters: SpawnAgentArgs,
    execute: (args, ctx) => json(ops.spawn(args, ctx)),
  };
  const send: FunctionTool<SendInputArgs> = {
    kind: "function",
    name: "send_input",
    description:
      "Send a message to a sub-agent you spawned. While it works the message is queued for its next step; " +
      "interrupt: true stops its current work first. An idle sub-agent starts working on it.",
    parameters: SendInputArgs,
    execute: (args, ctx) => json(ops.send(args, ctx)),
  };
  const wait: FunctionTool<WaitAgentArgs> = {
    kind: "function",
    name: "wait_agent",
    description:
      "Wait until the given sub-agents finish their current work (or timeout_ms passes). Returns each " +
      "one's status (completed, failed, interrupted, closed, running, waiting_on_user) and final message; " +
      "timed_out: true when the time ran out first.",
    parameters: WaitAgentArgs,
    execute: (args, ctx) => json(ops.wait(args, ctx)),
  };
  const close: FunctionTool<CloseAgentArgs> = {
    kind: "function",
    name: "close_agent",
    description: "Stop a sub-agent for good (its own sub-agents too). Returns its last status.",
    parameters: CloseAgentArgs,
    execute: (args, ctx) => json(ops.close(args, ctx)),
  };
  const list: FunctionTool<Record<string, never>> = {
    kind: "function",
    name: "list_agents",
    description: "List the sub-agents you spawned: agent_id, nickname, role, status and task.",
    parameters: ListAgentsArgs,
    execute: (_args, ctx) => json(ops.list(ctx)),
  };
  return [spawn, send, wait, close, list] as FunctionTool[];
}
