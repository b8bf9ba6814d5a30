/**
 * The threads loaded in this process (internal to the runtime; surfaces use `runtime.threads`):
 * starting one, opening a stored one (its lease, its settings, resume and repair), the thread
 * leases this process holds, and the tool hooks every thread gets.
 *
 * Contract:
 * - `start` stores nothing: the thread's first turn does (Thread.persist), so a thread that never
 *   gets input leaves nothing behind (unless `storeNow` asks to store it at once). It publishes `thread.started` and records the context items.
 * - `open` returns the loaded thread when there is one. Otherwise, before anything is written, it
 *   takes the thread's lease (ThreadInUseError naming the live holder when another process drives
 *   it); a sub-agent opens through its working ancestor; then the patch is stored with the thread
 *   (status idle) and resume and repair run (./resume.ts).
 * - `releaseLease(id, to)` gives the lease back (or hands it to node `to`); a store already closed
 *   lets it go stale with the process.
 */
import type { ResolvedProvider } from "../config/load.js";
import type { McpServerConfig, Settings } from "../config/schema.js";
import type { ResponseItem } from "../protocol/items.js";
import type { ThreadRecord } from "../protocol/threads.js";
import { leaseMessage, leaseOwner } from "../store/lease.js";
import type { Store } from "../store/types.js";
import type { ToolHooks } from "../tools/registry.js";
import type { Bus } from "../util/bus.js";
import type { IdSource } from "../util/ids.js";
import type { Agents } from "./agents/index.js";
import { agentsMdItem, environmentContextItem } from "./context.js";
import { ThreadInUseError } from "./errors.js";
import type { ThreadHost } from "./host.js";
import type { Ownership } from "./ownership.js";
import { planResume, type ResumeHost, resumeThread } from "./resume.js";
import { Thread } from "./thread.js";
import { threadTools } from "./thread-tools.js";
import type { OpenThreadOptions, StartThreadOptions } from "./types.js";

export interface RegistryDeps {
  settings: Settings;
  provider: ResolvedProvider;
  store: Store;
  ids: IdSource;
  bus: Bus;
  ownership: Ownership;
  /** Made after the registry (they look threads up in it). */
  agents(): Agents;
  secrets: ThreadHost["secrets"];
  threadHost: ThreadHost;
  resumeHost: ResumeHost;
}

export class ThreadRegistry {
  private readonly threads = new Map<string, Thread>();
  private hooks: ToolHooks[] = [];
  /** This process's thread-lease identity, and the threads whose lease it holds. */
  private readonly leaseOwner = leaseOwner();
  private readonly leased = new Set<string>();

  constructor(private readonly deps: RegistryDeps) {}

  get(id: string): Thread | undefined {
    return this.threads.get(id);
  }

  all(): Thread[] {
    return [...this.threads.values()];
  }

  ids(): IterableIterator<string> {
    return this.threads.keys();
  }

  /** Forgets a thread given up to another process; `release` gives its lease back (to `to`). */
  unload(id: string, release: boolean, to?: string): void {
    this.threads.delete(id);
    if (release) this.releaseLease(id, to);
    else this.leased.delete(id);
  }

