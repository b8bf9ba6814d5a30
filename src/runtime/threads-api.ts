/**
 * `runtime.threads` and `runtime.agents`: the one door through which surfaces start, open, read and
 * change threads (STYLE "One door per concern"). Reads never change state; writes go through the
 * loaded thread when there is one, so a thread started here and not stored yet keeps them for
 * its first turn (Thread.persist).
 */
import type { WireTool } from "../model/types.js";
import type { AgentInfo } from "../protocol/questions.js";
import {
  type StoredItem,
  type ThreadRecord,
  type ThreadSearchHit,
  type ThreadSettings,
  ThreadSettingsPatch,
  type TurnRecord,
} from "../protocol/threads.js";
import type { AgentStatus } from "./agents/index.js";
import type { RuntimeParts } from "./internals.js";
import { resolveThreadRef, type ThreadRef } from "./thread-ref.js";
import type { OpenThreadOptions, StartThreadOptions, ThreadHandle } from "./types.js";

export type { ThreadRef } from "./thread-ref.js";

const noThread = (id: string) => `no thread with id ${id}; run \`tandem threads\` to list threads`;

export class ThreadsApi {
  readonly #p: RuntimeParts;

  constructor(parts: RuntimeParts) {
    this.#p = parts;
  }

  /**
   * Starts a thread in `opts.cwd` and loads it here. Stores nothing: its first turn does, so a
   * thread that never gets input leaves nothing behind. Publishes `thread.started`.
   */
  start(opts: StartThreadOptions): ThreadHandle {
    return this.#p.registry.start(opts);
  }

  /**
   * Opens a stored thread here (resume) and returns it; the loaded one when it is loaded already.
   * Repairs calls a crash left without output, and asks its pending questions again (Q11): the
   * returned thread then has a running turn that ends when they are answered. Throws an Error
   * naming `tandem threads` for an unknown id, and ThreadInUseError when another process drives it.
   */
  open(id: string, opts: OpenThreadOptions = {}): ThreadHandle {
    return this.#p.registry.open(id, opts);
  }

  /** The thread loaded in this process, if any (never opens one). */
  get(id: string): ThreadHandle | undefined {
    return this.#p.registry.get(id);
  }

  /** Every thread loaded in this process. */
  loaded(): ThreadHandle[] {
    return this.#p.registry.all();
  }

  /** The thread's record: the live one when loaded here, else the stored one; undefined if unknown. */
  record(id: string): Readonly<ThreadRecord> | undefined {
    return this.#p.registry.get(id)?.record ?? this.#p.store.getThread(id);
  }

  /** The stored record only (a thread started here has none before its first turn). */
  stored(id: string): ThreadRecord | undefined {
    return this.#p.store.getThread(id);
  }

  /** Stored threads, most recently updated first. */
  list(opts: { limit?: number } = {}): ThreadRecord[] {
    return this.#p.store.listThreads(opts);
  }

  /**
   * Stored threads whose title or user/assistant messages hold every word of `query` (as word
   * prefixes), most recently updated first, each with a snippet (protocol/threads.ts
   * SEARCH_LIMITS bounds it).
   */
  search(query: string, opts: { limit?: number } = {}): ThreadSearchHit[] {
    return this.#p.store.searchThreads(query, opts);
  }

  /**
   * Threads started here that no turn has stored yet (newest first; not ephemeral, not closed):
   * surfaces of this process list them with the stored ones.
   */
  unstored(): ThreadRecord[] {
    return this.#p.registry
      .all()
      .filter((t) => !t.stored && !t.ephemeral && t.status !== "closed")
      .map((t) => t.record)
      .sort((a, b) => b.updated_at - a.updated_at);
  }

  /** The thread's stored items, oldest first, each with its turn (empty before it is stored). */
  history(id: string): StoredItem[] {
    return this.#p.store.loadItems(id);
  }

  /** The thread's stored turns, oldest first. */
  turns(id: string): TurnRecord[] {
    return this.#p.store.listTurns(id);
  }

