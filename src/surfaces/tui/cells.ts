/**
 * Transcript cells: the finished, immutable entries of the conversation view. Once a cell is
 * committed it is printed once (Ink `<Static>`) and never redrawn, which keeps streaming cheap.
 * Also converts a stored thread's history into cells for `/resume` and `--resume`.
 */

import { SUMMARY_MARKER } from "../../agent/compaction-prompt.js";
import { attachmentLine } from "../../protocol/attachment.js";
import type { Usage } from "../../protocol/events.js";
import { type MessageItem, messageText, type ResponseItem, type ToolCallItem } from "../../protocol/items.js";
import { diffSections, patchFiles, patchText, sectionFor } from "../../protocol/patch-history.js";
import type { QuestionOutcome, QuestionRequest } from "../../protocol/questions.js";
import { parseReview, type ReviewResult, reviewRequestLine, reviewRequestOf } from "../../protocol/review.js";
import { parseUserCommandRecord } from "../../protocol/user-command.js";
import { agentCard } from "./agent-card.js";
import { type MdLine, parseLines } from "./markdown.js";

export type Tone = "info" | "warn" | "error" | "dim" | "ok";

/** One sub-agent on an `agents` card: its name, role, status and final message (Markdown). */
export interface AgentCardEntry {
  name: string;
  role?: string | undefined;
  status: string;
  message?: string | undefined;
  error?: string | undefined;
}

export type Cell =
  | { kind: "banner"; key: string; title: string; lines: string[] }
  | { kind: "user"; key: string; text: string; late?: boolean }
  /** A run of complete Markdown lines of one assistant message; `first` starts the message. */
  | { kind: "agent"; key: string; lines: MdLine[]; first: boolean }
  | { kind: "reasoning"; key: string; text: string }
  | {
      kind: "exec";
      key: string;
      command: string;
      output: string;
      exitCode: number | null;
      status: string;
    }
  | { kind: "tool"; key: string; tool: string; status: string; detail: string }
  /** A review's findings (runtime/review.ts), or the reason its answer could not be read. */
  | { kind: "review"; key: string; result: ReviewResult | null; error?: string; cwd: string }
  /** Sub-agents started or waited for (agent-card.ts). */
  | { kind: "agents"; key: string; title: string; agents: AgentCardEntry[] }
  /** The model's task plan (`update_plan`). */
  | { kind: "plan"; key: string; explanation: string | null; steps: Array<{ step: string; status: string }> }
  /** Files changed by `apply_patch`, with their unified diffs. */
  | {
      kind: "files";
      key: string;
      status: string;
      changes: Array<{ path: string; kind: string; move_path?: string; diff: string }>;
      /** Why a failed patch changed nothing. */
      error?: string;
    }
  | { kind: "questions"; key: string; request: QuestionRequest; outcome: QuestionOutcome }
  | { kind: "notice"; key: string; text: string; tone: Tone }
  | {
      kind: "turn";
      key: string;
      status: "completed" | "interrupted" | "failed";
      ms: number | null;
      usage: Usage | null;
      error?: string;
    };

/** Distributes `Omit` over the union so each cell kind keeps its own fields. */
export type CellInput = Cell extends infer C ? (C extends Cell ? Omit<C, "key"> : never) : never;

let counter = 0;
/** A process-unique key for `<Static>`. */
export const cellKey = () => `c${++counter}`;
export const makeCell = (c: CellInput): Cell => ({ ...c, key: cellKey() }) as Cell;

/** Whether a user message is injected context (environment, AGENTS.md), not something typed. */
/**
 * `turnDiff` for cellsFromHistory from a thread's stored items and turns: a call's turn's net
 * diff, split per file (protocol/patch-history.ts).
 */
