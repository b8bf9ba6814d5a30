/**
 * Runtime: wires store, bus, model client, question broker, secrets and tools into one
 * facade that every surface uses (STYLE: surfaces are thin). All pending-request
 * bookkeeping lives here and in the broker, never in a surface.
 *
 * Contract: `shutdown()` interrupts every running turn, cancels every pending question of this
 * process (they stay pending in the store for the next process, Q11), kills every exec
 * session's process tree, then closes the store. `startThread` stores nothing: the thread's first
 * turn does (`persistThread`), so opening a UI and quitting leaves no thread behind.
 */

import { randomUUID } from "node:crypto";
import { ABORTED_OUTPUT, orphanCalls } from "../agent/history.js";
import { Workspaces } from "../checkpoints/index.js";
import type { ResolvedProvider } from "../config/load.js";
import type { McpServerConfig, Settings } from "../config/schema.js";
import type { ModelClient, WireTool } from "../model/types.js";
import type { CollaborationMode, Stamped } from "../protocol/events.js";
import { isToolCall, outputFor, type ResponseItem, type ToolCallItem } from "../protocol/items.js";
import type { TurnOptions } from "../protocol/ops.js";
import type {
  ElicitationInfo,
  Question,
  QuestionPolicy,
  QuestionRequest,
  Responder,
} from "../protocol/questions.js";
import { type Broker, createBroker, requestIdFor } from "../questions/broker.js";
import { toModelResult } from "../questions/model.js";
import { createResponders, type Responders } from "../questions/responders.js";
import type { SecretStore } from "../questions/secrets.js";
import { leaseMessage, leaseOwner } from "../store/lease.js";
import type { Store, ThreadRecord } from "../store/types.js";
import { elicitationLostReason } from "../tools/mcp/elicitation.js";
import type { DispatchResult, ToolHooks } from "../tools/registry.js";
import type { ToolContext } from "../tools/types.js";
import { type Bus, createBus } from "../util/bus.js";
import { type IdSource, randomIds, shortId } from "../util/ids.js";
import { Agents } from "./agents/index.js";
import { Approvals } from "./approvals.js";
import { Branches } from "./branches.js";
import { Checkpoints } from "./checkpoints.js";
import { agentsMdItem, DEFAULT_BASE_INSTRUCTIONS, environmentContextItem } from "./context.js";
import { familySecrets } from "./family-secrets.js";
import { hiddenPathsFor, protectedPathsFor } from "./own-paths.js";
import { Ownership } from "./ownership.js";
import { RESTORE_CALL_PREFIX } from "./restore-flow.js";
import { type ActiveTurn, Thread } from "./thread.js";
import { resolveThreadRef, type ThreadRef } from "./thread-ref.js";
import { questionsInDefaultMode, threadTools } from "./thread-tools.js";

export interface RuntimeOptions {
  settings: Settings;
  store: Store;
  model: ModelClient;
  provider: ResolvedProvider;
  ids?: IdSource;
  bus?: Bus;
  /** Identifies this process's window in client_metadata. */
  windowId?: string;
  installationId?: string;
  /** `$TANDEM_HOME` of this process: never writable from the sandbox (SPEC A4). */
  home?: string;
}

export interface StartThreadOptions {
  cwd: string;
  model?: string;
  mode?: CollaborationMode;
  effort?: string;
  questionPolicy?: QuestionPolicy;
  /** Offer request_user_input to the model in this thread (headless runs opt in). */
  offerQuestions?: boolean;
  /**
   * How a headless run answers questions (`exec --questions`), stored with the thread so a
   * resume keeps it; set, it also offers request_user_input in Default mode.
   */
  headlessQuestions?: "defer" | "stdin";
  /** Never stored, never listed (a client's helper thread, e.g. the Codex TUI's title writer). */
  ephemeral?: boolean;
  /** Tools this thread never offers nor runs (names as the model sees them). */
  disabledTools?: string[];
  outputSchema?: Record<string, unknown>;
  sessionId?: string;
  parentId?: string;
  /** Extra writable roots for the workspace-write sandbox (`--add-dir`). */
  writableRoots?: string[];
  /**
   * MCP servers for this thread only, over the configured ones (same name: these win); never
   * stored — a client that brings its own servers (ACP's session/new, session/load) names them again.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /** More settings stored with the thread (a sub-agent's `agent`, sandbox, `allowed_tools`…). */
  extraSettings?: Record<string, unknown>;
}

