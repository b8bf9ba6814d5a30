/**
 * Runtime: the one API surfaces use (STYLE "One door per concern"). It wires the store, the bus,
 * the model client, the question broker, secrets, approvals, sub-agents and the loaded threads
 * together, keeps them private (internals.ts), and offers:
 *
 * - `threads` (threads-api.ts): start, open, get, list, record, history, turns, resolve,
 *   updateSettings, rename, archive;
 * - `turns` (turns-api.ts): start, steer, interrupt, compact;
 * - `questions` (questions-api.ts): list, stored, get, reply, decline, touch, attach (responders);
 * - `approvals`: the rules remembered per project; `agents`: who a sub-agent is;
 * - `files` (files-api.ts): fuzzy search over a workspace's files (`@` mentions);
 * - `checkpoints` (checkpoints-api.ts): list, plan, undo, redo of a thread's turns' file changes;
 * - `branches` (branches-api.ts): fork and rewind a thread's conversation;
 * - `replyLinks` (reply-links.ts): answer or decline one question with the token of its reply link;
 * - `subscribe`, `lastSeq`, `addToolHooks`, `shutdown`, and the configuration in force
 *   (`settings`, `provider`, read only).
 *
 * All pending-request bookkeeping lives here and in the broker, never in a surface.
 *
 * Contract: `shutdown()` interrupts every running turn, cancels every pending question of this
 * process (they stay pending in the store for the next process, Q11), kills every exec session's
 * process tree, then closes the store.
 */

import { join } from "node:path";
import { Workspaces } from "../checkpoints/index.js";
import type { ResolvedProvider } from "../config/load.js";
import type { Settings } from "../config/schema.js";
import type { ModelClient } from "../model/types.js";
import type { Stamped } from "../protocol/events.js";
import type { QuestionRequest } from "../protocol/questions.js";
import { type Broker, createBroker } from "../questions/broker.js";
import { createResponders } from "../questions/responders.js";
import type { SecretStore } from "../questions/secrets.js";
import type { Store } from "../store/types.js";
import type { ToolHooks } from "../tools/registry.js";
import { type Bus, createBus } from "../util/bus.js";
import { type IdSource, randomIds, shortId } from "../util/ids.js";
import { Agents } from "./agents/index.js";
import { Approvals } from "./approvals.js";
import { BranchesApi } from "./branches-api.js";
import { CheckpointsApi } from "./checkpoints-api.js";
import { CommandsApi } from "./commands-api.js";
import { DEFAULT_BASE_INSTRUCTIONS } from "./context.js";
import { familySecrets } from "./family-secrets.js";
import { FilesApi } from "./files-api.js";
import { type HooksApi, RuntimeHooks } from "./hooks.js";
import { storageFor, type ThreadHost } from "./host.js";
import { type RuntimeParts, registerParts } from "./internals.js";
import { hiddenPathsFor, protectedPathsFor } from "./own-paths.js";
import { Ownership } from "./ownership.js";
import { ApprovalsApi, QuestionsApi } from "./questions-api.js";
import { REPLY_RESPONDER, ReplyLinks, type ReplyLinksApi } from "./reply-links.js";
import { RESTORE_CALL_PREFIX } from "./restore-flow.js";
import type { ResumeHost } from "./resume.js";
import { SkillUse } from "./skill-use.js";
import { SkillsApi, threadSkills } from "./skills-api.js";
import { ThreadRegistry } from "./thread-registry.js";
import { AgentsApi, ThreadsApi } from "./threads-api.js";
import { TurnsApi } from "./turns-api.js";

export { StandaloneError, type StandaloneHandle } from "./commands-api.js";
export { ThreadInUseError } from "./errors.js";
export type { StartThreadOptions } from "./types.js";

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
  /** `$TANDEM_HOME` of this process: never writable from the sandbox (requirements A4). */
  home?: string;
}

export class Runtime {
  /** The configuration in force (config.toml ← flags); read only. */
  readonly settings: Settings;
  /** The model provider this process talks to; read only. */
  readonly provider: ResolvedProvider;
  readonly threads: ThreadsApi;
  readonly turns: TurnsApi;
  readonly questions: QuestionsApi;
  readonly approvals: ApprovalsApi;
  readonly agents: AgentsApi;
  /** The workspace's files for `@` mentions and fuzzy file search (files-api.ts). */
  readonly files: FilesApi;
  /** Skills and custom commands of a directory (skills-api.ts). */
  readonly skills: SkillsApi;
  /** Checkpoints of threads' turns: list, plan, undo, redo (README "Undo, redo, fork and rewind"). */
  readonly checkpoints: CheckpointsApi;
  /** Fork and rewind of threads' conversations. */
  readonly branches: BranchesApi;
  /** Commands a client runs outside any turn (commands-api.ts). */
  readonly commands: CommandsApi;
  /** User hooks and notifications (hooks.ts, README "Hooks"). */
  readonly hooks: HooksApi;
  /** Reply links of waiting questions (reply-links.ts, README "Answer from a chat"). */
  readonly replyLinks: ReplyLinksApi;
  readonly #p: RuntimeParts;