  /** The thread's latest stored turn (a listing's status: thread-status.ts). */
  lastTurn(id: string): TurnRecord | undefined {
    return this.#p.store.lastTurn(id);
  }

  /** The one thread `ref` names: the id, a unique prefix, or a unique suffix (thread-ref.ts). */
  resolve(ref: string): ThreadRef {
    return resolveThreadRef(this.#p.store, ref, this.#p.registry.ids());
  }

  /**
   * Changes what the thread's later turns use (protocol/threads.ts `ThreadSettingsPatch`: absent
   * keeps, null removes the thread's own value). A loaded thread changes live and in the store
   * once stored; a thread not loaded here changes in the store. Emits no event: a surface tells
   * its own clients (e.g. app-server `thread/settings/updated`). Returns the record now in force.
   * Throws for an unknown thread or a patch that does not fit the schema (the message says which key).
   */
  updateSettings(id: string, patch: ThreadSettingsPatch): Readonly<ThreadRecord> {
    const parsed = ThreadSettingsPatch.safeParse(patch);
    if (!parsed.success)
      throw new Error(
        `invalid settings for thread ${id}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(patch)"}: ${i.message}`).join("; ")}`,
      );
    const { model, mode, cwd, ...keys } = parsed.data;
    const current = this.record(id);
    if (!current) throw new Error(noThread(id));
    const settings: ThreadSettings = { ...current.settings };
    for (const [key, value] of Object.entries(keys)) {
      if (value === null) delete settings[key];
      else if (value !== undefined) settings[key] = value;
    }
    return this.#change(id, {
      ...(model ? { model } : {}),
      ...(mode ? { mode } : {}),
      ...(cwd ? { cwd } : {}),
      settings,
    });
  }

  /** Sets the thread's title (trimmed by the caller). Throws for an unknown thread. */
  rename(id: string, title: string): void {
    this.#change(id, { title });
  }

  /**
   * Archives (or unarchives) the thread: its `archived` setting, without touching `updated_at`.
   * Returns false when it already was. Throws for an unknown thread.
   */
  archive(id: string, archived: boolean): boolean {
    const current = this.record(id);
    if (!current) throw new Error(noThread(id));
    if ((current.settings.archived === true) === archived) return false;
    const { archived: _, ...rest } = current.settings;
    this.#change(id, {
      settings: archived ? { ...rest, archived: true } : rest,
      updated_at: current.updated_at,
    });
    return true;
  }

  /**
   * In a cluster, before opening `id` here: resolves once the node that runs it handed it over
   * (ownership.ts `claim`); undefined when nothing has to move (or no cluster).
   */
  claim(id: string): Promise<void> | undefined {
    return this.#p.ownership.claim(id);
  }

  /** Every tool a loaded thread's registry holds (what its turns offer is filtered per turn). */
  tools(id: string): WireTool[] {
    return this.#p.registry.get(id)?.registry.wire() ?? [];
  }

  #change(id: string, patch: Partial<Omit<ThreadRecord, "id">>): Readonly<ThreadRecord> {
    const live = this.#p.registry.get(id);
    if (live) {
      live.update(patch);
      return live.record;
    }
    const current = this.#p.store.getThread(id);
    if (!current) throw new Error(noThread(id));
    this.#p.store.updateThread(id, patch);
    return { ...current, ...patch };
  }
}

/** `runtime.agents`: who a sub-agent thread is and how it is doing (runtime/agents). */
export class AgentsApi {
  readonly #p: RuntimeParts;

  constructor(parts: RuntimeParts) {
    this.#p = parts;
  }

  /** The thread and its ancestors, itself first. */
  lineage(threadId: string): string[] {
    return this.#p.agents.lineage(threadId);
  }

  /** Who a sub-agent thread is; undefined for a root thread or an unknown one. */
  info(threadId: string): AgentInfo | undefined {
    return this.#p.agents.info(threadId);
  }

  /** How a loaded thread is doing as a sub-agent (running, waiting_on_user, completed…). */
  status(threadId: string): AgentStatus | undefined {
    const t = this.#p.registry.get(threadId);
    return t && this.#p.agents.status(t);
  }
}