export function patchDiffsOf(
  stored: ReadonlyArray<{ item: ResponseItem; turn_id: string | null }>,
  turns: ReadonlyArray<{ id: string; diff?: string | null | undefined }>,
): (callId: string) => Map<string, string> | undefined {
  const turnOf = new Map<string, string>();
  for (const s of stored)
    if ((s.item.type === "function_call" || s.item.type === "custom_tool_call") && s.turn_id)
      turnOf.set(s.item.call_id, s.turn_id);
  const byTurn = new Map(turns.map((t) => [t.id, t.diff]));
  const cache = new Map<string, Map<string, string>>();
  return (callId) => {
    const turn = turnOf.get(callId);
    if (!turn) return undefined;
    let sections = cache.get(turn);
    if (!sections) {
      sections = diffSections(byTurn.get(turn));
      cache.set(turn, sections);
    }
    return sections;
  };
}

/** The cell for a review's final message: its findings, or why they could not be read. */
export function reviewCell(text: string, cwd: string): CellInput {
  const r = parseReview(text);
  return r.ok
    ? { kind: "review", result: r.result, cwd }
    : { kind: "review", result: null, error: `${r.error}; the model answered:\n${text}`, cwd };
}

export function isContextMessage(item: MessageItem): boolean {
  const text = messageText(item);
  return (
    text.startsWith("<environment_context>") ||
    text.startsWith("# AGENTS.md") ||
    text.startsWith("<subagent_context>")
  );
}

/** Output text and exit code from an `exec_command` result header (requirements T1). */
export function parseExecOutput(output: string): {
  text: string;
  exitCode: number | null;
  interrupted: boolean;
} {
  const exit =
    /Process exited with code (-?\d+)|Process interrupted by .* \(killed; exit code (-?\d+)\)/.exec(output);
  const interrupted =
    /^Process (interrupted by |exited with code -?\d+; then the turn was interrupted)/m.test(output);
  const at = output.indexOf("Output:\n");
  const text = at >= 0 ? output.slice(at + "Output:\n".length) : output;
  return { text, exitCode: exit ? Number(exit[1] ?? exit[2]) : null, interrupted };
}

const argsText = (call: ToolCallItem): string =>
  call.type === "custom_tool_call" ? call.input : call.arguments;

