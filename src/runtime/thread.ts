/**
 * Thread: one conversation's live state over the store. Owns the steer queue, the active
 * turn's AbortController, its tool registry (exec sessions die with the thread) and its
 * pause clock. Surfaces talk to it only through the Runtime facade's methods and events.
 *
 * Contract: at most one turn runs at a time; `startTurn` while one runs is refused (use
 * `steer`). `interrupt()` aborts through one signal; the turn ends `interrupted` with
 * history paired. Items are persisted before they are visible in `items()` — once the thread is
 * stored: a thread started here (`stored` false) lives in memory until its first turn starts,
 * which writes its row, lease and the items recorded so far (`Runtime.persistThread`), so a
 * thread that never gets input leaves nothing behind. Status `failed`: the last turn failed.
 */

import { setMaxListeners } from "node:events";
import { autoCompactLimit, compactedView } from "../agent/compaction.js";
import { Compactor } from "../agent/compaction-run.js";
import { normalizeForPrompt } from "../agent/history.js";
import { type PendingInput, type ResumedCall, runTurn, type TurnOutcome } from "../agent/turn.js";
import { remoteCompact } from "../model/compact-remote.js";
import { contextWindow } from "../model/context-window.js";
import type { Prompt } from "../model/types.js";
import type { CollaborationMode, Event, ThreadStatus, Usage } from "../protocol/events.js";
import { addUsage, emptyUsage } from "../protocol/events.js";
import { messageText, type ResponseItem, type ToolCallItem, userMessage } from "../protocol/items.js";
import type { TurnOptions } from "../protocol/ops.js";
import type { QuestionPolicy } from "../protocol/questions.js";
import { StoreError } from "../store/errors.js";
import type { ThreadRecord } from "../store/types.js";
import { TurnDiffTracker } from "../tools/patch/index.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolContext } from "../tools/types.js";
import type { AbortNow } from "../util/abort.js";
import { PauseClock } from "../util/pause-clock.js";
import type { Runtime } from "./core.js";
import { TurnWorkspace } from "./workspace-diff.js";

export interface ActiveTurn {
  id: string;
  ctrl: AbortController;
  mode: CollaborationMode;
  options: TurnOptions;
  pending: PendingInput[];
  done: Promise<TurnOutcome>;
}

export class TurnBusyError extends Error {
  override name = "TurnBusyError";
}

export class Thread {
  readonly pause = new PauseClock();
  /** Net file changes of the current turn (apply_patch and commands), for `turn.diff`. */
  readonly diffs = new TurnDiffTracker();
  /** The workspace as the current turn found it, for commands' changes (workspace-diff.ts). */
  readonly workspace = new TurnWorkspace(() => this.core.workspaces);
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
  /** Set by Runtime.suspend(): the process is going away; nothing more is written (see there). */
  suspended = false;
  /** Keeps the prompt within the model's window (agent/compaction-run.ts). */
  readonly compactor: Compactor;

  constructor(
    readonly core: Runtime,
    public record: ThreadRecord,
    history: ResponseItem[],
    readonly registry: ToolRegistry,
    /** Stops the thread's tools (`now`: its processes are SIGKILLed without a grace period). */
    readonly disposeTools: (opts?: { now?: boolean }) => Promise<void>,
  ) {
    this.history = history;
    this.compactor = this.createCompactor();
    this.totalUsage = record.usage ? { ...record.usage } : emptyUsage();
  }

  get id(): string {
    return this.record.id;
  }

  items(): ResponseItem[] {
    return this.history;
  }

  /**
   * Replaces the in-memory history with the stored one after a rewind truncated it (./branches.ts).
   * Only between turns; throws while a turn runs.
   */
  reloadHistory(): void {
    if (this.active) throw new TurnBusyError(`thread ${this.id} has a running turn; interrupt it first`);
    this.history = this.core.store.loadItems(this.id).map((s) => s.item);
  }

  /** Persists then appends one item. */
  recordItem(item: ResponseItem, turnId: string | null): void {
    if (this.suspended) return;
    if (this.stored) {
      try {
        this.core.store.appendItem(this.id, turnId, item);
      } catch (e) {
        // Another process holds the thread now: stop here, quietly (Runtime.ownership.fenced).
        if (StoreError.isInstance(e) && e.code === "fenced") this.core.ownership.fenced(this.id);
        throw e;
      }
    } else this.unsaved.push({ item, turnId });
    this.history.push(item);
    this.record.updated_at = Math.max(this.record.updated_at, Date.now());
  }

  /** Takes the items recorded before the thread was stored (Runtime.persistThread writes them). */
  takeUnsaved(): Array<{ item: ResponseItem; turnId: string | null }> {
    return this.unsaved.splice(0);
  }

