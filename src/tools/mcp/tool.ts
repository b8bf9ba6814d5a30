/**
 * One MCP server tool as a Tandem function tool (README "MCP servers").
 *
 * Contract of the tool's `execute`:
 * - parameters: the server's `inputSchema` goes to the model as is (`wireParameters`); Tandem
 *   only checks that the arguments are a JSON object and passes them through — the server
 *   validates them and answers an error the model sees.
 * - approvals: under `untrusted`, a tool without `annotations.readOnlyHint` asks first through
 *   the approval queue as an "exec" approval whose command is `mcp__server__tool {json args}`
 *   (accept and remember stores the tool's name as the rule); decline → an error output the
 *   model sees, cancel → the call ends aborted (the turn is interrupted).
 * - `tool_timeout_sec` counts active time (paused while a question of the thread is pending,
 *   requirements Q9): past it, the call is cancelled on the server and the model gets an error output.
 * - abort (interrupt): the SDK sends `notifications/cancelled`; the call ends aborted.
 * - While the call runs, `elicitation/create` from this server asks through this call's
 *   context (`activeCalls`, read by tools/mcp/elicit.ts).
 */
import * as z from "zod";
import type { McpServerConfig } from "../../config/schema.js";
import { AbortError } from "../../util/abort.js";
import { APPROVAL_UNAVAILABLE, type FunctionTool, type ToolContext, type ToolResult } from "../types.js";
import type { McpConnection, McpTool } from "./connection.js";
import { toToolResult } from "./results.js";

/** Tool calls of one connection running now, newest last (elicitation asks through the last). */
export type ActiveCalls = ToolContext[];

const Args = z.record(z.string(), z.unknown());

/** The input schema as a Responses function's parameters: an object schema, `properties` present. */
export function wireSchema(inputSchema: McpTool["inputSchema"]): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...(inputSchema as Record<string, unknown>) };
  delete schema.$schema;
  schema.type = "object";
  if (typeof schema.properties !== "object" || schema.properties === null) schema.properties = {};
  return schema;
}

export function mcpTool(opts: {
  name: string;
  server: string;
  tool: McpTool;
  config: McpServerConfig;
  connection: McpConnection;
  activeCalls: ActiveCalls;
}): FunctionTool<Record<string, unknown>> {
  const { name, server, tool, config, connection, activeCalls } = opts;
  const title = tool.annotations?.title ?? tool.title;
  return {
    kind: "function",
    name,
    description: `${tool.description ?? title ?? tool.name} (MCP server "${server}", tool "${tool.name}")`,
    parameters: Args,
    wireParameters: wireSchema(tool.inputSchema),
    async execute(args, ctx): Promise<ToolResult> {
      if (ctx.safety.approvalPolicy === "untrusted" && tool.annotations?.readOnlyHint !== true) {
        const decision = await ctx.safety.requestApproval({
          kind: "exec",
          reason: `MCP server "${server}" tool "${tool.name}" is not marked read-only`,
          command: `${name} ${JSON.stringify(args)}`,
          cwd: ctx.cwd,
          prefix_rule: [name],
        });
        if (decision === "cancel") throw new AbortError("cancelled at the approval");
        if (decision === "decline")
          return { output: `The user declined this call of ${name}; it did not run.`, success: false };
        if (decision === "unavailable") return { output: APPROVAL_UNAVAILABLE, success: false };
      }
      const timeout = new AbortController();
      const signal = AbortSignal.any([ctx.signal, timeout.signal]);
      activeCalls.push(ctx);
      try {
        const call = connection.callTool(tool.name, args, signal);
        call.catch(() => {});
        const woke = await ctx.pause.waitActive(config.tool_timeout_sec * 1000, {
          signal: ctx.signal,
          wake: call,
        });
        if (ctx.signal.aborted) throw new AbortError();
        if (!woke) {
          timeout.abort(new Error("tool_timeout_sec"));
          return {
            output: `MCP tool ${name} timed out after ${config.tool_timeout_sec} s (tool_timeout_sec); the server was told to cancel it.`,
            success: false,
          };
        }
        try {
          return toToolResult(await call);
        } catch (err) {
          if (ctx.signal.aborted) throw new AbortError();
          const message = ((err as Error)?.message ?? String(err)).replace(/^MCP error -?\d+: /, "");
          return {
            output: `MCP server "${server}" failed the call of ${tool.name}: ${message}`,
            success: false,
          };
        }
      } finally {
        activeCalls.splice(activeCalls.indexOf(ctx), 1);
      }
    },
  };
}
