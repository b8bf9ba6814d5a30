/**
 * Human output for `tandem exec`: the answer streams to stdout; progress (commands, their
 * output, reasoning, retries) goes to stderr so stdout stays pipeable.
 *
 * Like the TUI: one header line first (model, cwd, sandbox, approvals, thread), file changes as
 * a short summary per file (`M src/a.ts (+3 -1)`), plan updates as a checklist (`[x] step`).
 *
 * Everything from the model, a tool or a server passes util/terminal-text.ts before it is
 * written (commands and questions the stricter printable): a control sequence in an answer or a
 * command's output shows as symbols and cannot act on the terminal (command output keeps its SGR
 * colours). Live deltas go through a TerminalTextStream per item, so a sequence split across
 * deltas is judged whole.
 */

import { compactionLine } from "../../agent/compaction-prompt.js";
import type { Event, TurnItem } from "../../protocol/events.js";
import { elicitationLabel, type QuestionRequest } from "../../protocol/questions.js";
import { expectedInput } from "../../questions/text-reply.js";
import { printable } from "../../util/printable.js";
import { TerminalTextStream, terminalText } from "../../util/terminal-text.js";

const dim = (s: string, color: boolean) => (color ? `\x1b[2m${s}\x1b[0m` : s);
/** Untrusted text, neutralised for the terminal. */
const safe = (s: string) => terminalText(s);

export class HumanPrinter {
  private streamed = new Set<string>();
  private atLineStart = true;
  /** One sanitising stream per item (and output stream) that sends deltas. */
  private streams = new Map<string, TerminalTextStream>();

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly err: NodeJS.WritableStream,
    private readonly color: boolean,
  ) {}

  handle(event: Event): void {
    switch (event.type) {
      case "agent_message.delta":
        this.streamed.add(event.item_id);
        this.answer(this.stream(event.item_id, false).write(event.delta));
        break;
      case "item.completed": {
        const item = event.item;
        if (item.type === "agent_message") {
          if (this.streamed.has(item.id)) this.answer(this.endStreams(item.id));
          else this.out.write(safe(item.text));
          if (!this.atLineStart || !this.streamed.has(item.id)) this.out.write("\n");
          this.atLineStart = true;
        } else if (item.type === "reasoning") {
          this.err.write(`${dim(`thinking: ${safe(item.text)}`, this.color)}\n`);
        } else if (item.type === "command_execution") {
          this.err.write(dim(this.endStreams(item.id), this.color));
          this.err.write(dim(`  ${commandEnd(item)}\n`, this.color));
        } else if (item.type === "file_change") {
          this.err.write(fileChangeSummary(item));
          if (item.error) this.err.write(`apply_patch failed: ${safe(item.error)}\n`);
        } else if (item.type === "error") {
          this.err.write(`${safe(item.message)}\n`);
        } else if (item.type === "tool_call") {
          this.err.write(dim(`  ${safe(item.tool)}: ${item.status}\n`, this.color));
        }
        break;
      }
      case "item.started":
        if (event.item.type === "command_execution") this.err.write(`$ ${printable(event.item.command)}\n`);
        // update_plan shows as its checklist (plan.updated) instead.
        else if (event.item.type === "tool_call" && event.item.tool !== "update_plan")
          this.err.write(`→ ${safe(event.item.tool)}\n`);
        break;
      case "plan.updated":
        this.err.write(planChecklist(event.plan, event.explanation));
        break;
      case "context.compacted":
        this.err.write(dim(`${safe(compactionLine(event))}\n`, this.color));
        break;
      case "exec.output_delta":
        this.err.write(dim(this.stream(event.item_id, true, event.stream).write(event.chunk), this.color));
        break;
      case "hook.warning":
        this.err.write(`hook: ${safe(event.message)}\n`);
        break;
      case "error":
        // A final error is the failed turn's own: the turn.completed line below says it once.
        if (event.will_retry) this.err.write(dim(`${safe(event.error.message)}\n`, this.color));
        break;
      case "turn.completed":
        if (event.status !== "completed")
          this.err.write(`turn ${event.status}${event.error ? `: ${safe(event.error.message)}` : ""}\n`);
        break;
    }
  }

  /** The run's one header line, before any turn output. */
  header(h: RunHeader): void {
    const parts = [
      `model ${h.model}`,
      `cwd ${h.cwd}`,
      `sandbox ${h.sandbox}`,
      `approvals ${h.approvals}`,
      `thread ${h.threadId}`,
    ];
    this.err.write(`${dim(`tandem exec · ${safe(parts.join(" · "))}`, this.color)}\n`);
  }

  /** Writes answer text to stdout, remembering whether it ended a line. */
  private answer(text: string): void {
    if (!text) return;
    this.out.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  private stream(itemId: string, sgr: boolean, part = ""): TerminalTextStream {
    const key = `${itemId}\u0000${part}`;
    let s = this.streams.get(key);
    if (!s) {
      s = new TerminalTextStream({ sgr });
      this.streams.set(key, s);
    }
    return s;
  }

  /** What an item's streams held back (a trailing CR, a partial colour code), and their close. */
  private endStreams(itemId: string): string {
    let rest = "";
    for (const [key, s] of this.streams)
      if (key.startsWith(`${itemId}\u0000`)) {
        rest += s.end();
        this.streams.delete(key);
      }
    return rest;
  }

  question(request: QuestionRequest, resumeHint?: string): void {
    this.err.write(formatQuestion(request));
    if (resumeHint) this.err.write(`${safe(resumeHint)}\n`);
  }
}

