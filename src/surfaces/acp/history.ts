/**
 * A stored thread's history as ACP `session/update`s, for `session/load` (pure).
 *
 * Contract:
 * - Items recorded outside a turn (environment context, AGENTS.md) are context, not conversation:
 *   left out. Developer and system messages too.
 * - User messages → `user_message_chunk` (text, images as image blocks); assistant messages →
 *   `agent_message_chunk`; reasoning summaries → `agent_thought_chunk`. A compaction's summary
 *   (stored as a user message) is one `agent_message_chunk` saying the conversation was compacted.
 * - A tool call and its output become one `tool_call` with its final status: `completed`, or
 *   `failed` when the call was aborted, the command exited non-zero, or the patch was not written;
 *   a call without output is `in_progress` while its turn runs, else `failed`. Commands carry their
 *   output, patches the diffs of their patch text, other tools their output as text.
 *   `update_plan` calls also replay their plan as a `plan` update.
 */
import type { ContentBlock, SessionUpdate, ToolCallStatus } from "@agentclientprotocol/sdk";
import { isSummaryItem } from "../../agent/compaction.js";
import type { MessageItem, ResponseItem, ToolCallItem } from "../../protocol/items.js";
import type { StoredItem } from "../../protocol/threads.js";
import { outputContent, PATCH_TOOL, text, toolCallStart } from "./updates.js";

const ABORTED = "aborted";
const COMPACTED = "Compacted the conversation (the thread keeps its full history).\n";
const PATCH_APPLIED = /^Success\. Updated the following files:/;

/** The updates replaying `items`; `runningTurn` is the id of a turn still running, if any. */
export function historyUpdates(items: StoredItem[], cwd: string, runningTurn?: string): SessionUpdate[] {
  const outputs = new Map<string, string>();
  for (const { item } of items)
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output")
      outputs.set(item.call_id, typeof item.output === "string" ? item.output : JSON.stringify(item.output));
  const out: SessionUpdate[] = [];
  for (const s of items) {
    if (s.turn_id === null) continue;
    out.push(...itemUpdates(s.item, outputs, cwd, s.turn_id === runningTurn));
  }
  return out;
}

function itemUpdates(
  item: ResponseItem,
  outputs: Map<string, string>,
  cwd: string,
  running: boolean,
): SessionUpdate[] {
  switch (item.type) {
    case "message":
      return message(item);
    case "reasoning": {
      const summary = item.summary.map((s) => s.text).filter((t) => t !== "");
      return summary.length
        ? [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: summary.join("\n\n") } }]
        : [];
    }
    case "function_call":
    case "custom_tool_call":
      return toolCall(item, outputs.get(item.call_id), cwd, running);
    default:
      return [];
  }
}

function message(item: MessageItem): SessionUpdate[] {
  if (item.role !== "user" && item.role !== "assistant") return [];
  if (isSummaryItem(item))
    return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: COMPACTED } }];
  const kind = item.role === "user" ? "user_message_chunk" : "agent_message_chunk";
  return item.content.map((c): SessionUpdate => {
    const content: ContentBlock =
      c.type === "input_image" ? imageBlock(c.image_url) : { type: "text", text: c.text };
    return { sessionUpdate: kind, ...(item.id ? { messageId: item.id } : {}), content };
  });
}

function imageBlock(url: string): ContentBlock {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (m) return { type: "image", mimeType: m[1], data: m[2] };
  return { type: "resource_link", uri: url, name: url };
}

function callStatus(call: ToolCallItem, output: string | undefined, running: boolean): ToolCallStatus {
  if (output === undefined) return running ? "in_progress" : "failed";
  if (output === ABORTED) return "failed";
  if (call.name === PATCH_TOOL) return PATCH_APPLIED.test(output) ? "completed" : "failed";
  if (call.name === "exec_command") {
    const exit = /^Process exited with code (-?\d+)$/m.exec(output);
    return exit && Number(exit[1]) !== 0 ? "failed" : "completed";
  }
  return "completed";
}

function toolCall(
  call: ToolCallItem,
  output: string | undefined,
  cwd: string,
  running: boolean,
): SessionUpdate[] {
  const args = call.type === "function_call" ? call.arguments : call.input;
  const status = callStatus(call, output, running);
  const start = toolCallStart(call.call_id, call.name, args, cwd) as Extract<
    SessionUpdate,
    { sessionUpdate: "tool_call" }
  >;
  const updates: SessionUpdate[] = [];
  if (call.name === "exec_command") {
    const command = commandOf(args);
    const body = output === undefined ? null : /^Output:\n([\s\S]*)$/m.exec(output);
    updates.push({
      ...start,
      title: command || start.title,
      status,
      content: body ? outputContent(body[1]) : output ? [text(output)] : [],
    });
  } else if (call.name === PATCH_TOOL) {
    updates.push({
      ...start,
      status,
      ...(status === "failed" && output ? { content: [...(start.content ?? []), text(output)] } : {}),
    });
  } else {
    updates.push({ ...start, status, ...(output !== undefined ? { content: [text(output)] } : {}) });
  }
  if (call.name === "update_plan") {
    const plan = planOf(args);
    if (plan) updates.push({ sessionUpdate: "plan", entries: plan });
  }
  return updates;
}

function commandOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as { cmd?: unknown };
    return typeof parsed.cmd === "string" ? parsed.cmd : "";
  } catch {
    return "";
  }
}

type Entry = Extract<SessionUpdate, { sessionUpdate: "plan" }>["entries"][number];

function planOf(args: string): Entry[] | undefined {
  try {
    const parsed = JSON.parse(args) as { plan?: Array<{ step?: unknown; status?: unknown }> };
    if (!Array.isArray(parsed.plan)) return undefined;
    return parsed.plan
      .filter((s) => typeof s.step === "string")
      .map((s) => ({
        content: s.step as string,
        priority: "medium",
        status: s.status === "completed" || s.status === "in_progress" ? s.status : "pending",
      }));
  } catch {
    return undefined;
  }
}
