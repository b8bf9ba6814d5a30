/**
 * Thread: one conversation's live state over the store. Owns the steer queue, the active
 * turn's AbortController, its tool registry (exec sessions die with the thread) and its
 * pause clock. It gets a narrow host (host.ts), never the Runtime; surfaces see it as a
 * `ThreadHandle` (types.ts) and change it only through the runtime's API (core.ts).
 *
 * Contract: at most one turn runs at a time; `startTurn` while one runs is refused (use
 * `steer`). `interrupt()` aborts through one signal; the turn ends `interrupted` with
 * history paired. Items are persisted before they are visible in `items()` — once the thread is
 * stored: a thread started here (`stored` false) lives in memory until its first turn starts,
 * which writes its row, lease and the items recorded so far (`persist`), so a
 * thread that never gets input leaves nothing behind. Status `failed`: the last turn failed.
 */

import { setMaxListeners } from "node:events";
import type { Compactor } from "../agent/compaction-run.js";
import { type PendingInput, type ResumedCall, runTurn, type TurnOutcome } from "../agent/turn.js";
import type { Prompt } from "../model/types.js";
import type { Event, ThreadStatus, Usage } from "../protocol/events.js";
import { addUsage, emptyUsage } from "../protocol/events.js";
import { messageText, type ResponseItem, type ToolCallItem, userMessage } from "../protocol/items.js";
import type { TurnOptions } from "../protocol/ops.js";
import type { QuestionPolicy } from "../protocol/questions.js";
import type { ApprovalPolicy, ThreadRecord } from "../protocol/threads.js";
import { TurnDiffTracker } from "../tools/patch/index.js";
import type { DispatchResult, ToolRegistry } from "../tools/registry.js";
import type { ToolContext } from "../tools/types.js";
import type { AbortNow } from "../util/abort.js";
import { PauseClock } from "../util/pause-clock.js";
import { threadTitle } from "../util/thread-title.js";
import { TurnBusyError } from "./errors.js";
import { attachMentions } from "./file-mentions.js";
import type { ThreadHost, ThreadStorage } from "./host.js";
import { attachSkills, type SkillInput } from "./skill-turn.js";
import { compactorFor, promptFor } from "./thread-model.js";
import { toolContext } from "./tool-context.js";
import type { ActiveTurn, SandboxInForce, ThreadHandle, TurnHandle } from "./types.js";
import { runUserShell, type UserShell } from "./user-shell.js";
import { TurnWorkspace } from "./workspace-diff.js";

export { TurnBusyError } from "./errors.js";

export type { ActiveTurn } from "./types.js";

export class Thread implements ThreadHandle {
  readonly pause = new PauseClock();
  /** Net file changes of the current turn (apply_patch and commands), for `turn.diff`. */
  readonly diffs = new TurnDiffTracker();
  /** The workspace as the current turn found it, for commands' changes (workspace-diff.ts). */
  readonly workspace = new TurnWorkspace(() => this.host.workspaces);
  private history: ResponseItem[];
  active: ActiveTurn | undefined;
  status: ThreadStatus = "idle";
  /** Token totals of the whole thread, across processes (seeded from the store, Store.addUsage). */
  totalUsage: Usage;
  lastOutcome: TurnOutcome | undefined;
  private closed = false;
  /**
   * Whether the thread's row exists in the store (see the contract); false for new threads until
   * their first turn, and always for ephemeral ones (nothing of theirs is ever written).
   */
  stored = true;
  /** A client's temporary thread: never stored, never listed (StartThreadOptions.ephemeral). */
  get ephemeral(): boolean {
    return this.record.settings.ephemeral === true;
  }
  /** Items recorded before the thread was stored, written when it is. */
  private unsaved: Array<{ item: ResponseItem; turnId: string | null }> = [];
  /** Set on shutdown and when the thread moves away: nothing more is written (ownership.ts). */
  suspended = false;
  /** Whether the skill files skipped were shown (once per thread, at its first turn here). */
  private skillsWarned = false;
  /** A new item id (skill-turn.ts). */
  readonly newItemId = (prefix: string): string => this.host.ids.item(prefix);
  /** Keeps the prompt within the model's window (agent/compaction-run.ts). */
  readonly compactor: Compactor;

  /** The store as this thread writes it (host.ts). */
  private readonly storage: ThreadStorage;

