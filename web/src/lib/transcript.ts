/**
 * The transcript of one thread as display entries, built from its stored history
 * (`GET /thread/:id` items) and then kept current from live events. Pure (no DOM): the view
 * renders `entries`; `version` moves on every change.
 *
 * Contract:
 * - Entries are keyed: an item id (a call id for tool calls), `plan_<turn>` for the turn's
 *   checklist (every update of the plan redraws the same list), `diff_<turn>` for the turn diff,
 *   `start_`/`end_<turn>` for turn markers. A live event for a key the history drew updates
 *   that entry in place, so a reload followed by live events never shows anything twice.
 * - A changed entry is a new object (views can memoise by identity); unchanged ones are kept.
 * - Model text is kept as is; views decide how to show it (Markdown, printable()).
 */
import { compactionLine, SUMMARY_MARKER } from "../../../src/agent/compaction-prompt.js";
import { parseWaitResult, type WaitedAgent } from "../../../src/protocol/agent-results.js";
import { attachmentLine } from "../../../src/protocol/attachment.js";
import type { Event, TurnItem } from "../../../src/protocol/events.js";
import type { SettledApproval, TurnSummary } from "../../../src/protocol/http.js";
import type { ResponseItem } from "../../../src/protocol/items.js";
import { diffSections } from "../../../src/protocol/patch-history.js";
import type { QuestionRequest } from "../../../src/protocol/questions.js";
import {
  parseReview,
  type ReviewResult,
  reviewRequestLine,
  reviewRequestOf,
} from "../../../src/protocol/review.js";
import { parseUserCommandRecord } from "../../../src/protocol/user-command.js";
import { type DiffFile, parseCodexPatch, parseUnifiedDiff } from "./diff.js";
import { approvalEntry, storedPatchFiles } from "./settled.js";
import { type SubAgentEntry, subAgentEntry } from "./subagent.js";

export interface PlanStep {
  step: string;
  status: "pending" | "in_progress" | "completed";
}
export type Entry =
  /** `turn`: the stored turn the message started (what a rewind or fork at it takes), if known. */
  | { kind: "user"; id: string; text: string; images: string[]; queued?: boolean; turn?: string }
  | { kind: "agent"; id: string; text: string }
  | { kind: "reasoning"; id: string; text: string }
  | { kind: "command"; id: string; command: string; output: string; exit: number | null; status: string }
  | {
      kind: "tool";
      id: string;
      tool: string;
      args: string;
      output?: string;
      images: string[];
      status: string;
    }
  | { kind: "question"; id: string; asked: string; result?: string }
  | { kind: "patch"; id: string; files: DiffFile[]; status: string; error?: string }
  /** A settled approval: what it asked (subject, then reason) and the decision. */
  | { kind: "approval"; id: string; prompt: string; decision: string; accepted: boolean }
  | { kind: "plan"; id: string; explanation: string | null; steps: PlanStep[] }
  | { kind: "diff"; id: string; files: DiffFile[] }
  | { kind: "turn"; id: string; text: string; status: string; error?: string }
  | { kind: "error"; id: string; text: string }
  /** A user hook that failed or was skipped (README "Hooks"): shown, never sent to the model. */
  | { kind: "warning"; id: string; text: string }
  | SubAgentEntry
  /** A review's answer (/review): its findings, or the raw answer when it could not be read. */
  | { kind: "review"; id: string; result: ReviewResult | null; raw: string }
  /** A `wait_agent` result: each child's name, role, status and final message (Markdown). */
  | { kind: "waited"; id: string; agents: WaitedAgent[]; timedOut: boolean };

/** Tools whose live items are drawn as their history is, not as a generic tool cell. */
const SPECIAL = new Set(["apply_patch", "request_user_input", "spawn_agent", "wait_agent"]);
const HIDDEN_USER = [
  "<environment_context>",
  "# AGENTS.md instructions",
  "<user_instructions>",
  "<subagent_context>",
];

/** A live user message that is a review's request (its display line). */
const isReviewRequest = (text: string) => /^Review: /.test(text);