export interface RunHeader {
  model: string;
  cwd: string;
  sandbox: string;
  approvals: string;
  threadId: string;
}

type FileChange = Extract<TurnItem, { type: "file_change" }>;
type PlanStep = Extract<Event, { type: "plan.updated" }>["plan"][number];
const TAG = { add: "A", update: "M", delete: "D", move: "R" } as const;

/** Added and removed lines of a unified diff (hunk bodies only; `---`/`+++` headers skipped). */
export function diffCounts(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of diff.split("\n")) {
    if (line.startsWith("@@")) inHunk = true;
    else if (!inHunk) continue;
    else if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { added, removed };
}

/** One line per changed file: `M src/a.ts (+3 -1)`; declined or failed edits say so first. */
export function fileChangeSummary(item: FileChange): string {
  const prefix = item.status === "declined" ? "declined: " : item.status === "failed" ? "not applied: " : "";
  return item.changes
    .map((c) => {
      const { added, removed } = diffCounts(c.diff);
      const path = safe(c.move_path ? `${c.path} → ${c.move_path}` : c.path);
      return `${prefix}${TAG[c.kind] ?? "M"} ${path} (+${added} -${removed})\n`;
    })
    .join("");
}

/** The model's plan as a checklist: `[x]` done, `[ ]` to do (marked when in progress). */
export function planChecklist(plan: PlanStep[], explanation: string | null): string {
  const lines = ["Plan:"];
  if (explanation) lines.push(`  ${safe(explanation)}`);
  for (const p of plan)
    lines.push(
      `  [${p.status === "completed" ? "x" : " "}] ${safe(p.step)}${p.status === "in_progress" ? " (in progress)" : ""}`,
    );
  return `${lines.join("\n")}\n`;
}

export function formatQuestion(request: QuestionRequest): string {
  const count = `${request.questions.length} question${request.questions.length > 1 ? "s" : ""}`;
  const agent = request.agent;
  const who = request.elicitation
    ? `MCP server "${printable(request.elicitation.server)}"`
    : agent
      ? `Sub-agent ${printable(agent.nickname)} (${printable(agent.role)}, depth ${agent.depth}; task: ${printable(agent.task.replace(/\s+/g, " ").slice(0, 80))})`
      : "The model";
  const lines = [`? ${who} asks (${count}):`];
  // What the user answers is shown strictly (util/printable.ts), as in the TUI's overlay.
  if (request.elicitation)
    lines.push(
      `  ${printable(elicitationLabel(request.elicitation))}`,
      `  ${printable(request.elicitation.message)}`,
    );
  for (const q of request.questions) {
    const head = q.header ? `${printable(q.header)}: ` : "";
    lines.push(`  [${printable(q.id)}]${q.secret ? " (secret)" : ""} ${head}${printable(q.prompt)}`);
    if (q.kind === "boolean" || q.kind === "number" || q.format)
      lines.push(`     answer: ${expectedInput(q)}`);
    for (const [i, o] of q.options.entries()) {
      lines.push(
        `     ${i + 1}. ${printable(o.label)}${o.description ? ` — ${printable(o.description)}` : ""}`,
      );
    }
    if (q.kind === "multi") lines.push("     (several allowed, e.g. 1,3)");
    if (q.allow_other) lines.push(q.options.length ? "     or type your own answer" : "     (free text)");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * How a finished command ended, as it really did: `exit 0 (completed)`, `interrupted (killed,
 * exit 143)`, `still running as session 3`, `declined`, or `failed` when it never ran.
 */
export function commandEnd(item: {
  exit_code: number | null;
  status: string;
  interrupted?: boolean;
  session_id?: number;
}): string {
  const code = item.exit_code;
  if (item.interrupted) return `interrupted (killed${code !== null ? `, exit ${code}` : ""})`;
  if (code !== null) return `exit ${code} (${item.status})`;
  if (item.session_id !== undefined && item.status === "completed")
    return `still running as session ${item.session_id}`;
  return item.status === "declined" ? "declined" : `${item.status} (it did not run)`;
}