  constructor(
    private readonly host: ThreadHost,
    public record: ThreadRecord,
    history: ResponseItem[],
    readonly registry: ToolRegistry,
    /** Stops the thread's tools (`now`: its processes are SIGKILLed without a grace period). */
    readonly disposeTools: (opts?: { now?: boolean }) => Promise<void>,
  ) {
    this.history = history;
    this.storage = host.storage(record.id);
    this.compactor = compactorFor(host, this, {
      items: () => this.history,
      record: (item, turnId) => this.recordItem(item, turnId),
      emit: (e) => this.emit(e),
      countUsage: (turnId, usage) => this.countUsage(turnId, usage),
      turnFor: (turnId) =>
        this.active?.id === turnId
          ? this.active
          : ({ id: turnId, options: {}, mode: this.record.mode } as unknown as ActiveTurn),
    });
    this.totalUsage = record.usage ? { ...record.usage } : emptyUsage();
  }

  get id(): string {
    return this.record.id;
  }

  items(): ResponseItem[] {
    return this.history;
  }

  /**
   * Replaces the in-memory history with `items`, the stored history after a rewind truncated it
   * (./branches-api.ts). Only between turns; throws while a turn runs.
   */
  reloadHistory(items: ResponseItem[]): void {
    if (this.active) throw new TurnBusyError(`thread ${this.id} has a running turn; interrupt it first`);
    this.history = items;
  }

  /** Persists then appends one item. */
  recordItem(item: ResponseItem, turnId: string | null): void {
    if (this.suspended) return;
    // A write refused by fencing gives the thread up before it throws (host.ts ThreadStorage).
    if (this.stored) this.storage.appendItem(turnId, item);
    else this.unsaved.push({ item, turnId });
    this.history.push(item);
    this.record.updated_at = Math.max(this.record.updated_at, Date.now());
  }

  /**
   * Stores a thread started here (its first turn does): its row as the live record is now, this
   * process's lease on it, then the items recorded so far (context items), in that order.
   * Nothing for a thread already stored, or an ephemeral one.
   */
  persist(): void {
    if (this.stored || this.ephemeral) return;
    this.storage.create(this.record);
    this.stored = true;
    this.host.lease.take(this.id);
    for (const { item, turnId } of this.unsaved.splice(0)) this.storage.appendItem(turnId, item);
  }

  /** Changes the live record and, once the thread is stored, its row. */
  update(patch: Partial<Omit<ThreadRecord, "id">>): void {
    Object.assign(this.record, patch);
    if (this.stored && !this.suspended) this.storage.update(patch);
  }

  setStatus(status: ThreadStatus): void {
    if (this.status === status || this.closed) return;
    this.status = status;
    this.record.status = status;
    this.record.updated_at = Math.max(this.record.updated_at, Date.now());
    if (this.stored && !this.suspended) this.storage.update({ status, updated_at: this.record.updated_at });
    this.emit({ type: "thread.status_changed", thread_id: this.id, status });
  }

  /** Called by the broker hook when this thread's pending question count changes (Q9). */
  onPendingQuestions(count: number): void {
    if (count > 0) {
      if (!this.pause.paused) this.pause.pause();
      this.setStatus("waiting_on_user");
    } else {
      if (this.pause.paused) this.pause.resume();
      this.setStatus(this.active ? "running" : "idle");
    }
  }

  /**
   * Publishes `event`. A turn diff is built from file contents (commands may have written a
   * secret into a file), so it is masked with the thread's secrets here, for every surface (Q10).
   */
  emit(event: Event): void {
    if (event.type === "turn.diff")
      event = { ...event, diff: this.host.secrets.view(this.id).mask(event.diff) };
    this.host.publish(event);
  }

  /** The current turn's net diff, with the thread's secret values masked (Q10). */
  turnDiff(): string {
    return this.host.secrets.view(this.id).mask(this.diffs.diff());
  }

