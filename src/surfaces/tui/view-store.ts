/**
 * The throttled event → view-model store. It folds one thread's events into: committed cells
 * (append-only, printed once), a small live area (the streaming tail of messages, reasoning,
 * running commands), queued steers, the pending-question queue and the status line.
 *
 * Contract:
 * - `handle(event)` is cheap (string appends); listeners are notified at most once per frame
 *   (`frameMs`, default 33 ms ≈ 30 fps). At each frame the complete lines of streaming messages
 *   move from the live area into committed cells, so the live area stays a line or so tall and
 *   the terminal never redraws the whole transcript per token.
 * - `getSnapshot()` returns an immutable snapshot whose identity changes only on a frame
 *   (fit for `useSyncExternalStore`); `committed` keeps its identity until cells are added.
 * - Events of other threads are ignored. The store never calls the runtime.
 * - A line longer than `softWrapChars` is committed in pieces at sentence/word boundaries, so
 *   the live area stays small even when a paragraph streams without line breaks.
 * - A question the user saw being settled by someone else (another surface, a timeout policy)
 *   leaves `settled` set until `dismissSettled()`, so the overlay can say so.
 */

import { compactionLine } from "../../agent/compaction-prompt.js";
import type { CollaborationMode, Event, ThreadStatus, Usage } from "../../protocol/events.js";
import type { QuestionOutcome, QuestionRequest } from "../../protocol/questions.js";
import { agentCard } from "./agent-card.js";
import { type Cell, type CellInput, makeCell, reviewCell } from "./cells.js";
import { settledText } from "./format.js";
import { type FenceState, NO_FENCE, parseLines, softBreak, tableTail } from "./markdown.js";
import { enqueue, type Pending, pendingOf } from "./queue.js";
import type { LiveExec, LiveMessage, Snapshot, Status, ThreadInfo } from "./view-model.js";

export type { LiveExec, LiveMessage, Snapshot, Status, ThreadInfo } from "./view-model.js";

const MAX_LIVE_OUTPUT = 16_384;
/** A table longer than this is committed as it streams (its rows then print as text). */
const MAX_HELD_TABLE_ROWS = 60;

export class ViewStore {
  private cells: Cell[] = [];
  private messages = new Map<string, LiveMessage>();
  private reasoning = new Map<string, string>();
  private execs = new Map<string, LiveExec>();
  private tools = new Map<string, string>();
  private queued: Array<{ id: string; text: string }> = [];
  /** Review turns (turn id → the thread's directory): their answer is drawn as findings. */
  private readonly reviews = new Map<string, string>();
  private pending: Pending[] = [];
  private known = new Map<string, QuestionRequest>();
  private own = new Set<string>();
  private settled: Snapshot["settled"] = null;
  private status: Status;
  private listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private snapshot: Snapshot;
  private version = 0;
  private lastCells: Cell[] = [];
  /** Frames published (bench). */
  frames = 0;

  constructor(
    info: ThreadInfo,
    private readonly opts: {
      frameMs?: number;
      demo?: boolean;
      now?: () => number;
      softWrapChars?: number;
    } = {},
  ) {
    this.status = {
      ...info,
      state: "idle",
      usage: null,
      turnStartedAt: null,
      retrying: null,
      demo: !!opts.demo,
      plan: null,
    };
    this.snapshot = this.build();
  }