  start(opts: StartThreadOptions): Thread {
    const { settings, ids } = this.deps;
    const id = ids.thread();
    const now = Date.now();
    const record: ThreadRecord = {
      id,
      session_id: opts.sessionId ?? id,
      parent_id: opts.parentId ?? null,
      created_at: now,
      updated_at: now,
      cwd: opts.cwd,
      model: opts.model ?? settings.model,
      mode: opts.mode ?? "default",
      title: "",
      status: "idle",
      settings: {
        base_id: ids.item("msg_base"),
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
    // Stored with its first turn (Thread.persist): a thread that never gets input leaves nothing.
    const thread = this.attach(record, [], opts.mcpServers);
    thread.stored = false;
    if (opts.storeNow) thread.persist();
    this.deps.bus.publish({
      type: "thread.started",
      thread_id: id,
      cwd: record.cwd,
      model: record.model,
      mode: record.mode,
    });
    if (settings.include_environment_context) thread.recordItem(environmentContextItem(record.cwd), null);
    if (settings.include_agents_md) {
      const agents = agentsMdItem(record.cwd, this.deps.threadHost.hiddenPaths);
      if (agents) thread.recordItem(agents, null);
    }
    // The skills catalog (progressive disclosure): names, descriptions and paths only.
    const catalog = opts.ephemeral ? undefined : this.deps.threadHost.skills?.catalog(record.cwd);
    if (catalog) thread.recordItem(catalog.item, null);
    return thread;
  }

  open(id: string, patch: OpenThreadOptions = {}): Thread {
    const existing = this.threads.get(id);
    if (existing) return existing;
    const { store, ownership } = this.deps;
    const agents = this.deps.agents();
    const record = store.getThread(id);
    if (!record) throw new Error(`no thread with id ${id}; run \`tandem threads\` to list threads`);
    // A sub-agent opens through its working ancestor, which reopens its working children.
    const ancestor = agents.workingAncestor(id);
    if (ancestor) {
      this.open(ancestor, { continueWorking: patch.continueWorking });
      const opened = this.threads.get(id);
      if (opened) return opened;
    }
    // Before anything is written: a thread another process drives is refused untouched.
    this.takeLease(id);
    ownership.unmute(id); // given up here once, back now
    // What this process knew of the family's saved secrets may be stale: another node may have
    // run the thread and sealed answers since (masking reads the vault again).
    this.deps.secrets.refresh(id);

    const wasWorking = record.status === "running" || record.status === "waiting_on_user";
    // Taken over from a dead node, or handed over by a live one: a turn mid-request goes on.
    const claimed = ownership.takeClaimed(id);
    const claimedGoOn = (patch.continueWorking === true || claimed) && record.status === "running";
    const settings = { ...record.settings };
    if (patch.offerQuestions !== undefined) settings.offer_questions = patch.offerQuestions;
    if (patch.headlessQuestions) settings.headless_questions = patch.headlessQuestions;
    if (patch.questionPolicy) settings.question_policy = patch.questionPolicy;
    if (patch.effort) settings.effort = patch.effort;
    record.settings = settings;
    if (patch.mode) record.mode = patch.mode;
    if (patch.model) record.model = patch.model;
    record.status = "idle";
    store.updateThread(id, { settings, mode: record.mode, model: record.model, status: "idle" });
    const stored = store.loadItems(id);
    const thread = this.attach(
      record,
      stored.map((s) => s.item),
      patch.mcpServers,
    );
    const pending = store.pendingQuestions(id);
    // Sub-agents that were working open again (their questions re-asked); a call that waited on
    // them (wait_agent) runs again instead of being marked aborted (./resume.ts).
    const reopened = agents.reopen(id);
    const plan = planResume({ stored, pending, rerun: (call) => agents.rerunsOnResume(call) });
    const goOn = wasWorking && (reopened.length > 0 || Boolean(record.parent_id) || claimedGoOn);
    resumeThread(this.deps.resumeHost, thread, plan, goOn);
    return thread;
  }

  /** Takes the thread's driving lease; throws `ThreadInUseError` naming the live holder. */
  takeLease(id: string): void {
    const r = this.deps.store.acquireLease(id, { ...this.leaseOwner, since: Date.now() });
    if (!r.ok) throw new ThreadInUseError(leaseMessage(id, r.holder));
    this.leased.add(id);
  }

  /** Gives the thread's lease back (thread closed, process shutting down), or to node `to`. */
  releaseLease(id: string, to?: string): void {
    if (!this.leased.delete(id)) return;
    const { store } = this.deps;
    try {
      if (to && store.handOverLease) store.handOverLease(id, this.leaseOwner.token, to);
      else store.releaseLease(id, this.leaseOwner.token);
    } catch {
      /* a store already closed: the lease goes stale with this process */
    }
  }

  /** Gives back every lease this process holds (shutdown). */
  releaseAll(): void {
    for (const id of [...this.leased]) this.releaseLease(id);
  }

  /** Forgets every loaded thread (shutdown, after they stopped). */
  clear(): void {
    this.threads.clear();
  }

  /**
   * Adds pre/post tool hooks to every thread, loaded now or later (requirements T4, Q15). Returns a
   * function that removes them.
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

  private attach(
    record: ThreadRecord,
    history: ResponseItem[],
    mcpServers: Record<string, McpServerConfig> = {},
  ): Thread {
    const { settings, provider, ids, secrets, ownership } = this.deps;
    const tools = threadTools(
      {
        settings,
        provider,
        chunkId: () => ids.chunk(),
        secrets,
        agentTools: (cwd) => this.deps.agents().tools(cwd),
        hooks: this.hooks,
        publish: (e) => ownership.publish(e),
        thread: (id) => this.threads.get(id),
      },
      record,
      mcpServers,
    );
    const thread = new Thread(this.deps.threadHost, record, history, tools.registry, tools.close);
    thread.workspace.processesAlive = tools.processesAlive;
    this.threads.set(record.id, thread);
    return thread;
  }
}