  /** Starts a turn with user input. Throws TurnBusyError while another turn runs. */
  startTurn(
    text: string,
    opts: {
      images?: string[];
      options?: TurnOptions;
      skills?: string[];
      /** false: the text is a model's (a sub-agent's task), so its `@path` mentions attach nothing. */
      mentions?: boolean;
      /**
       * What surfaces show for the message instead of its text (a review's prompt shows as
       * "Review: …"); the text is then a prompt of Tandem's own: no custom command expansion and
       * no `$skill` mentions.
       */
      display?: string;
    } = {},
  ): ActiveTurn {
    if (this.closed) throw new Error(`thread ${this.id} is closed`);
    if (this.suspended) throw new Error(`thread ${this.id} is shutting down or moved to another process`);
    if (this.active)
      throw new TurnBusyError(
        `thread ${this.id} already has a running turn (${this.active.id}); steer it or interrupt it`,
      );
    const turnId = this.host.ids.turn();
    // A custom command (`/name args`) is sent as the prompt it stands for (skill-use.ts).
    const cwd = opts.options?.cwd ?? this.record.cwd;
    if (opts.display === undefined) text = this.host.skills?.expand(cwd, text) ?? text;
    const item = userMessage(text, opts.images ?? []);
    if (!this.record.title) this.update({ title: threadTitle(opts.display ?? text) });
    const pending: PendingInput[] = [
      {
        id: this.host.ids.item("user"),
        item,
        ...(opts.display === undefined ? {} : { display: opts.display }),
      },
    ];
    return this.launch(turnId, opts.options ?? {}, pending, [], false, {
      // Tandem's own prompt (a review: `display`) names no skill: its `$words` are plain text,
      // never a SKILL.md from the workspace (the model may have planted it) or its dependencies.
      text: opts.display === undefined ? text : "",
      skills: opts.skills ?? [],
      mentions: opts.mentions !== false,
    });
  }

  /** Attaches the files `text` mentions as `@path` to the turn's pending input (file-mentions.ts). */
  private attachFiles(turn: ActiveTurn, text: string): void {
    const root = turn.options.cwd ?? this.record.cwd;
    const mask = (t: string) => this.host.secrets.view(this.id).mask(t);
    for (const a of attachMentions(text, { root, exclude: this.host.hiddenPaths, mask }))
      turn.pending.push({ id: this.newItemId("file"), item: a.item, display: a.display });
  }

  /** Runs the user's own shell command as a turn of its own (user-shell.ts); TurnBusyError while one runs. */
  shell(command: string, opts: { timeoutMs?: number | null } = {}): ActiveTurn {
    if (this.closed || this.suspended) throw new Error(`thread ${this.id} is closed or shutting down`);
    if (this.active)
      throw new TurnBusyError(`thread ${this.id} already has a running turn; wait or interrupt it`);
    return this.launch(this.host.ids.turn(), {}, [], [], false, undefined, {
      command,
      timeoutMs: opts.timeoutMs,
    });
  }

  /** Continues a turn whose calls were left waiting (e.g. a question pending across a restart). */
  resumeTurn(turnId: string, resumed: ResumedCall[], options: TurnOptions = {}): ActiveTurn {
    if (this.active) throw new TurnBusyError(`thread ${this.id} already has a running turn`);
    return this.launch(turnId, options, [], resumed);
  }

  /** Runs a stored tool call again in the active (resumed) turn; aborted when no turn runs. */
  redispatch(call: ToolCallItem, signal: AbortSignal): Promise<DispatchResult> {
    const turn = this.active;
    if (!turn) return Promise.resolve({ aborted: true });
    return this.registry.dispatch(call, this.toolContext(call, signal, turn));
  }

  /** Queues input for the running turn (L7); recorded before its next sampling request. */
  steer(text: string): { inputId: string; turnId: string } {
    const turn = this.active;
    if (!turn)
      throw new TurnBusyError(`thread ${this.id} has no running turn to steer; start a turn instead`);
    const inputId = this.host.ids.item("user");
    turn.pending.push({ id: inputId, item: userMessage(text) });
    this.emit({ type: "input.queued", thread_id: this.id, turn_id: turn.id, input_id: inputId, text });
    return { inputId, turnId: turn.id };
  }

  /**
   * On-demand compaction (L14). Idle: runs now as its own turn (returned). A turn running:
   * compacts at once when the turn waits on a question (the call stays whole), else before the
   * turn's next request; returns that turn.
   */
  compact(): ActiveTurn {
    if (this.closed) throw new Error(`thread ${this.id} is closed`);
    const turn = this.active;
    if (!turn) return this.launch(this.host.ids.turn(), {}, [], [], true);
    if (this.status === "waiting_on_user") void this.compactor.compact("manual", turn.id, turn.ctrl.signal);
    else this.compactor.request();
    return turn;
  }