function reviewEntry(id: string, text: string): Entry {
  const r = parseReview(text);
  return { kind: "review", id, result: r.ok ? r.result : null, raw: text };
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
function outputText(o: unknown): string {
  if (typeof o === "string") return o;
  if (Array.isArray(o)) return o.map((c) => (c && typeof c.text === "string" ? c.text : "")).join("");
  return JSON.stringify(o);
}
function outputImages(o: unknown): string[] {
  return Array.isArray(o) ? o.filter((c) => c?.type === "input_image").map((c) => String(c.image_url)) : [];
}
/** The command's output from an exec_command result text (after `Output:`). */
export function execOutput(text: string): string {
  const m = /(?:^|\n)Output:\n?/.exec(text);
  return m ? text.slice(m.index + m[0].length) : text;
}
export function execExit(text: string): number | null {
  const m = /Process exited with code (-?\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}
/** "stack: Rust (note: …) · name: my-app" for answers keyed by question id. */
export function describeAnswers(
  answers: Record<string, { selected?: string[]; other?: string; note?: string }>,
) {
  return Object.keys(answers || {})
    .map((id) => {
      const a = answers[id];
      const parts = [...(a.selected ?? [])];
      if (a.other !== undefined) parts.push(a.other);
      return `${id}: ${parts.join(", ")}${a.note ? ` (note: ${a.note})` : ""}`;
    })
    .join(" · ");
}
/** The model-facing result of request_user_input as one readable line. */
export function questionResult(text: string): string {
  const r = parseJson(text);
  if (!r || typeof r.status !== "string") return text;
  const rest = r.unanswered?.length ? ` · unanswered: ${r.unanswered.join(", ")}` : "";
  const answers = describeAnswers(r.answers);
  return r.status + (answers ? ` · ${answers}` : "") + rest;
}
function askedOf(args: string): string {
  const a = parseJson(args);
  return a && Array.isArray(a.questions)
    ? `Asked: ${a.questions.map((q: any) => q.header || q.question || q.id).join(", ")}`
    : args;
}
function planOf(args: string): { explanation: string | null; steps: PlanStep[] } | undefined {
  const a = parseJson(args);
  if (!a || !Array.isArray(a.plan)) return undefined;
  return { explanation: typeof a.explanation === "string" ? a.explanation : null, steps: a.plan };
}
function patchText(tool: string, args: string): string {
  if (tool === "apply_patch") {
    const a = parseJson(args);
    if (a && typeof a.input === "string") return a.input;
  }
  return args;
}

export class Transcript {
  entries: Entry[] = [];
  version = 0;
  private index = new Map<string, number>();

  get(id: string): Entry | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.entries[i];
  }
  /** Inserts `e` or replaces the entry with its id (keeping its place). */
  /** A review's request was the last user message: the next answer is its findings. */
  private reviewing = false;
  /** Approvals asked live and not settled yet, by request id (drawn once settled). */
  private asking = new Map<string, QuestionRequest>();
  /** Turns whose starting message is drawn (steering input and attachments start none). */
  private started = new Set<string>();

  put(e: Entry): void {
    const i = this.index.get(e.id);
    if (i === undefined) {
      this.index.set(e.id, this.entries.length);
      this.entries.push(e);
    } else this.entries[i] = e;
    this.version++;
  }
  private moveToEnd(id: string): void {
    const i = this.index.get(id);
    if (i === undefined || i === this.entries.length - 1) return;
    const [e] = this.entries.splice(i, 1);
    this.entries.push(e);
    this.index = new Map(this.entries.map((x, k) => [x.id, k]));
    this.version++;
  }

  /**
   * Replaces everything with the stored history `items` (oldest first). With the stored `turns`
   * (GET /thread/:id), each ended turn gets its diff and end marker (`diff_`/`end_<turn>`, as
   * live) after its last item; without them, a failed thread gets one "last turn failed" line.
   */
  load(
    items: ResponseItem[],
    thread?: { status: string },
    turns?: TurnSummary[],
    approvals: SettledApproval[] = [],
  ): void {
    this.entries = [];
    this.index.clear();
    this.started.clear();
    const approvalsOf = new Map<string, SettledApproval[]>();
    for (const a of approvals) approvalsOf.set(a.call_id, [...(approvalsOf.get(a.call_id) ?? []), a]);
    const sectionsOf = new Map<string, Map<string, string>>();
    const outputs = new Map<string, unknown>();
    for (const it of items)
      if (it.type === "function_call_output" || it.type === "custom_tool_call_output")
        outputs.set(it.call_id, it.output);
    let turn = 0;
    let n = 0;
    let next = 0; // the first turn whose end is not drawn yet
    const endTurns = (upTo: number) => {
      for (; turns && next < turns.length && turns[next].item_end <= upTo; next++) this.turnEnd(turns[next]);
    };
    for (const it of items) {
      endTurns(n);
      n++;
      if (it.type === "message") {
        const text = it.content.map((c) => (c.type === "input_image" ? "" : c.text)).join("");
        if (it.role === "user") {
          if (HIDDEN_USER.some((p) => text.startsWith(p))) continue;
          // A compaction's summary item: a marker line, not something the user said.
          if (text.startsWith(SUMMARY_MARKER)) {
            this.put({ kind: "turn", id: `h_${n}`, text: "context compacted", status: "started" });
            continue;
          }
          // A review's prompt shows as its request; the answer after it as the findings.
          const review = reviewRequestOf(text);
          if (review !== undefined) {
            turn++;
            this.reviewing = true;
            this.put({ kind: "user", id: it.id || `h_${n}`, text: reviewRequestLine(review), images: [] });
            continue;
          }
          // The user's own `!command`: shown as the command it was.
          const own = parseUserCommandRecord(text);
          if (own) {
            turn++;
            this.put({
              kind: "command",
              id: it.id || `h_${n}`,
              command: own.command,
              output: own.output,
              exit: own.exitCode,
              status: own.exitCode === 0 && !own.interrupted ? "completed" : "failed",
            });
            continue;
          }
          // An attached skill or file reads back as the line it showed live.
          const attached = attachmentLine(text);
          if (attached) {
            this.put({ kind: "user", id: it.id || `h_${n}`, text: attached, images: [] });
            continue;
          }
          turn++;
          const images = it.content.filter((c) => c.type === "input_image").map((c: any) => c.image_url);
          const started = this.starter(turns?.[next]?.id);
          this.put({
            kind: "user",
            id: it.id || `h_${n}`,
            text,
            images,
            ...(started ? { turn: started } : {}),
          });
        } else if (it.role === "assistant" && this.reviewing) {
          this.reviewing = false;
          this.put(reviewEntry(it.id || `h_${n}`, text));
        } else if (it.role === "assistant") this.put({ kind: "agent", id: it.id || `h_${n}`, text });
      } else if (it.type === "reasoning") {
        const text = it.summary.map((s) => s.text).join("\n\n");
        if (text) this.put({ kind: "reasoning", id: it.id || `h_${n}`, text });
      } else if (it.type === "function_call" || it.type === "custom_tool_call") {
        const args = it.type === "function_call" ? it.arguments : it.input;
        const out = outputs.has(it.call_id) ? outputs.get(it.call_id) : undefined;
        const done = outputs.has(it.call_id);
        // The approvals this call needed, with their decisions, before it (as they were live).
        for (const a of approvalsOf.get(it.call_id) ?? []) this.put(approvalEntry(a.request, a.outcome));
        const stored = turns?.[next];
        if (stored && !sectionsOf.has(stored.id)) sectionsOf.set(stored.id, diffSections(stored.diff));
        this.toolEntry(
          it.call_id,
          it.name,
          args,
          done ? outputText(out) : undefined,
          outputImages(out),
          stored?.id ?? `h${turn}`,
          stored ? sectionsOf.get(stored.id) : undefined,
        );
      }
    }
    endTurns(Number.POSITIVE_INFINITY);
    if (!turns && thread?.status === "failed")
      this.put({ kind: "turn", id: "end_last", text: "The last turn failed", status: "failed" });
  }

  /** A stored turn's diff and end marker, keyed and worded as the live events draw them. */
  private turnEnd(t: TurnSummary): void {
    if (t.status === "running") return;
    if (t.diff?.trim()) this.put({ kind: "diff", id: `diff_${t.id}`, files: parseUnifiedDiff(t.diff) });
    this.put({
      kind: "turn",
      id: `end_${t.id}`,
      text: `turn ${t.status}`,
      status: t.status,
      ...(t.error ? { error: t.error } : {}),
    });
  }

  /** One tool call from history: command, plan, patch, question or a generic tool cell. */
  private toolEntry(
    id: string,
    tool: string,
    args: string,
    output: string | undefined,
    images: string[],
    turn: string,
    /** The per-file sections of the call's turn's net diff (history only): a patch's real hunks. */
    sections?: Map<string, string>,
  ) {
    if (tool === "exec_command") {
      const a = parseJson(args);
      this.put({
        kind: "command",
        id,
        command: a && typeof a.cmd === "string" ? a.cmd : args,
        output: output === undefined ? "" : execOutput(output),
        exit: output === undefined ? null : execExit(output),
        status: output === undefined ? "in_progress" : "completed",
      });
    } else if (tool === "update_plan" && planOf(args)) {
      const p = planOf(args)!;
      this.put({ kind: "plan", id: `plan_${turn}`, ...p, steps: p.steps });
    } else if (tool === "apply_patch") {
      const ok = output === undefined || output.startsWith("Success.");
      this.put({
        kind: "patch",
        id,
        // A failed patch changed nothing: it shows the patch it proposed.
        files: ok
          ? storedPatchFiles(patchText(tool, args), sections)
          : parseCodexPatch(patchText(tool, args)),
        status: output === undefined ? "in_progress" : ok ? "completed" : "failed",
        ...(ok ? {} : { error: output }),
      });
    } else if (tool === "spawn_agent") this.put(subAgentEntry(id, args, output));
    else if (tool === "wait_agent" && parseWaitResult(output)) {
      const w = parseWaitResult(output)!;
      this.put({ kind: "waited", id, agents: w.agents, timedOut: w.timedOut });
    } else if (tool === "request_user_input") {
      this.put({
        kind: "question",
        id,
        asked: askedOf(args),
        ...(output === undefined ? {} : { result: questionResult(output) }),
      });
    } else
      this.put({
        kind: "tool",
        id,
        tool,
        args,
        output,
        images,
        status: output === undefined ? "in_progress" : "completed",
      });
  }

  /** A live display item (item.started / updated / completed). */
  private item(item: TurnItem, turnId: string, done = true): void {
    switch (item.type) {
      case "user_message":
        if (isReviewRequest(item.text)) this.reviewing = true;
        {
          const prev = this.get(item.id);
          const started =
            prev?.kind === "user" ? prev.turn : this.reviewing ? undefined : this.starter(turnId);
          this.put({
            kind: "user",
            id: item.id,
            text: item.text,
            images: [],
            ...(started ? { turn: started } : {}),
          });
        }
        break;
      case "agent_message":
        if (this.reviewing) {
          // Drawn once, complete: the started item (and its deltas) carry partial JSON.
          if (!done) break;
          this.reviewing = false;
          this.put(reviewEntry(item.id, item.text));
          break;
        }
        this.put({ kind: "agent", id: item.id, text: item.text });
        break;
      case "reasoning":
        this.put({ kind: "reasoning", id: item.id, text: item.text });
        break;
      case "command_execution":
        this.put({
          kind: "command",
          id: item.id,
          command: item.command,
          output: item.aggregated_output,
          exit: item.exit_code,
          status: item.status,
        });
        break;
      case "tool_call":
        if (item.tool === "update_plan" && planOf(item.arguments)) break; // the todo_list follows
        if (item.output === undefined || SPECIAL.has(item.tool))
          this.toolEntry(
            item.id,
            item.tool,
            item.arguments,
            item.status === "in_progress" ? undefined : (item.output ?? ""),
            [],
            turnId,
          );
        else
          this.put({
            kind: "tool",
            id: item.id,
            tool: item.tool,
            args: item.arguments,
            output: item.output,
            images: [],
            status: item.status,
          });
        break;
      case "file_change": {
        const files: DiffFile[] = item.changes.map((c) => {
          const parsed = parseUnifiedDiff(c.diff);
          return {
            path: c.path,
            kind: c.kind,
            ...(c.move_path ? { move_path: c.move_path } : {}),
            lines: parsed.flatMap((f) => f.lines),
          };
        });
        const prev = this.get(item.id);
        // A failed patch changed nothing: keep the proposed patch on screen beside the reason.
        this.put({
          kind: "patch",
          id: item.id,
          files: files.length || !prev || prev.kind !== "patch" ? files : prev.files,
          status: item.status,
          ...(item.error ? { error: item.error } : {}),
        });
        break;
      }
      case "todo_list":
        this.put({ kind: "plan", id: `plan_${turnId}`, explanation: item.explanation, steps: item.plan });
        break;
      case "error":
        this.put({ kind: "error", id: item.id, text: item.message });
        break;
    }
  }

  /** `turn` the first time it is asked for (a turn's first user message started it), else undefined. */
  private starter(turn: string | undefined): string | undefined {
    if (!turn || this.started.has(turn)) return undefined;
    this.started.add(turn);
    return turn;
  }

  /** Pending requests of the thread when it loaded: its approvals are drawn once they settle. */
  pending(requests: readonly QuestionRequest[]): void {
    for (const r of requests) if (r.approval) this.asking.set(r.request_id, r);
  }

  /** Inserts `e` just before the entry `before` (or at the end when that is not drawn). */
  private putBefore(e: Entry, before: string): void {
    const i = this.index.get(before);
    if (i === undefined || this.index.has(e.id)) {
      this.put(e);
      return;
    }
    this.entries.splice(i, 0, e);
    this.index = new Map(this.entries.map((x, k) => [x.id, k]));
    this.version++;
  }

  /** Applies one live event of this thread. */
  apply(e: Event): void {
    switch (e.type) {
      case "question.requested":
        if (e.request.approval) this.asking.set(e.request.request_id, e.request);
        break;
      case "question.answered":
      case "question.declined":
      case "question.timed_out":
      case "question.cancelled": {
        const request = this.asking.get(e.request_id);
        if (!request) break;
        this.asking.delete(e.request_id);
        // Drawn before the call it gated, as on reload (the call's cell may be on screen already).
        this.putBefore(approvalEntry(request, e.outcome), request.call_id ?? "");
        break;
      }
      case "item.started":
      case "item.updated":
      case "item.completed":
        this.item(e.item, e.turn_id, e.type === "item.completed");
        break;
      case "agent_message.delta":
      case "reasoning.delta": {
        // A review's answer is JSON: shown once complete, as its findings.
        if (e.type === "agent_message.delta" && this.reviewing) break;
        const kind = e.type === "agent_message.delta" ? "agent" : "reasoning";
        const prev = this.get(e.item_id);
        this.put({ kind, id: e.item_id, text: (prev && "text" in prev ? prev.text : "") + e.delta });
        break;
      }
      case "exec.output_delta": {
        const prev = this.get(e.item_id);
        const base =
          prev?.kind === "command"
            ? prev
            : {
                kind: "command" as const,
                id: e.item_id,
                command: "",
                output: "",
                exit: null,
                status: "in_progress",
              };
        this.put({ ...base, output: base.output + e.chunk });
        break;
      }
      case "context.compacted":
        this.put({ kind: "turn", id: `compact_${e.item_id}`, text: compactionLine(e), status: "started" });
        break;
      case "plan.updated":
        this.put({ kind: "plan", id: `plan_${e.turn_id}`, explanation: e.explanation, steps: e.plan });
        break;
      case "turn.diff":
        if (e.diff.trim())
          this.put({ kind: "diff", id: `diff_${e.turn_id}`, files: parseUnifiedDiff(e.diff) });
        break;
      case "input.queued":
        this.put({ kind: "user", id: e.input_id, text: e.text, images: [], queued: true });
        break;
      case "turn.started":
        this.put({
          kind: "turn",
          id: `start_${e.turn_id}`,
          text: `turn started · ${e.mode} mode`,
          status: "started",
        });
        break;
      case "turn.completed":
        // The turn's net diff goes last, after the answer that describes it.
        this.moveToEnd(`diff_${e.turn_id}`);
        this.put({
          kind: "turn",
          id: `end_${e.turn_id}`,
          text: `turn ${e.status}`,
          status: e.status,
          ...(e.error ? { error: e.error.message } : {}),
        });
        break;
      case "hook.warning":
        this.put({
          kind: "warning",
          id: `hookwarn_${e.turn_id ?? ""}_${this.version}`,
          text: `hook: ${e.message}`,
        });
        break;
      case "error":
        if (!e.will_retry)
          this.put({ kind: "error", id: `err_${e.turn_id ?? ""}_${this.version}`, text: e.error.message });
        break;
    }
  }
}
