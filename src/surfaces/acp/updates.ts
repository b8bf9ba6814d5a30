/**
 * Tandem's live events → ACP `session/update`s for one session (a small stateful mapper).
 *
 * Contract:
 * - Message and reasoning deltas become `agent_message_chunk` / `agent_thought_chunk` (messageId =
 *   Tandem's item id). An item completed without deltas (not streamed) is sent whole, once.
 * - A tool call becomes `tool_call` (id = the model's call id, so permission requests and
 *   elicitations name the same tool call) with a kind: exec_command/write_stdin `execute`,
 *   apply_patch `edit`, update_plan `think`, anything else `other`; then `tool_call_update`s.
 * - Commands: the command is the title; output streams as the call's content (text, replaced with
 *   the output so far on each chunk, the last OUTPUT_LIMIT characters); the final update carries the
 *   exit code as rawOutput. A declined or failed command ends `failed`.
 * - Patches: the files are the locations; while pending the content shows the proposed diffs
 *   (diffs.ts), once applied the written diffs; a refused or failed patch ends `failed` with why.
 * - `plan.updated` becomes a `plan` update (all entries medium priority: Tandem has none); the
 *   update_plan call then ends `completed` with the checklist as its content.
 * - Everything else (usage, status, question events, turn diffs) maps to nothing here: questions
 *   travel as requests (asker.ts), the turn's end is the prompt's response.
 */