function argsOf(call: ToolCallItem): Record<string, unknown> {
  if (call.type === "custom_tool_call") return { input: call.input };
  try {
    const v = JSON.parse(call.arguments);
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

const outputText = (o: unknown) => (typeof o === "string" ? o : JSON.stringify(o));

/**
 * Cells for a stored history. `question(callId)` returns the settled request of a
 * `request_user_input` call when the store has it (then shown as a question history entry).
 */
export function cellsFromHistory(
  items: readonly ResponseItem[],
  question: (callId: string) => { request: QuestionRequest; outcome: QuestionOutcome | null } | undefined,
  /** The per-file sections of the net diff of the turn a call ran in (patchDiffsOf), for apply_patch. */
  turnDiff: (callId: string) => Map<string, string> | undefined = () => undefined,
  /** The thread's directory: review findings show paths under it relative to it. */
  cwd = "",
): Cell[] {
  const outputs = new Map<string, unknown>();
  for (const it of items)
    if (it.type === "function_call_output" || it.type === "custom_tool_call_output")
      outputs.set(it.call_id, it.output);
  const cells: Cell[] = [];
  let reviewing = false;
  for (const it of items) {
    switch (it.type) {
      case "message": {
        // A compaction's summary item (agent/compaction.ts) is a marker line, not user input.
        if (it.role === "user" && messageText(it).startsWith(SUMMARY_MARKER))
          cells.push(makeCell({ kind: "notice", text: "context compacted", tone: "dim" }));
        else if (it.role === "user" && parseUserCommandRecord(messageText(it))) {
          // The user's own `!command`, shown as the command it was.
          const r = parseUserCommandRecord(messageText(it))!;
          cells.push(
            makeCell({
              kind: "exec",
              command: r.command,
              output: r.output,
              exitCode: r.exitCode,
              status: r.interrupted ? "interrupted" : r.exitCode === 0 ? "completed" : "failed",
            }),
          );
        } else if (it.role === "user" && reviewRequestOf(messageText(it)) !== undefined) {
          // A review's prompt shows as the request it was; its answer as the findings.
          reviewing = true;
          cells.push(makeCell({ kind: "user", text: reviewRequestLine(reviewRequestOf(messageText(it))!) }));
        } else if (it.role === "assistant" && reviewing) {
          reviewing = false;
          cells.push(makeCell(reviewCell(messageText(it), cwd)));
        } else if (it.role === "user" && !isContextMessage(it))
          // An attached skill or file reads back as the line it showed live (protocol/attachment.ts).
          cells.push(makeCell({ kind: "user", text: attachmentLine(messageText(it)) ?? messageText(it) }));
        else if (it.role === "assistant") {
          const { out } = parseLines(messageText(it).split("\n"));
          cells.push(makeCell({ kind: "agent", lines: out, first: true }));
        }
        break;
      }
      case "reasoning": {
        const text = it.summary.map((s) => s.text).join("\n\n");
        if (text) cells.push(makeCell({ kind: "reasoning", text }));
        break;
      }
      case "function_call":
      case "custom_tool_call": {
        const out = outputs.get(it.call_id);
        // The approvals this call needed, with their decisions, before it (as they were live).
        for (let n = 1; n <= 5; n++) {
          const a = question(`${it.call_id}#approval${n}`);
          if (!a) break;
          if (a.outcome) cells.push(makeCell({ kind: "questions", request: a.request, outcome: a.outcome }));
        }
        if (it.name === "exec_command") {
          const parsed =
            out === undefined
              ? { text: "", exitCode: null, interrupted: false }
              : parseExecOutput(outputText(out));
          cells.push(
            makeCell({
              kind: "exec",
              command: String(argsOf(it).cmd ?? ""),
              output: parsed.text,
              exitCode: parsed.exitCode,
              status:
                out === undefined
                  ? "pending"
                  : parsed.interrupted
                    ? "interrupted"
                    : parsed.exitCode === 0
                      ? "completed"
                      : "failed",
            }),
          );
          break;
        }
        if (it.name === "apply_patch") {
          // Drawn as it was live: the files, each with its diff from the turn's stored diff.
          const sections = turnDiff(it.call_id) ?? new Map<string, string>();
          const text = out === undefined ? undefined : outputText(out);
          const ok = text?.startsWith("Success.") === true;
          cells.push(
            makeCell({
              kind: "files",
              status: text === undefined ? "pending" : ok ? "completed" : "failed",
              changes: ok
                ? patchFiles(patchText(argsText(it))).map((f) => ({
                    path: f.path,
                    kind: f.move_path ? "move" : f.kind,
                    ...(f.move_path ? { move_path: f.move_path } : {}),
                    diff: sectionFor(sections, f.move_path ?? f.path) ?? sectionFor(sections, f.path) ?? "",
                  }))
                : [],
              ...(text !== undefined && !ok ? { error: text } : {}),
            }),
          );
          break;
        }
        if (it.name === "update_plan") {
          const args = argsOf(it) as { plan?: Array<{ step: string; status: string }>; explanation?: string };
          if (Array.isArray(args.plan)) {
            cells.push(makeCell({ kind: "plan", explanation: args.explanation ?? null, steps: args.plan }));
            break;
          }
        }
        const q = it.name === "request_user_input" ? question(it.call_id) : undefined;
        if (q?.outcome) {
          cells.push(makeCell({ kind: "questions", request: q.request, outcome: q.outcome }));
          break;
        }
        const card = out === undefined ? undefined : agentCard(it.name, argsText(it), outputText(out));
        if (card) {
          cells.push(makeCell(card));
          break;
        }
        cells.push(
          makeCell({
            kind: "tool",
            tool: it.name,
            status: out === undefined ? "pending" : "completed",
            detail: out === undefined ? "" : outputText(out),
          }),
        );
        break;
      }
      default:
        break;
    }
  }
  return cells;
}
