/**
 * Stored history → Codex turns and items, for `thread/read` and `thread/resume` (best effort: the
 * store keeps model history, not display items).
 *
 * Contract:
 * - Items recorded outside a turn (environment context, AGENTS.md) are context, not conversation:
 *   they are left out, and never become the thread preview.
 * - A tool call and its output become one item keyed by the call id (the id live items used).
 *   `exec_command` becomes a `commandExecution` whose exit code and output are read back from the
 *   output header; `apply_patch` becomes a `fileChange` naming the patch's files, completed when
 *   the output reports the files written, each file with its diff from the turn's stored net diff
 *   (file-change.ts `withTurnDiffs`); other tools become `dynamicToolCall`; a `request_user_input`
 *   call whose request the store has becomes a `dynamicToolCall` with each question and its
 *   answer (question-history.ts; live they travel as server requests, see session.ts), others are
 *   left out, and so are `update_plan` calls (live they are `turn/plan/updated`, plan.ts).
 * - An assistant message with a `<proposed_plan>` block is the message and its `plan` item.
 * - Developer/system messages and reasoning without a summary are left out.
 */

import { SUMMARY_MARKER } from "../../agent/compaction-prompt.js";
import type { CodexThreadItem, CodexTurn } from "../../protocol/app-server.js";
import { attachmentLine } from "../../protocol/attachment.js";
import { type MessageItem, messageText, type ResponseItem, type ToolCallItem } from "../../protocol/items.js";
import { reviewRequestOf } from "../../protocol/review.js";
import type { StoredItem, StoredQuestion, TurnRecord } from "../../protocol/threads.js";
import { parseUserCommandRecord } from "../../protocol/user-command.js";
import { codexCommand, commandActions } from "./codex-command.js";
import { collabItem } from "./collab.js";
import { diffSections, PATCH_TOOL, patchCallItem, withTurnDiffs } from "./file-change.js";
import { codexTurn, dynamicToolCall, QUESTION_TOOL, reviewAnswerText } from "./mapping.js";
import { agentMessageItems, PLAN_TOOL } from "./plan.js";
import { questionCallItem } from "./question-history.js";

/** The stored request a `request_user_input` call asked (runtime.questions.ofCall). */
export type QuestionOf = (callId: string) => StoredQuestion | undefined;

const ABORTED = "aborted";
/** How apply_patch's output starts when the patch was written (tools/patch). */
const PATCH_APPLIED = /^Success\. Updated the following files:/;

/** The first user message of a conversation turn, for thread lists. */
export function threadPreview(items: StoredItem[]): string {
  for (const s of items) {
    if (s.turn_id !== null && s.item.type === "message" && s.item.role === "user") return messageText(s.item);
  }
  return "";
}

/** Turns in start order with their items. Items of unknown turns are dropped. */
export function codexTurns(
  turns: TurnRecord[],
  items: StoredItem[],
  cwd: string,
  questionOf: QuestionOf = () => undefined,
): CodexTurn[] {
  const outputs = new Map<string, string>();
  for (const s of items) {
    const it = s.item;
    if (it.type === "function_call_output" || it.type === "custom_tool_call_output")
      outputs.set(it.call_id, typeof it.output === "string" ? it.output : JSON.stringify(it.output));
  }
  const byTurn = new Map<string, CodexThreadItem[]>();
  for (const t of turns) byTurn.set(t.id, []);
  const running = new Set(turns.filter((t) => t.status === "running").map((t) => t.id));
  const diffs = new Map(turns.map((t) => [t.id, diffSections(t.diff)]));
  // Review turns (review.ts): the request and the answer read back as Codex's review items.
  const reviewTurns = new Set<string>();
  for (const s of items) {
    if (s.turn_id === null) continue;
    const list = byTurn.get(s.turn_id);
    if (!list) continue;
    const review = reviewStored(s.item, s.seq, cwd, reviewTurns, s.turn_id);
    const mapped =
      review ?? storedItem(s.item, s.seq, outputs, cwd, running.has(s.turn_id), s.thread_id, questionOf);
    for (const m of mapped ? [mapped].flat() : []) {
      const sections = diffs.get(s.turn_id);
      list.push(
        m.type === "fileChange" && m.status === "completed" && sections ? withTurnDiffs(m, sections) : m,
      );
    }
  }
  return turns.map((t) => codexTurn(t, byTurn.get(t.id) ?? []));
}

/** A review turn's request (enteredReviewMode) or answer (exitedReviewMode); undefined otherwise. */
function reviewStored(
  item: ResponseItem,
  seq: number,
  cwd: string,
  reviewTurns: Set<string>,
  turnId: string,
): CodexThreadItem | CodexThreadItem[] | undefined {
  if (item.type !== "message") return undefined;
  const id = item.id ?? `item_${seq}`;
  const label = item.role === "user" ? reviewRequestOf(messageText(item)) : undefined;
  if (label !== undefined) {
    reviewTurns.add(turnId);
    return { type: "enteredReviewMode", id, review: label } as unknown as CodexThreadItem;
  }
  if (item.role !== "assistant" || !reviewTurns.has(turnId)) return undefined;
  const text = reviewAnswerText(messageText(item), cwd);
  return [
    { type: "agentMessage", id, text } as CodexThreadItem,
    { type: "exitedReviewMode", id: `${id}-review`, review: text } as unknown as CodexThreadItem,
  ];
}