  /** Aborts the running turn; an AbortNow reason kills its command without a grace period. */
  interrupt(reason: string | AbortNow = "interrupted"): boolean {
    if (!this.active) return false;
    this.active.ctrl.abort(reason);
    return true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.interrupt("thread closed");
    await this.active?.done.catch(() => {});
    this.host.questions.cancel({ threadId: this.id }, "thread closed");
    await this.disposeTools();
    this.workspace.close(); // the last user's close stops a running scan (see Runtime.shutdown)
    await this.workspace.settled();
    this.host.secrets.dropThread(this.id);
    this.setStatus("closed");
    this.closed = true;
    this.host.lease.release(this.id);
  }

  private launch(
    turnId: string,
    options: TurnOptions,
    pending: PendingInput[],
    resumed: ResumedCall[],
    compactOnly = false,
    use?: SkillInput & { mentions?: boolean },
    shell?: UserShell,
  ): ActiveTurn {
    const ctrl = new AbortController();
    // Every parallel tool call and pending question listens on this one signal.
    setMaxListeners(0, ctrl.signal);
    const mode = options.mode ?? this.record.mode;
    // The first turn stores the thread (row, lease, the items recorded so far).
    if (!this.stored) this.persist();
    const turn: ActiveTurn = { id: turnId, ctrl, mode, options, pending, done: Promise.resolve() as any };
    this.active = turn;
    const now = Date.now();
    if (this.stored)
      this.storage.putTurn({
        id: turnId,
        thread_id: this.id,
        started_at: now,
        ended_at: null,
        status: "running",
        usage: null,
        error: null,
      });
    this.setStatus(this.host.questions.pendingCount(this.id) > 0 ? "waiting_on_user" : "running");
    this.diffs.reset();
    this.workspace.start(options.cwd ?? this.record.cwd, {
      threadId: this.id,
      turnId,
      record: !this.ephemeral,
    });
    this.emit({ type: "turn.started", thread_id: this.id, turn_id: turnId, mode });
    turn.done = this.run(turn, resumed, compactOnly, use, shell);
    return turn;
  }