  /** Changes the live record and, once the thread is stored, its row. */
  update(patch: Partial<Omit<ThreadRecord, "id">>): void {
    Object.assign(this.record, patch);
    if (this.stored && !this.suspended) this.core.store.updateThread(this.id, patch);
  }

  setStatus(status: ThreadStatus): void {
    if (this.status === status || this.closed) return;
    this.status = status;
    this.record.status = status;
    this.record.updated_at = Math.max(this.record.updated_at, Date.now());
    if (this.stored && !this.suspended)
      this.core.store.updateThread(this.id, { status, updated_at: this.record.updated_at });
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
      event = { ...event, diff: this.core.secrets.view(this.id).mask(event.diff) };
    this.core.ownership.publish(event);
  }

  /** The current turn's net diff, with the thread's secret values masked (Q10). */
  turnDiff(): string {
    return this.core.secrets.view(this.id).mask(this.diffs.diff());
  }

  /** Starts a turn with user input. Throws TurnBusyError while another turn runs. */
  startTurn(text: string, opts: { images?: string[]; options?: TurnOptions } = {}): ActiveTurn {
    if (this.closed) throw new Error(`thread ${this.id} is closed`);
    if (this.suspended) throw new Error(`thread ${this.id} is shutting down or moved to another process`);
    if (this.active)
      throw new TurnBusyError(
        `thread ${this.id} already has a running turn (${this.active.id}); steer it or interrupt it`,
      );
    const turnId = this.core.ids.turn();
    const item = userMessage(text, opts.images ?? []);
    if (!this.record.title) this.update({ title: text.replace(/\s+/g, " ").trim().slice(0, 80) });
    const pending: PendingInput[] = [{ id: this.core.ids.item("user"), item }];
    return this.launch(turnId, opts.options ?? {}, pending, []);
  }

  /** Continues a turn whose calls were left waiting (e.g. a question pending across a restart). */
  resumeTurn(turnId: string, resumed: ResumedCall[], options: TurnOptions = {}): ActiveTurn {
    if (this.active) throw new TurnBusyError(`thread ${this.id} already has a running turn`);
    return this.launch(turnId, options, [], resumed);
  }

  /** Queues input for the running turn (L7); recorded before its next sampling request. */
  steer(text: string): { inputId: string; turnId: string } {
    const turn = this.active;
    if (!turn)
      throw new TurnBusyError(`thread ${this.id} has no running turn to steer; start a turn instead`);
    const inputId = this.core.ids.item("user");
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
    if (!turn) return this.launch(this.core.ids.turn(), {}, [], [], true);
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
    this.core.broker.cancelAll({ threadId: this.id }, "thread closed");
    await this.disposeTools();
    this.workspace.close(); // the last user's close stops a running scan (see Runtime.shutdown)
    await this.workspace.settled();
    this.core.secrets.dropThread(this.id);
    this.setStatus("closed");
    this.closed = true;
    this.core.releaseLease(this.id);
  }

  private launch(
    turnId: string,
    options: TurnOptions,
    pending: PendingInput[],
    resumed: ResumedCall[],
    compactOnly = false,
  ): ActiveTurn {
    const ctrl = new AbortController();
    // Every parallel tool call and pending question listens on this one signal.
    setMaxListeners(0, ctrl.signal);
    const mode = options.mode ?? this.record.mode;
    // The first turn stores the thread (row, lease, the items recorded so far).
    if (!this.stored) this.core.persistThread(this);
    const turn: ActiveTurn = { id: turnId, ctrl, mode, options, pending, done: Promise.resolve() as any };
    this.active = turn;
    const now = Date.now();
    if (this.stored)
      this.core.store.putTurn({
        id: turnId,
        thread_id: this.id,
        started_at: now,
        ended_at: null,
        status: "running",
        usage: null,
        error: null,
      });
    this.setStatus(this.core.broker.pendingCount(this.id) > 0 ? "waiting_on_user" : "running");
    this.diffs.reset();
    this.workspace.start(options.cwd ?? this.record.cwd, {
      threadId: this.id,
      turnId,
      record: !this.ephemeral,
    });
    this.emit({ type: "turn.started", thread_id: this.id, turn_id: turnId, mode });
    turn.done = this.run(turn, resumed, compactOnly);
    return turn;
  }