/** Another live process drives the thread (issue 9 item 12); the message names it. */
export class ThreadInUseError extends Error {
  override name = "ThreadInUseError";
}

export class Runtime {
  readonly settings: Settings;
  readonly store: Store;
  readonly model: ModelClient;
  readonly provider: ResolvedProvider;
  readonly bus: Bus;
  readonly ids: IdSource;
  readonly broker: Broker;
  readonly responders: Responders;
  /** Sub-agents: spawning, children, relay attribution (./agents). */
  readonly agents: Agents;
  /** Secret answers of thread families (questions/secrets.ts), sealed in the store for masking. */
  readonly secrets: SecretStore;
  readonly approvals: Approvals = new Approvals(this);
  /** Checkpoints of threads' turns: list, undo, redo (./checkpoints.ts). */
  readonly checkpoints: Checkpoints = new Checkpoints(this);
  /** Fork and rewind of threads' conversations (./branches.ts). */
  readonly branches: Branches = new Branches(this);
  readonly windowId: string;
  readonly installationId: string;
  readonly baseInstructions: string;
  /** Paths commands and patches may never write (SPEC A4): home, the store and its WAL files. */
  readonly protectedPaths: string[];
  /** The workspaces threads work in: the turn-diff watch and checkpoints (../checkpoints). */
  readonly workspaces: Workspaces;
  /** Paths sandboxed commands never see (./own-paths.ts): home and the store's files. */
  readonly hiddenPaths: string[];
  private threads = new Map<string, Thread>();
  private hooks: ToolHooks[] = [];
  /** This process's thread-lease identity, and the threads whose lease it holds (item 12). */
  private readonly leaseOwner = leaseOwner();
  private readonly leased = new Set<string>();
  /** Moving threads between processes of a cluster (./ownership.ts). */
  readonly ownership: Ownership;

  constructor(opts: RuntimeOptions) {
    this.settings = opts.settings;
    this.store = opts.store;
    this.model = opts.model;
    this.provider = opts.provider;
    this.ids = opts.ids ?? randomIds;
    // A sub-agent's question events also reach its ancestors' subscribers (Q14).
    this.bus =
      opts.bus ??
      createBus({
        related: (e) =>
          e.type.startsWith("question.") && "thread_id" in e && e.thread_id
            ? this.agents.lineage(e.thread_id)
            : undefined,
      });
    this.windowId = opts.windowId ?? shortId("window", 4);
    this.installationId = opts.installationId ?? this.ensureInstallationId();
    this.baseInstructions = opts.settings.base_instructions ?? DEFAULT_BASE_INSTRUCTIONS;
    this.protectedPaths = protectedPathsFor(opts.home, opts.store.path);
    this.hiddenPaths = hiddenPathsFor(opts.home, opts.store.path);
    this.workspaces = new Workspaces({
      home: opts.home,
      protectedPaths: this.protectedPaths,
      limits: {
        maxCheckpointBytes: opts.settings.checkpoints.max_bytes,
        maxCheckpointAgeMs: opts.settings.checkpoints.max_age_days * 86_400_000,
      },
      withhold: (data) => this.secrets.heldIn(data, this.threads.keys()),
    });
    this.agents = new Agents(this);
    this.secrets = familySecrets({
      home: opts.home,
      store: opts.store,
      family: (id) => this.agents.lineage(id).at(-1) ?? id,
      ephemeral: (id) => this.threads.get(id)?.ephemeral === true,
    });
    this.responders = createResponders({ lineage: (id) => this.agents.lineage(id) });
    this.ownership = new Ownership({
      bus: this.bus,
      broker: () => this.broker,
      thread: (id) => this.threads.get(id),
      unload: (id, release, to) => {
        this.threads.delete(id);
        if (release) this.releaseLease(id, to);
        else this.leased.delete(id);
      },
    });
    this.broker = createBroker({
      lineage: (id) => this.agents.lineage(id),
      attribute: (id) => this.agents.info(id),
      bus: this.ownership.bus,
      store: this.questionStore(),
      onPendingChange: (threadId, count) => this.threads.get(threadId)?.onPendingQuestions(count),
      maskSecrets: (threadId, text) => this.secrets.view(threadId).mask(text),
      limits: this.settings.questions,
    });
  }