  constructor(opts: RuntimeOptions) {
    const { settings, store, home } = opts;
    const ids = opts.ids ?? randomIds;
    this.settings = settings;
    this.provider = opts.provider;
    // Made below, each needing the others: the closures read them once they exist.
    let agents!: Agents;
    let secrets!: SecretStore;
    let broker!: Broker;
    let registry!: ThreadRegistry;
    // A sub-agent's question events also reach its ancestors' subscribers (Q14).
    const bus =
      opts.bus ??
      createBus({
        related: (e) =>
          e.type.startsWith("question.") && "thread_id" in e && e.thread_id
            ? agents.lineage(e.thread_id)
            : undefined,
      });
    const protectedPaths = protectedPathsFor(home, store.path);
    const hiddenPaths = hiddenPathsFor(home, store.path);
    this.files = new FilesApi({ hidden: hiddenPaths });
    const workspaces = new Workspaces({
      home,
      protectedPaths,
      limits: {
        maxCheckpointBytes: settings.checkpoints.max_bytes,
        maxCheckpointAgeMs: settings.checkpoints.max_age_days * 86_400_000,
      },
      withhold: (data) => secrets.heldIn(data, registry.ids()),
    });
    agents = new Agents({
      settings,
      hiddenPaths,
      store,
      bus,
      broker: { pendingCount: (id) => broker.pendingCount(id) },
      thread: (id) => registry.get(id),
      startThread: (o) => registry.start(o),
      openThread: (id) => registry.open(id),
    });
    secrets = familySecrets({
      home,
      store,
      family: (id) => agents.lineage(id).at(-1) ?? id,
      ephemeral: (id) => registry.get(id)?.ephemeral === true,
    });
    const responders = createResponders({ lineage: (id) => agents.lineage(id) });
    const ownership = new Ownership({
      bus,
      broker: () => broker,
      thread: (id) => registry.get(id),
      unload: (id, release, to) => registry.unload(id, release, to),
    });
    broker = createBroker({
      lineage: (id) => agents.lineage(id),
      attribute: (id) => agents.info(id),
      bus: ownership.bus,
      store: questionStore(store, (id) => registry.get(id)?.ephemeral === true),
      onPendingChange: (threadId, count) => registry.get(threadId)?.onPendingQuestions(count),
      maskSecrets: (threadId, text) => secrets.view(threadId).mask(text),
      limits: settings.questions,
    });
    const replyLinks = new ReplyLinks({
      pending: (id) => broker.pending(id),
      reply: (r, answers) => broker.reply(r.thread_id, r.request_id, { answers }, REPLY_RESPONDER),
      decline: (r) =>
        broker.decline(r.thread_id, r.request_id, REPLY_RESPONDER, "declined from a reply link"),
    });
    bus.subscribe((s) => replyLinks.onEvent(s.event));
    this.replyLinks = replyLinks;
    let userHooks!: RuntimeHooks;
    const approvals = new Approvals({
      store,
      responders,
      ask: (request, signal) => broker.ask(request, signal),
      permission: (thread, turnId, ask, signal) => userHooks.permission(thread, turnId, ask, signal),
    });
    const skills = new SkillsApi({ home, hidden: hiddenPaths });
    const skillUse = new SkillUse({
      skills,
      settings,
      secrets: {
        put: (t, n, v) => secrets.put(t, n, v),
        has: (t, n) => secrets.has(t, n),
        view: (t) => secrets.view(t),
      },
      responders,
      ask: (request, signal) => broker.ask(request, signal),
      ...(home ? { configFile: join(home, "config.toml") } : {}),
      hidden: hiddenPaths,
    });
    const threadHost: ThreadHost = {
      settings,
      provider: opts.provider,
      model: opts.model,
      ids,
      windowId: opts.windowId ?? shortId("window", 4),
      installationId: opts.installationId ?? installationIdOf(store),
      baseInstructions: settings.base_instructions ?? DEFAULT_BASE_INSTRUCTIONS,
      protectedPaths,
      hiddenPaths,
      workspaces,
      secrets,
      storage: (id) => storageFor(store, id, () => ownership.fenced(id)),
      lease: { take: (id) => registry.takeLease(id), release: (id) => registry.releaseLease(id) },
      publish: (event) => ownership.publish(event),
      questions: {
        ask: (request, signal) => broker.ask(request, signal),
        pendingCount: (id) => broker.pendingCount(id),
        cancel: (scope, reason) => void broker.cancelAll(scope, reason),
      },
      responders,
      hooks: {
        beforeTurn: (thread, turn) => userHooks.beforeTurn(thread, turn),
        onStop: (thread, turn, last, round) => userHooks.onStop(thread, turn, last, round),
      },
      requestApproval: (thread, turnId, callId, ask, policy, signal) =>
        approvals.request(thread, turnId, callId, ask, policy, signal),
      skillEnv: (threadId) => skillUse.envFor(threadId),
      skills: threadSkills(skills, skillUse),
    };
    const resumeHost: ResumeHost = {
      ask: (request, signal) => broker.ask(request, signal),
      expire: (request, reason) => broker.expire(request, reason),
      putSecret: (threadId, questionId, value) => secrets.put(threadId, questionId, value),
      lastTurn: (threadId) => store.lastTurn(threadId),
    };
    registry = new ThreadRegistry({
      settings,
      provider: opts.provider,
      store,
      ids,
      bus,
      ownership,
      agents: () => agents,
      secrets,
      threadHost,
      resumeHost,
    });
    this.#p = {
      settings,
      ids,
      store,
      bus,
      broker,
      ownership,
      responders,
      agents,
      approvals,
      secrets,
      registry,
      workspaces,
    };
    registerParts(this, this.#p);
    userHooks = new RuntimeHooks(
      {
        settings,
        provider: opts.provider,
        thread: (id) => registry.get(id),
        responders,
        ask: (request, signal) => broker.ask(request, signal),
        subscribe: (listener) => void bus.subscribe(listener),
        publish: (event) => ownership.publish(event),
        addToolHooks: (hooks) => void registry.addToolHooks(hooks),
        replyLink: (request) => replyLinks.mint(request),
      },
      home,
    );
    this.hooks = userHooks;
    this.threads = new ThreadsApi(this.#p);
    this.turns = new TurnsApi(this.#p);
    this.questions = new QuestionsApi(this.#p);
    this.approvals = new ApprovalsApi(this.#p);
    this.agents = new AgentsApi(this.#p);
    this.skills = skills;
    this.checkpoints = new CheckpointsApi(this.#p);
    this.branches = new BranchesApi(this.#p, this.checkpoints);
    this.commands = new CommandsApi({
      settings,
      protectedPaths,
      hiddenPaths,
      credentialVar: opts.provider.envKey,
    });
  }

  /**
   * Listens to the event bus: every event, or one thread's (and its sub-agents' question events,
   * Q14). `since` replays buffered events after that seq first (`gap`: some are no longer held).
   * A listener that throws never breaks the publisher (util/bus.ts).
   */
  subscribe(
    listener: (e: Stamped) => void,
    opts?: { threadId?: string; since?: number },
  ): { unsubscribe(): void; gap: boolean } {
    return this.#p.bus.subscribe(listener, opts);
  }

  /** The seq of the last event published in this process (0 before any). */
  get lastSeq(): number {
    return this.#p.bus.lastSeq;
  }

  /**
   * Adds pre/post tool hooks to every thread, loaded now or later (requirements T4, Q15). A pre hook
   * on `request_user_input` may block the call or rewrite its questions before anything is
   * shown; a post hook may replace what the model sees (e.g. `withheldModelResult`) without
   * undoing the interaction. Returns a function that removes the hooks.
   */
  addToolHooks(hooks: ToolHooks): () => void {
    return this.#p.registry.addToolHooks(hooks);
  }

  /**
   * Process shutdown (Q8 + Q11). Every in-memory waiter settles as cancelled ("shutdown") so
   * handlers return promptly, but nothing more is written: questions stay pending in the
   * store with their calls unanswered, exactly as after a crash, so the next process that
   * opens the thread re-asks them. Running turns are aborted, exec process trees killed.
   */
  async shutdown(): Promise<void> {
    const { registry, broker, workspaces, store } = this.#p;
    const threads = registry.all();
    for (const t of threads) t.suspended = true;
    broker.cancelAll("all", "shutdown", { persist: false });
    for (const t of threads) t.interrupt("shutdown");
    await Promise.all(threads.map((t) => t.active?.done.catch(() => {})));
    await (this.hooks as RuntimeHooks).settled(); // notifications of the turns just ended
    await Promise.all(threads.map((t) => t.disposeTools().catch(() => {})));
    // Closing first stops a scan still running (a large workspace's first one), so shutdown
    // never waits on it; what was queued after it then finds the workspace closed.
    workspaces.closeAll();
    this.files.close();
    await Promise.all(threads.map((t) => t.workspace.settled()));
    registry.clear();
    registry.releaseAll();
    store.close();
  }
}

/** The store as the broker sees it: questions of ephemeral threads (and undo's) stay in memory. */
function questionStore(store: Store, ephemeral: (threadId: string) => boolean): Store {
  return new Proxy(store, {
    get: (target, key) => {
      // Undo/redo questions live in this process only (./restore-flow.ts): a restart drops them.
      if (key === "saveQuestion")
        return (request: QuestionRequest) =>
          ephemeral(request.thread_id) || request.call_id.startsWith(RESTORE_CALL_PREFIX)
            ? undefined
            : target.saveQuestion(request);
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** This installation's id (client_metadata), made and stored on first use. */
function installationIdOf(store: Store): string {
  let id = store.getMeta("installation_id");
  if (!id) {
    id = shortId("install", 8);
    store.setMeta("installation_id", id);
  }
  return id;
}