  private async run(turn: ActiveTurn, resumed: ResumedCall[], compactOnly = false): Promise<TurnOutcome> {
    const s = this.core.settings;
    const outcome = await runTurn({
      threadId: this.id,
      turnId: turn.id,
      signal: turn.ctrl.signal,
      model: this.core.model,
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
    // Commands' changes are compared in the background: the turn's diff is complete first.
    await this.workspace.settled();
    // Questions of an interrupted turn are settled by the tools' abort; make sure of it (Q8).
    if (outcome.status !== "completed" && !this.suspended)
      this.core.broker.cancelAll({ threadId: this.id, turnId: turn.id }, outcome.status);
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
      this.core.store.updateTurn(turn.id, {
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
      this.core.broker.pendingCount(this.id) > 0
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
    const s = this.core.settings;
    const settings = this.record.settings as {
      effort?: string;
      base_id?: string;
      output_schema?: Record<string, unknown>;
    };
    return {
      model: turn.options.model ?? this.record.model,
      input: normalizeForPrompt(compactedView(history)),
      tools: this.core.toolsFor(this, turn.mode),
      parallelToolCalls: s.parallel_tool_calls,
      baseInstructions: { text: this.core.baseInstructions, id: settings.base_id },
      effort: turn.options.effort ?? settings.effort ?? s.model_reasoning_effort,
      summary:
        s.model_reasoning_summary && s.model_reasoning_summary !== "none"
          ? s.model_reasoning_summary
          : undefined,
      serviceTier: s.service_tier,
      outputSchema: turn.options.output_schema ?? settings.output_schema,
      promptCacheKey: this.record.session_id,
      clientMetadata: {
        "x-tandem-installation-id": this.core.installationId,
        session_id: this.record.session_id,
        thread_id: this.id,
        "x-tandem-window-id": this.core.windowId,
        turn_id: turn.id,
      },
      lite: this.core.provider.lite,
    };
  }

  /** Adds one response's usage (a turn's or a compaction's), persisted so a restart keeps it. */
  private countUsage(turnId: string, last: Usage): void {
    if (this.suspended || !this.stored) addUsage(this.totalUsage, last);
    else this.totalUsage = this.core.store.addUsage(this.id, turnId, last);
    this.record.usage = { ...this.totalUsage };
    this.emit({
      type: "token.usage",
      thread_id: this.id,
      turn_id: turnId,
      last,
      total: { ...this.totalUsage },
    });
  }

  private createCompactor(): Compactor {
    const s = this.core.settings;
    const turnFor = (turnId: string): ActiveTurn =>
      this.active?.id === turnId
        ? this.active
        : ({ id: turnId, options: {}, mode: this.record.mode } as unknown as ActiveTurn);
    return new Compactor({
      threadId: this.id,
      model: this.core.model,
      items: () => this.history,
      record: (item, turnId) => this.recordItem(item, turnId),
      emit: (e) => this.emit(e),
      prompt: (input, turnId) => ({ ...this.prompt([], turnFor(turnId)), input }),
      limit: () =>
        autoCompactLimit(
          contextWindow(this.record.model, s.model_context_window),
          s.model_auto_compact_token_limit,
        ),
      extraChars: () => this.core.baseInstructions.length,
      newItemId: () => this.core.ids.item("compaction"),
      // Server-side compaction needs the Responses API; on the Chat wire, compaction is local.
      remote:
        s.compaction === "server" && this.core.provider.wire !== "chat"
          ? remoteCompact({ baseUrl: this.core.provider.baseUrl, apiKey: this.core.provider.apiKey })
          : undefined,
      onUsage: (usage, turnId) => this.countUsage(turnId, usage),
      maxRetries: s.stream_max_retries,
      retryBaseMs: s.retry_base_ms,
    });
  }

  /** Sandbox in force: turn ← thread ← config (SPEC A1). */
  sandbox(turn?: ActiveTurn): ToolContext["safety"]["sandbox"] {
    const st = this.record.settings as {
      sandbox_mode?: string;
      writable_roots?: string[];
      network_access?: boolean;
    };
    const s = this.core.settings;
    return {
      mode: (turn?.options.sandbox ??
        st.sandbox_mode ??
        s.sandbox_mode) as ToolContext["safety"]["sandbox"]["mode"],
      writableRoots: [...(s.sandbox_workspace_write.writable_roots ?? []), ...(st.writable_roots ?? [])],
      network: st.network_access ?? s.sandbox_workspace_write.network_access,
      protectedPaths: this.core.protectedPaths,
      hiddenPaths: s.sandbox_workspace_write.readable_home ? [] : this.core.hiddenPaths,
    };
  }

  approvalPolicy(): ToolContext["safety"]["approvalPolicy"] {
    const st = this.record.settings as { approval_policy?: ToolContext["safety"]["approvalPolicy"] };
    return st.approval_policy ?? this.core.settings.approval_policy;
  }

  /** The question policy in force: turn ← thread ← config (Q7). */
  questionPolicy(turn?: ActiveTurn): QuestionPolicy {
    const threadPolicy = (this.record.settings as { question_policy?: QuestionPolicy }).question_policy;
    return turn?.options.question_policy ?? threadPolicy ?? this.core.settings.questions.policy;
  }

  private toolContext(call: ToolCallItem, signal: AbortSignal, turn: ActiveTurn): ToolContext {
    return this.core.toolContext(this, turn, call, signal);
  }
}