function storedItem(
  item: ResponseItem,
  seq: number,
  outputs: Map<string, string>,
  cwd: string,
  turnRunning: boolean,
  threadId: string,
  questionOf: QuestionOf,
): CodexThreadItem | CodexThreadItem[] | undefined {
  switch (item.type) {
    case "message":
      return message(item, seq, cwd);
    case "reasoning": {
      const summary = item.summary.map((s) => s.text).filter((t) => t !== "");
      return summary.length
        ? { type: "reasoning", id: item.id ?? `item_${seq}`, summary, content: [] }
        : undefined;
    }
    case "function_call":
    case "custom_tool_call":
      if (item.name === QUESTION_TOOL) {
        const stored = questionOf(item.call_id);
        // A pending one is re-sent as its server request (session.ts), not drawn twice.
        return stored?.outcome ? questionCallItem(item.call_id, stored) : undefined;
      }
      return toolCall(item, outputs.get(item.call_id), cwd, turnRunning, threadId);
    default:
      return undefined;
  }
}

function message(
  item: MessageItem,
  seq: number,
  cwd: string,
): CodexThreadItem | CodexThreadItem[] | undefined {
  const id = item.id ?? `item_${seq}`;
  // A <proposed_plan> block is the plan item it was live (plan.ts).
  if (item.role === "assistant") return agentMessageItems(id, messageText(item), true);
  if (item.role !== "user") return undefined;
  // A compaction's summary item (agent/compaction.ts) is Codex's contextCompaction item.
  if (messageText(item).startsWith(SUMMARY_MARKER))
    return { type: "contextCompaction", id } as unknown as CodexThreadItem;
  // The user's own command (thread/shellCommand, `!cmd`) reads back as the command it was.
  const own = parseUserCommandRecord(messageText(item));
  if (own)
    return {
      type: "commandExecution",
      id,
      command: own.command,
      commandActions: [],
      cwd,
      processId: null,
      status: own.exitCode === 0 && !own.interrupted ? "completed" : "failed",
      aggregatedOutput: own.output,
      exitCode: own.exitCode,
      durationMs: null,
    } as unknown as CodexThreadItem;
  // An attached skill or file reads back as the line it showed live (protocol/attachment.ts).
  const attached = attachmentLine(messageText(item));
  if (attached)
    return {
      type: "userMessage",
      id,
      content: [{ type: "text", text: attached, text_elements: [] }],
    } as unknown as CodexThreadItem;
  const content = item.content.map((c) =>
    c.type === "input_image"
      ? { type: "image" as const, url: c.image_url }
      : { type: "text" as const, text: c.text, text_elements: [] },
  );
  return { type: "userMessage", id, content };
}

function toolCall(
  call: ToolCallItem,
  output: string | undefined,
  cwd: string,
  turnRunning: boolean,
  threadId: string,
): CodexThreadItem | undefined {
  if (call.name === QUESTION_TOOL || call.name === PLAN_TOOL) return undefined;
  const args = call.type === "function_call" ? call.arguments : call.input;
  const pendingStatus = turnRunning ? "in_progress" : "failed";
  if (call.name === PATCH_TOOL) {
    const status = output === undefined ? pendingStatus : PATCH_APPLIED.test(output) ? "completed" : "failed";
    return patchCallItem(call.call_id, args, status);
  }
  if (call.name !== "exec_command") {
    const status = output === undefined ? pendingStatus : output === ABORTED ? "failed" : "completed";
    const collab = collabItem(call.call_id, call.name, args, status, output, threadId);
    if (collab) return collab;
    return dynamicToolCall(call.call_id, call.name, args, status, output);
  }
  let command = "";
  let shell: string | undefined;
  try {
    const parsed = JSON.parse(args) as { cmd?: unknown; shell?: unknown };
    if (typeof parsed.cmd === "string") command = parsed.cmd;
    if (typeof parsed.shell === "string") shell = parsed.shell;
  } catch {
    /* unparsable arguments: the model was told; show an empty command */
  }
  const exit = output === undefined ? null : /^Process exited with code (-?\d+)$/m.exec(output);
  const session = output === undefined ? null : /^Process running with session ID (\d+)$/m.exec(output);
  const exitCode = exit ? Number(exit[1]) : null;
  const body = output === undefined ? null : /^Output:\n([\s\S]*)$/m.exec(output);
  const status =
    output === undefined
      ? turnRunning
        ? "inProgress"
        : "failed"
      : output === ABORTED
        ? "failed"
        : exitCode !== null && exitCode !== 0
          ? "failed"
          : "completed";
  return {
    type: "commandExecution",
    id: call.call_id,
    command: codexCommand(command, shell),
    commandActions: commandActions(command, cwd),
    cwd,
    processId: session ? session[1] : null,
    status,
    aggregatedOutput: body ? body[1] : output === undefined ? null : "",
    exitCode,
    durationMs: null,
  };
}
