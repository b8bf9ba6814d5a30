/**
 * PreToolUse and PostToolUse as the tool registry's pre/post hooks (tools/registry.ts), for
 * every tool — `exec_command` (as `Bash`), `apply_patch`, MCP tools, `request_user_input` — with
 * the semantics of README "Hooks":
 *
 * - PreToolUse runs before the arguments are validated and before anything is registered or
 *   shown: exit 2 or `deny` refuses the call and the model reads the reason; `updatedInput`
 *   rewrites the arguments (a command, the questions of `request_user_input`); `ask` becomes a
 *   real approval through the question protocol (`ctx.safety.requestApproval`: stored, shown on
 *   every surface, declined when nobody can answer) and the call runs only if it is accepted.
 *   `allow` is no objection: the tool's own approval rules still apply.
 * - PostToolUse runs after the tool: exit 2 or `decision: "block"` gives the model the reason —
 *   for `request_user_input` instead of the answer (withheld: the question, the answer and the
 *   stored transcript stay as they were; only what the model reads changes); `additionalContext`
 *   (of either event) is appended to what the model reads; `updatedMCPToolOutput` replaces an
 *   MCP tool's output.
 * - `continue: false` stops the turn (`host.interrupt`), with the call refused (pre) or done (post).
 */
import type { ToolOutputPayload } from "../protocol/items.js";
import { withheldModelResult } from "../questions/model.js";
import type { ToolHooks } from "../tools/registry.js";
import { APPROVAL_UNAVAILABLE, type ToolContext } from "../tools/types.js";
import { AbortError } from "../util/abort.js";
import type { HookDecision } from "./engine.js";
import { fromToolInput, hookToolName, toolInput, toolNames } from "./match.js";
import type { HookEvent } from "./types.js";

/** What the tool hooks need from whoever owns the loaded hooks (the runtime). */
export interface ToolHooksHost {
  /** Fires `event` in the call's thread (trust, environment and warnings are the host's). */
  fire(
    ctx: ToolContext,
    event: HookEvent,
    input: Record<string, unknown>,
    names: readonly string[],
  ): Promise<HookDecision>;
  interrupt(threadId: string, reason: string): void;
}

const clip = (s: string, n = 2000) => (s.length > n ? `${s.slice(0, n)}…` : s);

function appendText(output: ToolOutputPayload, text: string): ToolOutputPayload {
  if (typeof output === "string") return output ? `${output}\n\n${text}` : text;
  return [...output, { type: "input_text", text }];
}

const outputText = (output: ToolOutputPayload): string =>
  typeof output === "string"
    ? output
    : output.map((c) => ("text" in c && typeof c.text === "string" ? c.text : "")).join("\n");

export function createToolHooks(host: ToolHooksHost): ToolHooks {
  // additionalContext of a PreToolUse, added to the call's output once it exists.
  const pending = new Map<string, string[]>();
  return {
    async pre(call, ctx) {
      const names = toolNames(call.name);
      const d = await host.fire(
        ctx,
        "PreToolUse",
        {
          tool_name: hookToolName(call.name),
          tool_input: toolInput(call.name, call.args),
          tool_use_id: call.callId,
        },
        names,
      );
      if (d.context.length) pending.set(call.callId, d.context);
      if (d.stop) {
        host.interrupt(ctx.threadId, d.stop);
        return { block: `stopped by a PreToolUse hook: ${d.stop}` };
      }
      if (d.block) return { block: d.block };
      if (d.permission === "deny") return { block: d.reason ?? "denied by a PreToolUse hook" };
      const args =
        d.updatedInput !== undefined ? fromToolInput(call.name, call.args, d.updatedInput) : undefined;
      if (d.permission === "ask") {
        const now = args ?? call.args;
        const command =
          call.name === "exec_command" && typeof (now as { cmd?: unknown })?.cmd === "string"
            ? (now as { cmd: string }).cmd
            : `${hookToolName(call.name)} ${clip(typeof now === "string" ? now : JSON.stringify(now))}`;
        const decision = await ctx.safety.requestApproval({
          kind: "exec",
          reason: d.reason ?? `A PreToolUse hook asks you to approve this ${hookToolName(call.name)} call.`,
          command,
          cwd: ctx.cwd,
        });
        if (decision === "cancel") throw new AbortError("cancelled by the user at an approval");
        if (decision === "decline") return { block: "the user declined this call (a PreToolUse hook asked)" };
        if (decision === "unavailable") return { block: APPROVAL_UNAVAILABLE };
      }
      return args !== undefined ? { args } : undefined;
    },
    async post(call, ctx) {
      const before = pending.get(call.callId) ?? [];
      pending.delete(call.callId);
      const names = toolNames(call.name);
      const d = await host.fire(
        ctx,
        "PostToolUse",
        {
          tool_name: hookToolName(call.name),
          tool_input: toolInput(call.name, call.args),
          tool_response: call.result.output,
          tool_use_id: call.callId,
        },
        names,
      );
      let output = call.result.output;
      let changed = false;
      if (d.updatedOutput !== undefined && call.name.startsWith("mcp__")) {
        output = typeof d.updatedOutput === "string" ? d.updatedOutput : JSON.stringify(d.updatedOutput);
        changed = true;
      }
      if (d.block !== undefined) {
        if (call.name === "request_user_input") {
          const ids = questionIds(call.args);
          output = withheldModelResult(ids, d.block);
        } else output = appendText(outputText(output), `PostToolUse hook: ${d.block}`);
        changed = true;
      }
      for (const c of [...before, ...d.context]) {
        output = appendText(output, c);
        changed = true;
      }
      if (d.stop) host.interrupt(ctx.threadId, d.stop);
      return changed ? { output } : undefined;
    },
  };
}

function questionIds(args: unknown): string[] {
  const qs = (args as { questions?: unknown })?.questions;
  if (!Array.isArray(qs)) return [];
  return qs.map((q) => (q as { id?: unknown })?.id).filter((id): id is string => typeof id === "string");
}