  get threadId(): string {
    return this.status.id;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getSnapshot = (): Snapshot => this.snapshot;

  /** Switches to another thread (new or resumed): live state is dropped, the transcript continues. */
  setThread(info: ThreadInfo, state: ThreadStatus = "idle"): void {
    if (info.id === this.status.id) {
      this.status = { ...this.status, ...info, state };
      this.schedule();
      return;
    }
    this.known.clear();
    this.messages.clear();
    this.reasoning.clear();
    this.execs.clear();
    this.tools.clear();
    this.queued = [];
    this.pending = [];
    this.settled = null;
    this.status = {
      ...this.status,
      ...info,
      state,
      usage: null,
      turnStartedAt: null,
      retrying: null,
      plan: null,
    };
    this.schedule();
  }

  setMode(mode: CollaborationMode): void {
    this.status = { ...this.status, mode };
    this.schedule();
  }

  /** Appends finished cells (history of a resumed thread, notices, banners). */
  add(...cells: CellInput[]): void {
    for (const c of cells) this.cells.push(makeCell(c));
    this.schedule();
  }

  addCells(cells: Cell[]): void {
    for (const c of cells) this.cells.push(c);
    this.schedule();
  }

  notice(text: string, tone: "info" | "warn" | "error" | "dim" | "ok" = "info"): void {
    this.add({ kind: "notice", text, tone });
  }

  /** Marks a request as settled by this TUI (so its settling is not "answered elsewhere"). */
  markOwn(requestId: string): void {
    this.own.add(requestId);
  }

  dismissSettled(): void {
    this.settled = null;
    this.schedule();
  }

  /** Seeds a pending question known from `broker.list` (e.g. re-asked on resume). */
  addPending(request: QuestionRequest): void {
    // A sub-agent's request is shown on its root thread (Q14).
    const mine = request.thread_id === this.status.id || request.agent?.root_thread_id === this.status.id;
    if (!mine || this.known.has(request.request_id)) return;
    this.known.set(request.request_id, request);
    this.pending = enqueue(this.pending, pendingOf(request));
    this.schedule();
  }

  handle(e: Event): void {
    if (!("thread_id" in e)) return;
    // A sub-agent's question events are shown on its root thread (Q14): a request names its root,
    // the events that settle it name a request already shown.
    const relayed =
      e.type === "question.requested"
        ? e.request.agent?.root_thread_id === this.status.id
        : e.type.startsWith("question.") && "request_id" in e && this.known.has(e.request_id);
    if (e.thread_id !== this.status.id && !relayed) return;
    switch (e.type) {
      case "agent_message.delta": {
        // A review's answer is JSON: drawn as its findings once complete, never streamed.
        if (this.reviews.has(e.turn_id)) break;
        const m = this.message(e.item_id);
        m.text += e.delta;
        if (this.status.retrying) this.status = { ...this.status, retrying: null };
        break;
      }
      case "reasoning.delta":
        this.reasoning.set(e.item_id, (this.reasoning.get(e.item_id) ?? "") + e.delta);
        break;
      case "exec.output_delta": {
        const x = this.execs.get(e.item_id);
        if (x) x.output = (x.output + e.chunk).slice(-MAX_LIVE_OUTPUT);
        break;
      }
      case "item.started":
        if (e.item.type === "agent_message") this.message(e.item.id);
        else if (e.item.type === "command_execution")
          this.execs.set(e.item.id, { id: e.item.id, command: e.item.command, output: "" });
        else if (e.item.type === "tool_call") this.tools.set(e.item.id, e.item.tool);
        break;
      case "item.completed":
        if (e.item.type === "agent_message" && this.reviews.has(e.turn_id)) {
          this.messages.delete(e.item.id);
          this.add(reviewCell(e.item.text, this.reviews.get(e.turn_id)!));
        } else this.completed(e.item);
        break;
      case "input.queued":
        this.queued = [...this.queued, { id: e.input_id, text: e.text }];
        break;
      case "turn.started":
        this.status = { ...this.status, mode: e.mode, turnStartedAt: this.now(), retrying: null };
        break;
      case "turn.completed":
        this.turnEnded(e.status, e.usage, e.error?.message);
        break;
      case "plan.updated":
        this.status = {
          ...this.status,
          plan: { done: e.plan.filter((p) => p.status === "completed").length, total: e.plan.length },
        };
        break;
      case "token.usage":
        this.status = { ...this.status, usage: e.total };
        break;
      case "thread.status_changed":
        this.status = { ...this.status, state: e.status };
        break;
      case "error":
        if (e.will_retry) this.status = { ...this.status, retrying: e.error.message };
        // A turn's final error is shown once, by its "Turn failed" cell (turn.completed).
        else if (!e.turn_id) this.notice(`error: ${e.error.message}`, "error");
        break;
      case "mcp.status":
        // Once per server as the thread starts; a failed server's tools are left out.
        if (e.status === "failed")
          this.notice(`MCP server "${e.server}" failed to start: ${e.error}`, "warn");
        else this.notice(`MCP server "${e.server}" ready: ${e.tools} tool${e.tools === 1 ? "" : "s"}`, "dim");
        break;
      case "hook.warning":
        // A user hook's failure or a skipped hooks file (README "Hooks"), as `tandem exec` prints it.
        this.notice(`hook: ${e.message}`, "warn");
        break;
      case "context.compacting":
        this.notice("compacting context…", "dim");
        break;
      case "context.compacted":
        this.notice(compactionLine(e), "dim");
        break;
      case "question.requested":
        this.addPending(e.request);
        break;
      case "question.deadline_changed":
        this.pending = this.pending.map((p) =>
          p.request.request_id === e.request_id
            ? { ...p, request: { ...p.request, deadline: e.deadline } }
            : p,
        );
        break;
      case "question.answered":
      case "question.declined":
      case "question.timed_out":
      case "question.cancelled":
        this.questionSettled(e.request_id, e.outcome);
        break;
      default:
        break;
    }
    this.schedule();
  }

  /** Publishes a frame now (tests, bench, and before exiting). */
  flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private message(id: string): LiveMessage {
    let m = this.messages.get(id);
    if (!m) {
      m = { id, text: "", committedChars: 0, fence: NO_FENCE, started: false };
      this.messages.set(id, m);
    }
    return m;
  }

  private completed(item: Extract<Event, { type: "item.completed" }>["item"]): void {
    // A tool may finish as another item type than it started (apply_patch → file_change).
    this.tools.delete(item.id);
    this.execs.delete(item.id);
    switch (item.type) {
      case "agent_message": {
        // Streamed under the same id, or (ids differ) the one message streaming.
        const m =
          this.messages.get(item.id) ??
          (this.messages.size === 1 ? [...this.messages.values()][0] : undefined);
        if (m) {
          this.messages.delete(m.id);
          this.commitText(item.text.slice(m.committedChars), m.fence, !m.started, true);
        } else this.commitText(item.text, NO_FENCE, true, true);
        break;
      }
      case "reasoning":
        if (this.reasoning.has(item.id)) this.reasoning.delete(item.id);
        else this.reasoning.clear();
        this.add({ kind: "reasoning", text: item.text });
        break;
      case "command_execution":
        this.execs.delete(item.id);
        this.add({
          kind: "exec",
          command: item.command,
          output: item.aggregated_output,
          exitCode: item.exit_code,
          status: item.interrupted ? "interrupted" : item.status,
        });
        break;
      case "tool_call":
        this.tools.delete(item.id);
        // A question call is shown by its question entry; only failures say more.
        if (item.tool === "request_user_input" && item.status === "completed") break;
        this.add(
          (item.status === "completed" ? agentCard(item.tool, item.arguments, item.output) : undefined) ?? {
            kind: "tool",
            tool: item.tool,
            status: item.status,
            detail: item.output ?? "",
          },
        );
        break;
      case "user_message":
        this.queued = this.queued.filter((q) => q.id !== item.id);
        this.add({ kind: "user", text: item.text });
        break;
      case "error":
        // A warning (a skill file skipped, runtime/thread.ts) says so itself.
        if (item.message.startsWith("warning: ")) this.notice(item.message, "warn");
        else this.notice(`error: ${item.message}`, "error");
        break;
      case "todo_list":
        this.add({ kind: "plan", explanation: item.explanation, steps: item.plan });
        break;
      case "file_change":
        this.add({
          kind: "files",
          status: item.status,
          changes: item.changes,
          ...(item.error ? { error: item.error } : {}),
        });
        break;
    }
  }

  /** Marks `turnId` as a review (runtime/review.ts): its final message is drawn as findings. */
  reviewTurn(turnId: string, cwd: string): void {
    this.reviews.set(turnId, cwd);
  }

  private turnEnded(status: "completed" | "interrupted" | "failed", usage: Usage, error?: string): void {
    for (const m of this.messages.values()) if (m.text) this.commitText(m.text, m.fence, !m.started, true);
    this.messages.clear();
    for (const text of this.reasoning.values()) if (text) this.add({ kind: "reasoning", text });
    this.reasoning.clear();
    for (const x of this.execs.values())
      this.add({ kind: "exec", command: x.command, output: x.output, exitCode: null, status });
    this.execs.clear();
    this.tools.clear();
    // Steers queued too late for another request are recorded by the core without an event.
    for (const q of this.queued) this.add({ kind: "user", text: q.text, late: true });
    this.queued = [];
    const started = this.status.turnStartedAt;
    this.add({ kind: "turn", status, ms: started === null ? null : this.now() - started, usage, error });
    this.status = { ...this.status, turnStartedAt: null, retrying: null };
  }

  private questionSettled(requestId: string, outcome: QuestionOutcome): void {
    const request = this.known.get(requestId);
    const head = this.pending[0];
    const wasShown = head?.request.request_id === requestId;
    this.pending = this.pending.filter((p) => p.request.request_id !== requestId);
    if (!request) return;
    this.known.delete(requestId);
    this.add({ kind: "questions", request, outcome });
    const mine = this.own.delete(requestId);
    if (wasShown && !mine && outcome.status !== "cancelled")
      this.settled = { requestId, text: settledText(outcome) };
  }

  /** Commits `text` as agent cells; `all` includes the incomplete last line. */
  private commitText(text: string, fence: FenceState, first: boolean, all: boolean): FenceState {
    const body = all ? text.replace(/\n+$/, "") : text;
    if (!body && !first) return fence;
    const { out, end } = parseLines(body.split("\n"), fence);
    this.cells.push(makeCell({ kind: "agent", lines: out, first }));
    return end;
  }

  /** Moves complete lines of streaming messages into committed cells. */
  private commitLines(): void {
    for (const m of this.messages.values()) {
      let nl = m.text.lastIndexOf("\n");
      if (nl < 0) continue;
      // Rows of a table that may still grow stay live: a table is laid out once, whole.
      const lines = m.text.slice(0, nl).split("\n");
      const held = tableTail(lines, m.fence);
      if (held > 0 && held <= MAX_HELD_TABLE_ROWS) {
        if (held === lines.length) continue;
        nl = lines.slice(0, lines.length - held).join("\n").length;
      }
      m.fence = this.commitText(m.text.slice(0, nl), m.fence, !m.started, false);
      m.started = true;
      m.committedChars += nl + 1;
      m.text = m.text.slice(nl + 1);
    }
    // A paragraph streaming without line breaks would grow the live area past the screen (and
    // make Ink redraw everything); commit it at a sentence or word boundary instead.
    const limit = this.opts.softWrapChars ?? 480;
    for (const m of this.messages.values()) {
      if (m.text.length <= limit || m.fence.inCode || /^\s{0,3}\|/m.test(m.text)) continue;
      const cut = softBreak(m.text, limit);
      if (cut === undefined) continue;
      this.commitText(m.text.slice(0, cut.end), m.fence, !m.started, false);
      m.started = true;
      m.committedChars += cut.next;
      m.text = m.text.slice(cut.next);
    }
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.opts.frameMs ?? 33);
    this.timer.unref?.();
  }

  private flush(): void {
    this.commitLines();
    this.snapshot = this.build();
    this.frames++;
    for (const l of [...this.listeners]) l();
  }

  private build(): Snapshot {
    if (this.lastCells.length !== this.cells.length) this.lastCells = this.cells.slice();
    return {
      version: ++this.version,
      committed: this.lastCells,
      messages: [...this.messages.values()].map((m) => ({ ...m })),
      reasoning: [...this.reasoning].map(([id, text]) => ({ id, text })),
      execs: [...this.execs.values()].map((x) => ({ ...x })),
      tools: [...this.tools].map(([id, tool]) => ({ id, tool })),
      queued: this.queued,
      pending: this.pending,
      settled: this.settled,
      status: this.status,
    };
  }
}