import type { SessionUpdate, ToolCallContent, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk";
import type { Event, TurnItem } from "../../protocol/events.js";
import { type DisplayChange, patchDiffs, patchPaths, patchText, unifiedDiffs } from "./diffs.js";

export const OUTPUT_LIMIT = 64 * 1024;
export const PATCH_TOOL = "apply_patch";
export const QUESTION_TOOL = "request_user_input";

const KINDS: Record<string, ToolKind> = {
  exec_command: "execute",
  write_stdin: "execute",
  [PATCH_TOOL]: "edit",
  update_plan: "think",
};

export const toolKind = (tool: string): ToolKind => KINDS[tool] ?? "other";

export const text = (t: string): ToolCallContent => ({ type: "content", content: { type: "text", text: t } });

/** Command output as tool-call content (a fenced block, the tail when long). */
export function outputContent(output: string): ToolCallContent[] {
  if (output === "") return [];
  const tail = output.length > OUTPUT_LIMIT ? `…${output.slice(-OUTPUT_LIMIT)}` : output;
  return [text(`\`\`\`\n${tail.replace(/\n$/, "")}\n\`\`\``)];
}

export function toolTitle(tool: string, args: string, cwd: string): string {
  if (tool === PATCH_TOOL) {
    const files = patchPaths(patchText(args), cwd).map((p) => p.split("/").pop());
    return files.length ? `Edit ${files.join(", ")}` : "Edit files";
  }
  if (tool === QUESTION_TOOL) return "Ask the user";
  if (tool === "update_plan") return "Update the plan";
  return tool;
}

/** The `tool_call` that starts a generic tool item (patches included). */
export function toolCallStart(id: string, tool: string, args: string, cwd: string): SessionUpdate {
  const base = {
    sessionUpdate: "tool_call" as const,
    toolCallId: id,
    title: toolTitle(tool, args, cwd),
    name: tool,
    kind: toolKind(tool),
    status: "in_progress" as const,
  };
  if (tool !== PATCH_TOOL) return { ...base, rawInput: parseArgs(args) };
  const patch = patchText(args);
  return {
    ...base,
    locations: patchPaths(patch, cwd).map((path) => ({ path })),
    content: patchDiffs(patch, cwd),
  };
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

const status = (s: string): ToolCallStatus =>
  s === "completed" ? "completed" : s === "in_progress" ? "in_progress" : "failed";

export class SessionUpdates {
  private streamed = new Set<string>();
  private outputs = new Map<string, string>();

  /** `cwd` of the thread's running turn (patch paths are relative to it). */
  constructor(private readonly cwd: () => string) {}

  map(event: Event): SessionUpdate[] {
    switch (event.type) {
      case "agent_message.delta":
      case "reasoning.delta":
        this.streamed.add(event.item_id);
        return [
          {
            sessionUpdate:
              event.type === "agent_message.delta" ? "agent_message_chunk" : "agent_thought_chunk",
            messageId: event.item_id,
            content: { type: "text", text: event.delta },
          },
        ];
      case "exec.output_delta": {
        const so_far = (this.outputs.get(event.item_id) ?? "") + event.chunk;
        this.outputs.set(
          event.item_id,
          so_far.length > 2 * OUTPUT_LIMIT ? so_far.slice(-OUTPUT_LIMIT) : so_far,
        );
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.item_id,
            status: "in_progress",
            content: outputContent(this.outputs.get(event.item_id)!),
          },
        ];
      }
      case "item.started":
        return this.started(event.item);
      case "item.completed":
        return this.completed(event.item);
      case "context.compacted":
      case "context.compaction_failed":
        // Compaction (automatic, or `/compact`) shows as a line of the agent's message.
        return [
          {
            sessionUpdate: "agent_message_chunk",
            messageId: event.item_id,
            content: {
              type: "text",
              text:
                event.type === "context.compacted"
                  ? `Compacted the conversation: ~${event.before_tokens} → ~${event.after_tokens} tokens in the prompt (the thread keeps its full history).\n`
                  : `Compaction failed: ${event.message}\n`,
            },
          },
        ];
      case "hook.warning":
        // A user hook that failed or was skipped (README "Hooks"): a line of the agent's message,
        // as the editor has no other place for the user to read it.
        return [
          {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: `Hook: ${event.message}\n` },
          },
        ];
      case "plan.updated":
        return [
          {
            sessionUpdate: "plan",
            entries: event.plan.map((s) => ({ content: s.step, status: s.status, priority: "medium" })),
          },
        ];
      default:
        return [];
    }
  }

  private started(item: TurnItem): SessionUpdate[] {
    switch (item.type) {
      case "command_execution":
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: item.id,
            title: item.command,
            name: "exec_command",
            kind: "execute",
            status: "in_progress",
            rawInput: { command: item.command },
          },
        ];
      case "tool_call":
        return [toolCallStart(item.id, item.tool, item.arguments, this.cwd())];
      default:
        return [];
    }
  }

  private completed(item: TurnItem): SessionUpdate[] {
    switch (item.type) {
      case "agent_message":
      case "reasoning": {
        if (this.streamed.delete(item.id) || item.text === "") return [];
        const kind = item.type === "agent_message" ? "agent_message_chunk" : "agent_thought_chunk";
        return [{ sessionUpdate: kind, messageId: item.id, content: { type: "text", text: item.text } }];
      }
      case "command_execution": {
        this.outputs.delete(item.id);
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: item.id,
            status: status(item.status),
            content: [
              ...outputContent(item.aggregated_output),
              ...(item.status === "declined" ? [text("The command was declined; it did not run.")] : []),
            ],
            rawOutput: { exit_code: item.exit_code, output: item.aggregated_output },
          },
        ];
      }
      case "file_change": {
        const changes = item.changes as DisplayChange[];
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: item.id,
            status: status(item.status),
            ...(item.status === "completed"
              ? { content: unifiedDiffs(changes, this.cwd()) }
              : { content: [text(item.error ?? "The patch was not applied; no file changed.")] }),
          },
        ];
      }
      case "tool_call":
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: item.id,
            status: status(item.status),
            ...(item.output !== undefined
              ? { content: [text(item.output)], rawOutput: parseArgs(item.output) }
              : {}),
          },
        ];
      // update_plan finishes as its checklist (the plan itself went out as a `plan` update).
      case "todo_list":
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: item.id,
            status: item.status === "failed" ? "failed" : "completed",
            content: [
              text(item.plan.map((s) => `${s.status === "completed" ? "[x]" : "[ ]"} ${s.step}`).join("\n")),
            ],
          },
        ];
      default:
        return [];
    }
  }
}