  /** The store as the broker sees it: questions of ephemeral threads (and undo's) stay in memory. */
  private questionStore(): Store {
    const store = this.store;
    return new Proxy(store, {
      get: (target, key) => {
        // Undo/redo questions live in this process only (./restore-flow.ts): a restart drops them.
        if (key === "saveQuestion")
          return (request: QuestionRequest) =>
            this.threads.get(request.thread_id)?.ephemeral || request.call_id.startsWith(RESTORE_CALL_PREFIX)
              ? undefined
              : target.saveQuestion(request);
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  private ensureInstallationId(): string {
    let id = this.store.getMeta("installation_id");
    if (!id) {
      id = shortId("install", 8);
      this.store.setMeta("installation_id", id);
    }
    return id;
  }

  subscribe(listener: (e: Stamped) => void, opts?: { threadId?: string; since?: number }) {
    return this.bus.subscribe(listener, opts);
  }

  thread(id: string): Thread | undefined {
    return this.threads.get(id);
  }

  loadedThreads(): Thread[] {
    return [...this.threads.values()];
  }

  /**
   * Open threads started here that no turn has stored yet (newest first): surfaces of this
   * process list them with the stored ones, as their records (they answer from memory).
   */
  unstoredThreads(): ThreadRecord[] {
    return [...this.threads.values()]
      .filter((t) => !t.stored && !t.ephemeral && t.status !== "closed")
      .map((t) => t.record)
      .sort((a, b) => b.updated_at - a.updated_at);
  }

  /** The one thread id `ref` names: exact, a unique prefix or suffix (./thread-ref.ts). */
  resolveThreadId(ref: string): ThreadRef {
    return resolveThreadRef(this.store, ref, this.threads.keys());
  }

  startThread(opts: StartThreadOptions): Thread {
    const id = this.ids.thread();
    const now = Date.now();
    const record: ThreadRecord = {
      id,
      session_id: opts.sessionId ?? id,
      parent_id: opts.parentId ?? null,
      created_at: now,
      updated_at: now,
      cwd: opts.cwd,
      model: opts.model ?? this.settings.model,
      mode: opts.mode ?? "default",
      title: "",
      status: "idle",
      settings: {
        base_id: this.ids.item("msg_base"),
        ...(opts.effort ? { effort: opts.effort } : {}),
        ...(opts.questionPolicy ? { question_policy: opts.questionPolicy } : {}),
        ...(opts.outputSchema ? { output_schema: opts.outputSchema } : {}),
        offer_questions: opts.offerQuestions ?? true,
        ...(opts.headlessQuestions ? { headless_questions: opts.headlessQuestions } : {}),
        ...(opts.writableRoots?.length ? { writable_roots: opts.writableRoots } : {}),
        ...(opts.ephemeral ? { ephemeral: true } : {}),
        ...(opts.disabledTools?.length ? { disabled_tools: opts.disabledTools } : {}),
        ...opts.extraSettings,
      },
    };
    // Stored with its first turn (persistThread): a thread that never gets input leaves nothing.
    const thread = this.attach(record, [], opts.mcpServers);
    thread.stored = false;
    this.bus.publish({
      type: "thread.started",
      thread_id: id,
      cwd: record.cwd,
      model: record.model,
      mode: record.mode,
    });
    if (this.settings.include_environment_context)
      thread.recordItem(environmentContextItem(record.cwd), null);
    if (this.settings.include_agents_md) {
      const agents = agentsMdItem(record.cwd, this.hiddenPaths);
      if (agents) thread.recordItem(agents, null);
    }
    return thread;
  }

  /**
   * Stores a thread started here when its first turn starts: its row (as the live record is now),
   * this process's lease on it and the items recorded so far (context items), in that order.
   */
  persistThread(thread: Thread): void {
    if (thread.stored || thread.ephemeral) return;
    this.store.createThread(thread.record);
    thread.stored = true;
    this.takeLease(thread.id);
    for (const { item, turnId } of thread.takeUnsaved()) this.store.appendItem(thread.id, turnId, item);
  }

  /**
   * Opens a stored thread (resume). Repairs calls left without output by a crash, and
   * re-asks questions that were pending (Q11): the returned thread then has a running turn
   * that completes when they are answered. With `continueWorking`, a thread whose turn was
   * mid-request when its process stopped (status running, nothing pending) goes on with that
   * turn from its stored history: a cluster node taking over a dead node's thread (issue 16).
   */
  openThread(
    id: string,
    patch: Partial<
      Pick<
        StartThreadOptions,
        "offerQuestions" | "headlessQuestions" | "questionPolicy" | "mode" | "model" | "effort" | "mcpServers"
      > & { continueWorking: boolean }
    > = {},
  ): Thread {
    const existing = this.threads.get(id);
    if (existing) return existing;
    const record = this.store.getThread(id);
    if (!record) throw new Error(`no thread with id ${id}; run \`tandem threads\` to list threads`);
    // A sub-agent opens through its working ancestor, which reopens its working children (issue 14).
    const ancestor = this.agents.workingAncestor(id);
    if (ancestor) {
      this.openThread(ancestor, { continueWorking: patch.continueWorking });
      const opened = this.threads.get(id);
      if (opened) return opened;
    }
    // Before anything is written: a thread another process drives is refused untouched.
    this.takeLease(id);
    this.ownership.unmute(id); // given up here once, back now

    const wasWorking = record.status === "running" || record.status === "waiting_on_user";
    // Taken over from a dead node, or handed over by a live one: a turn mid-request goes on.
    const claimed = this.ownership.takeClaimed(id);
    const goOn = (patch.continueWorking === true || claimed) && record.status === "running";
    const settings = { ...record.settings };
    if (patch.offerQuestions !== undefined) settings.offer_questions = patch.offerQuestions;
    if (patch.headlessQuestions) settings.headless_questions = patch.headlessQuestions;
    if (patch.questionPolicy) settings.question_policy = patch.questionPolicy;
    if (patch.effort) settings.effort = patch.effort;
    record.settings = settings;
    if (patch.mode) record.mode = patch.mode;
    if (patch.model) record.model = patch.model;
    record.status = "idle";
    this.store.updateThread(id, { settings, mode: record.mode, model: record.model, status: "idle" });
    const stored = this.store.loadItems(id);
    const history = stored.map((s) => s.item);
    const thread = this.attach(record, history, patch.mcpServers);

    const pending = this.store.pendingQuestions(id);
    const pendingCalls = new Set(pending.map((q) => q.call_id));
    // Sub-agents that were working open again (their questions re-asked); a call that waited on
    // them (wait_agent) runs again instead of being marked aborted (issue 14).
    const reopened = this.agents.reopen(id);
    const rerun = orphanCalls(history).filter(
      (c) => !pendingCalls.has(c.call_id) && this.agents.rerunsOnResume(c),
    );
    const rerunIds = new Set(rerun.map((c) => c.call_id));
    for (const call of orphanCalls(history)) {
      if (!pendingCalls.has(call.call_id) && !rerunIds.has(call.call_id))
        thread.recordItem(outputFor(call, ABORTED_OUTPUT), null);
    }
    if (pending.length || rerun.length) {
      const calls = new Map(history.filter(isToolCall).map((c) => [c.call_id, c]));
      const seen = new Set<string>();
      const resumed = pending
        .filter((q) => calls.has(q.call_id) && !seen.has(q.call_id) && seen.add(q.call_id))
        .map((q) => ({
          call: calls.get(q.call_id)!,
          // A question is asked again as stored. An approval re-runs its tool call from the
          // start: the gate asks the same approval (same request id) and, once decided,
          // runs — or not — the command it guards.
          run: (signal: AbortSignal) =>
            q.approval
              ? this.redispatch(thread, calls.get(q.call_id)!, signal)
              : this.reask(thread, q, signal),
        }));
      for (const call of rerun)
        resumed.push({ call, run: (signal) => this.redispatch(thread, call, signal) });
      const turnId =
        pending[0]?.turn_id ??
        stored.find((s) => "call_id" in s.item && s.item.call_id === rerun[0]?.call_id)?.turn_id;
      if (resumed.length && turnId) thread.resumeTurn(turnId, resumed);
    } else if (wasWorking && (reopened.length || record.parent_id || goOn)) {
      // A sub-agent, or a parent whose sub-agents worked, or a taken-over thread, stopped
      // mid-request: the turn goes on from its history (calls cut off were marked aborted above).
      // A turn recorded as ended is not run again (a crash between ending it and the status).
      const last = this.store.listTurns(id).at(-1);
      if (last && last.status === "running") thread.resumeTurn(last.id, []);
    }
    return thread;
  }

  /** Takes the thread's driving lease; throws `ThreadInUseError` naming the live holder. */
  private takeLease(id: string): void {
    const r = this.store.acquireLease(id, { ...this.leaseOwner, since: Date.now() });
    if (!r.ok) throw new ThreadInUseError(leaseMessage(id, r.holder));
    this.leased.add(id);
  }

  /** Gives the thread's lease back (thread closed, process shutting down), or to node `to`. */
  releaseLease(id: string, to?: string): void {
    if (!this.leased.delete(id)) return;
    try {
      if (to && this.store.handOverLease) this.store.handOverLease(id, this.leaseOwner.token, to);
      else this.store.releaseLease(id, this.leaseOwner.token);
    } catch {
      /* a store already closed: the lease goes stale with this process */
    }
  }

  private attach(
    record: ThreadRecord,
    history: ResponseItem[],
    mcpServers: Record<string, McpServerConfig> = {},
  ): Thread {
    const tools = threadTools(
      {
        settings: this.settings,
        provider: this.provider,
        chunkId: () => this.ids.chunk(),
        secrets: this.secrets,
        agents: this.agents,
        hooks: this.hooks,
        publish: (e) => this.ownership.publish(e),
        thread: (id) => this.threads.get(id),
      },
      record,
      mcpServers,
    );
    const thread = new Thread(this, record, history, tools.registry, tools.close);
    this.threads.set(record.id, thread);
    return thread;
  }

  /**
   * Adds pre/post tool hooks to every thread, loaded now or later (SPEC T4, Q15). A pre hook
   * on `request_user_input` may block the call or rewrite its questions before anything is
   * shown; a post hook may replace what the model sees (e.g. `withheldModelResult`) without
   * undoing the interaction. Returns a function that removes the hooks.
   */
  addToolHooks(hooks: ToolHooks): () => void {
    this.hooks.push(hooks);
    const removers = [...this.threads.values()].map((t) => t.registry.addHooks(hooks));
    return () => {
      this.hooks = this.hooks.filter((h) => h !== hooks);
      for (const r of removers) r();
      for (const t of this.threads.values()) t.registry.removeHooks(hooks);
    };
  }

  /** Wire tools offered to the model for this thread and mode. */
  toolsFor(thread: Thread, _mode: CollaborationMode): WireTool[] {
    const offer = (thread.record.settings as { offer_questions?: boolean }).offer_questions !== false;
    const enabled = this.settings.enabled_tools;
    return thread.registry
      .wire()
      .filter((t) => (t.name === "request_user_input" ? offer : true))
      .filter((t) => !enabled || enabled.includes(t.name));
  }

  toolContext(thread: Thread, turn: ActiveTurn, call: ToolCallItem, signal: AbortSignal): ToolContext {
    const offer = (thread.record.settings as { offer_questions?: boolean }).offer_questions !== false;
    return {
      signal,
      callId: call.call_id,
      threadId: thread.id,
      turnId: turn.id,
      cwd: turn.options.cwd ?? thread.record.cwd,
      mode: turn.mode,
      isSubAgent: thread.record.parent_id !== null,
      ask: (questions, opts) =>
        this.ask(
          thread,
          turn.id,
          call.call_id,
          questions,
          opts.policy ?? thread.questionPolicy(turn),
          opts.source,
          signal,
          opts.elicitation,
        ),
      onUpdate: (u) =>
        thread.emit({
          type: "exec.output_delta",
          thread_id: thread.id,
          turn_id: turn.id,
          item_id: call.call_id,
          stream: u.stream,
          chunk: u.chunk,
        }),
      secrets: this.secrets.view(thread.id),
      pause: thread.pause,
      questions: {
        enabled: this.settings.questions.enabled && offer,
        subAgentPolicy: this.settings.questions.sub_agents,
        defaultModeAllowed: questionsInDefaultMode(this.settings, thread.record),
        hasResponder: () => this.responders.has(thread.id),
        policy: thread.questionPolicy(turn),
      },
      safety: {
        sandbox: thread.sandbox(turn),
        approvalPolicy: turn.options.approval_policy ?? thread.approvalPolicy(),
        requestApproval: (ask) =>
          this.approvals.request(thread, turn.id, call.call_id, ask, thread.questionPolicy(turn), signal),
      },
    };
  }

  /** Builds a request for one call and waits on the broker. */
  ask(
    thread: Thread,
    turnId: string,
    callId: string,
    questions: Question[],
    policy: QuestionPolicy,
    source: "model" | "internal",
    signal: AbortSignal,
    elicitation?: ElicitationInfo,
  ) {
    const request: QuestionRequest = {
      // An MCP tool call may elicit several times: each elicitation is its own request.
      request_id: requestIdFor(thread.id, elicitation ? `${callId}#elicitation-${randomUUID()}` : callId),
      thread_id: thread.id,
      turn_id: turnId,
      call_id: callId,
      source,
      questions,
      policy,
      deadline: null,
      created_at: Date.now(),
      ...(elicitation && { elicitation }),
    };
    return this.broker.ask(request, signal);
  }

  /** Runs a stored tool call again in the thread's active (resumed) turn. */
  private redispatch(thread: Thread, call: ToolCallItem, signal: AbortSignal): Promise<DispatchResult> {
    const turn = thread.active;
    if (!turn) return Promise.resolve({ aborted: true });
    return thread.registry.dispatch(call, this.toolContext(thread, turn, call, signal));
  }

  /**
   * Resolves once every question or approval stored as pending for the thread is asked again
   * in this process (re-asks start as the thread opens; approvals take a few ticks), or after
   * `timeoutMs`. Surfaces that answer right after opening a thread wait on this.
   */
  async reasked(threadId: string, timeoutMs = 5000): Promise<void> {
    const want = this.store.pendingQuestions(threadId).map((q) => q.request_id);
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const live = new Set(this.broker.list({ threadId }).map((q) => q.request_id));
      if (want.every((id) => live.has(id) || this.store.getQuestion(id)?.outcome)) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Re-asks a question persisted by an earlier process and maps its outcome for the model. */
  private async reask(
    thread: Thread,
    request: QuestionRequest,
    signal: AbortSignal,
  ): Promise<DispatchResult> {
    if (request.elicitation) {
      // The MCP server's request died with the process that asked: settle it, never re-ask.
      const reason = elicitationLostReason(request.elicitation);
      this.broker.expire(request, reason);
      return { aborted: false, args: undefined, result: { output: reason, success: false } };
    }
    const outcome = await this.broker.ask(request, signal);
    if (outcome.status === "cancelled") return { aborted: true };
    const output = toModelResult(outcome, request, (qid: string) => {
      const answer =
        outcome.status === "answered" || outcome.status === "timed_out" ? outcome.answers[qid] : undefined;
      return this.secrets.put(thread.id, qid, answer?.other ?? "");
    });
    return { aborted: false, args: undefined, result: { output, success: true } };
  }

  /** Replies through the broker on behalf of a surface. */
  reply(threadId: string, requestId: string, reply: Parameters<Broker["reply"]>[2], responder: Responder) {
    return this.broker.reply(threadId, requestId, reply, responder);
  }

  async startTurn(threadId: string, text: string, opts: { images?: string[]; options?: TurnOptions } = {}) {
    const thread = this.threads.get(threadId) ?? this.openThread(threadId);
    return thread.startTurn(text, opts);
  }

  /**
   * Process shutdown (Q8 + Q11). Every in-memory waiter settles as cancelled ("shutdown") so
   * handlers return promptly, but nothing more is written: questions stay pending in the
   * store with their calls unanswered, exactly as after a crash, so the next process that
   * opens the thread re-asks them. Running turns are aborted, exec process trees killed.
   */
  async shutdown(): Promise<void> {
    const threads = [...this.threads.values()];
    for (const t of threads) t.suspended = true;
    this.broker.cancelAll("all", "shutdown", { persist: false });
    for (const t of threads) t.interrupt("shutdown");
    await Promise.all(threads.map((t) => t.active?.done.catch(() => {})));
    await Promise.all(threads.map((t) => t.disposeTools().catch(() => {})));
    // Closing first stops a scan still running (a large workspace's first one), so shutdown
    // never waits on it; what was queued after it then finds the workspace closed.
    this.workspaces.closeAll();
    await Promise.all(threads.map((t) => t.workspace.settled()));
    this.threads.clear();
    for (const id of [...this.leased]) this.releaseLease(id);
    this.store.close();
  }
}