  private async run(
    turn: ActiveTurn,
    resumed: ResumedCall[],
    compactOnly = false,
    use?: SkillInput & { mentions?: boolean },
    shell?: UserShell,
  ): Promise<TurnOutcome> {
    const s = this.host.settings;
    // User hooks (runtime/hooks.ts): trust, SessionStart, UserPromptSubmit; Stop may go on.
    // "blocked": every prompt of the turn was refused (a turn resumed from history has none).
    const prompts = turn.pending.length;
    // The user's own command (user-shell.ts) is no prompt: no prompt hooks, no skills, no Stop.
    const before = compactOnly || shell ? undefined : this.host.hooks.beforeTurn(this, turn);
    const gate = !before
      ? "run"
      : await before.then(
          () => (prompts && !turn.pending.length && !resumed.length ? "blocked" : "run"),
          () => "interrupted",
        );
    // Skills the input names (skill-use.ts), once the prompt got past the hooks.
    const skillFailure =
      gate === "run" && use && this.host.skills
        ? await attachSkills(this.host.skills, this, turn, use, !this.skillsWarned)
        : undefined;
    if (use) this.skillsWarned = true;
    // Files the text mentions as `@path` (file-mentions.ts), after the skills; only the user's
    // own text: a model-written task would make the host read what the model planted.
    if (gate === "run" && use?.mentions && !skillFailure) this.attachFiles(turn, use.text);
    const go = () =>
      runTurn({
        threadId: this.id,
        turnId: turn.id,
        signal: turn.ctrl.signal,
        model: this.host.model,
        registry: this.registry,
        parallelToolCalls: s.parallel_tool_calls,
        maxRetries: s.stream_max_retries,
        retryBaseMs: s.retry_base_ms,
        items: () => this.history,
        record: (item) => this.recordItem(item, turn.id),
        takePendingInput: () => turn.pending.splice(0),
        prompt: (h) => this.prompt(h, turn),
        toolContext: (call, signal) => this.toolContext(call, signal, turn),
        emit: (e) => this.emit(e),
        onUsage: (last) => this.countUsage(turn.id, last),
        resumed,
        compactor: this.compactor,
        compactOnly,
      });
    let outcome: TurnOutcome = shell
      ? await runUserShell(this.host, this, turn, shell)
      : (skillFailure ??
        (gate === "run"
          ? await go()
          : { status: gate === "blocked" ? "completed" : "interrupted", usage: emptyUsage() }));
    for (
      let round = 0;
      gate === "run" && !shell && !skillFailure && !compactOnly && outcome.status === "completed";
      round++
    ) {
      const more = await this.host.hooks.onStop(this, turn, outcome.lastMessage, round);
      if (more === undefined) break;
      turn.pending.push({ id: this.host.ids.item("user"), item: userMessage(more) });
      const before = outcome.usage;
      outcome = await go();
      addUsage(outcome.usage, before);
    }
    // Commands' changes are compared in the background: the turn's diff is complete first.
    await this.workspace.settled();
    // Questions of an interrupted turn are settled by the tools' abort; make sure of it (Q8).
    if (outcome.status !== "completed" && !this.suspended)
      this.host.questions.cancel({ threadId: this.id, turnId: turn.id }, outcome.status);
    // Input queued after the last request was built is not lost: it is recorded now.
    for (const p of turn.pending.splice(0)) {
      this.recordItem(p.item, turn.id);
      this.emit({
        type: "item.completed",
        thread_id: this.id,
        turn_id: turn.id,
        item: { id: p.id, type: "user_message", text: messageText(p.item) },
      });
    }
    if (!this.suspended && this.stored)
      this.storage.updateTurn(turn.id, {
        status: outcome.status,
        ended_at: Date.now(),
        // usage: already summed into the turn by onUsage (a resumed turn keeps its earlier part).
        error: outcome.error?.message ?? null,
        // The final turn.diff, masked as emitted, so a reader after a reload shows it (complete:
        // commands' changes were compared above).
        diff: this.turnDiff() || null,
      });
    this.active = undefined;
    this.lastOutcome = outcome;
    this.setStatus(
      this.host.questions.pendingCount(this.id) > 0
        ? "waiting_on_user"
        : outcome.status === "failed"
          ? "failed"
          : "idle",
    );
    this.emit({
      type: "turn.completed",
      thread_id: this.id,
      turn_id: turn.id,
      status: outcome.status,
      usage: outcome.usage,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    return outcome;
  }

  prompt(history: ResponseItem[], turn: ActiveTurn): Prompt {
    return promptFor(this.host, this, history, turn);
  }

  /** Adds one response's usage (a turn's or a compaction's), persisted so a restart keeps it. */
  private countUsage(turnId: string, last: Usage): void {
    if (this.suspended || !this.stored) addUsage(this.totalUsage, last);
    else this.totalUsage = this.storage.addUsage(turnId, last);
    this.record.usage = { ...this.totalUsage };
    this.emit({
      type: "token.usage",
      thread_id: this.id,
      turn_id: turnId,
      last,
      total: { ...this.totalUsage },
    });
  }

  /** Sandbox in force: turn ← thread ← config (requirements A1); a review turn has no network. */
  sandbox(turn?: TurnHandle): SandboxInForce {
    const st = this.record.settings;
    const s = this.host.settings;
    return {
      mode: turn?.options.sandbox ?? st.sandbox_mode ?? s.sandbox_mode,
      writableRoots: [...(s.sandbox_workspace_write.writable_roots ?? []), ...(st.writable_roots ?? [])],
      // A review (read_only_tools) reaches nothing outside either: a listener on the host (a
      // service that writes, Tandem's own API) is as much a door as a write tool.
      network: turn?.options.read_only_tools
        ? false
        : (st.network_access ?? s.sandbox_workspace_write.network_access),
      protectedPaths: this.host.protectedPaths,
      hiddenPaths: s.sandbox_workspace_write.readable_home ? [] : this.host.hiddenPaths,
    };
  }

  approvalPolicy(): ApprovalPolicy {
    return this.record.settings.approval_policy ?? this.host.settings.approval_policy;
  }

  /** The question policy in force: turn ← thread ← config (Q7). */
  questionPolicy(turn?: TurnHandle): QuestionPolicy {
    return (
      turn?.options.question_policy ??
      this.record.settings.question_policy ??
      this.host.settings.questions.policy
    );
  }

  private toolContext(call: ToolCallItem, signal: AbortSignal, turn: ActiveTurn): ToolContext {
    return toolContext(this.host, this, turn, call, signal);
  }
}
