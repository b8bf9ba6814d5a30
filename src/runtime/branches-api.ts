/**
 * `runtime.branches`: fork and rewind a thread's conversation (README "Undo, redo, fork and
 * rewind").
 *
 * - `fork` makes a new thread holding the first items of another (all, or up to an item, or
 *   before a turn): same cwd, model, mode and settings, its own id and turn ids, title
 *   "<title> (fork)", `settings.forked_from` naming the source. Nothing of the source changes;
 *   the fork has no checkpoints (undo acts on turns of its own).
 * - `rewind` cuts a thread's history back to just before one of its turns (the user message
 *   that started it): the part cut away stays reachable as an archived fork,
 *   "<title> (rewound)", which also takes over the later turns' checkpoints (so its changes can
 *   still be redone from there). With `restoreCode`, the later turns' file changes are undone
 *   first, newest first, each asked through the question protocol (./restore-flow.ts); a
 *   cancel stops there and leaves the history as it was.
 *
 * Contract: throws for an unknown thread or turn, and (rewind) while a turn runs or when the
 * thread is driven by another process (the lease). A rewind never writes files unless
 * `restoreCode` is set.
 */
import { type MessageItem, messageText } from "../protocol/items.js";
import type { StoredItem, ThreadRecord } from "../protocol/threads.js";
import { type CheckpointsApi, withWorkspace } from "./checkpoints-api.js";
import type { RuntimeParts } from "./internals.js";
import type { RestoreOutcome } from "./restore-flow.js";

export interface ForkOptions {
  /** Keep items up to and including this index (0-based, as `GET /thread/:id` lists them). */
  throughItem?: number;
  /** Keep the items before this turn (its user message and everything after are left out). */
  beforeTurnId?: string;
  /** Keep the items through this turn. */
  throughTurnId?: string;
  /** Title of the new thread (default "<title> (fork)"). */
  title?: string;
  /** Extra settings of the new thread (e.g. `archived`). */
  settings?: Record<string, unknown>;
}

export interface UserMessage {
  /** The turn it started: what `rewind` takes. */
  turnId: string;
  /** Its index among the thread's items. */
  index: number;
  text: string;
}

export interface RewindOptions {
  /** Undo the file changes of the turns cut away (asks; see the module contract). */
  restoreCode?: boolean;
  signal?: AbortSignal;
}

export interface RewindOutcome {
  status: "rewound" | "cancelled";
  /** The archived fork holding the part cut away (rewound only). */
  archivedId?: string;
  /** The undo of each later turn that ran, newest first. */
  restores: RestoreOutcome[];
}

export class BranchesApi {
  readonly #p: RuntimeParts;
  readonly #checkpoints: CheckpointsApi;

  /** `checkpoints` undoes the later turns of a rewind with `restoreCode`. */
  constructor(parts: RuntimeParts, checkpoints: CheckpointsApi) {
    this.#p = parts;
    this.#checkpoints = checkpoints;
  }

  /** The user messages that started the thread's turns, oldest first (the rewind picker). */
  userMessages(threadId: string): UserMessage[] {
    this.#record(threadId);
    const out: UserMessage[] = [];
    const seen = new Set<string>();
    this.#p.store.loadItems(threadId).forEach((s, index) => {
      if (!s.turn_id || seen.has(s.turn_id)) return;
      if (s.item.type !== "message" || s.item.role !== "user") return;
      seen.add(s.turn_id);
      out.push({ turnId: s.turn_id, index, text: messageText(s.item as MessageItem) });
    });
    return out;
  }

  /** A new thread with the first items of `threadId` (see the module contract). */
  fork(threadId: string, opts: ForkOptions = {}): ThreadRecord {
    const source = this.#record(threadId);
    const items = this.#p.store.loadItems(threadId);
    return this.#copy(source, items.slice(0, this.#cut(threadId, items, opts)), opts).record;
  }

  /** Cuts `threadId` back to before turn `turnId` (see the module contract). */
  async rewind(threadId: string, turnId: string, opts: RewindOptions = {}): Promise<RewindOutcome> {
    const { later } = this.#plan(threadId, turnId);
    const restores: RestoreOutcome[] = [];
    if (opts.restoreCode) {
      const live = this.#checkpoints
        .list(threadId)
        .filter((c) => c.state === "live" && later.includes(c.turnId))
        .reverse();
      for (const c of live) {
        const r = await this.#checkpoints.undo(threadId, { turnId: c.turnId, signal: opts.signal });
        restores.push(r);
        if (r.status === "cancelled") return { status: "cancelled", restores };
      }
    }
    return { status: "rewound", archivedId: this.rewindHistory(threadId, turnId), restores };
  }

  /**
   * The history part of `rewind` alone (files untouched): cuts before `turnId` and archives the
   * part cut away; returns the archived fork's id.
   */
  rewindHistory(threadId: string, turnId: string): string {
    const { thread, items, keep, later } = this.#plan(threadId, turnId);
    const record = thread.record;
    const archived = this.#copy(record, items, {
      title: `${record.title} (rewound)`,
      settings: { archived: true, rewound_from: { thread_id: threadId, before_turn_id: turnId } },
    });
    // The later turns' checkpoints go with the archived branch that still holds those turns.
    withWorkspace(this.#p, record.cwd, (ws) => {
      for (const cp of ws.store.checkpoints(threadId)) {
        const to = archived.turns.get(cp.turn_id);
        if (to && later.includes(cp.turn_id)) ws.store.moveCheckpoint(cp.id, archived.record.id, to);
      }
    });
    this.#p.store.truncateHistory(threadId, keep, later);
    thread.reloadHistory(this.#p.store.loadItems(threadId).map((s) => s.item));
    thread.update({ updated_at: Date.now() });
    return archived.record.id;
  }

  /** The thread (opened here, idle), its items, how many a cut before `turnId` keeps, the turns after. */
  #plan(threadId: string, turnId: string) {
    this.#record(threadId);
    const thread = this.#p.registry.get(threadId) ?? this.#p.registry.open(threadId);
    if (thread.active)
      throw new Error(
        `thread ${threadId} has a running turn (${thread.active.id}); interrupt it before rewinding`,
      );
    const items = this.#p.store.loadItems(threadId);
    const keep = this.#cut(threadId, items, { beforeTurnId: turnId });
    const kept = new Set(items.slice(0, keep).map((s) => s.turn_id));
    const later = this.#p.store
      .listTurns(threadId)
      .map((t) => t.id)
      .filter((id) => !kept.has(id));
    return { thread, items, keep, later };
  }

  #record(threadId: string): ThreadRecord {
    const record = this.#p.registry.get(threadId)?.record ?? this.#p.store.getThread(threadId);
    if (!record) throw new Error(`no thread with id ${threadId}; run \`tandem threads\` to list threads`);
    return record;
  }

  /** How many of `items` a fork keeps for `opts`. */
  #cut(threadId: string, items: StoredItem[], opts: ForkOptions): number {
    if (opts.throughItem !== undefined) {
      if (!Number.isInteger(opts.throughItem) || opts.throughItem < 0 || opts.throughItem >= items.length)
        throw new Error(`thread ${threadId} has no item ${opts.throughItem} (it has ${items.length})`);
      return opts.throughItem + 1;
    }
    const turn = opts.beforeTurnId ?? opts.throughTurnId;
    if (turn === undefined) return items.length;
    const first = items.findIndex((s) => s.turn_id === turn);
    if (first < 0) throw new Error(`thread ${threadId} has no turn ${turn} with items`);
    if (opts.beforeTurnId !== undefined) return first;
    return items.findLastIndex((s) => s.turn_id === turn) + 1;
  }

  /** Stores a new thread holding `items` (turn ids mapped to new ones); returns it and the map. */
  #copy(source: ThreadRecord, items: StoredItem[], opts: ForkOptions) {
    const id = this.#p.ids.thread();
    const now = Date.now();
    const record: ThreadRecord = {
      ...source,
      id,
      session_id: id,
      parent_id: null,
      created_at: now,
      updated_at: now,
      title: opts.title ?? `${source.title} (fork)`,
      status: "idle",
      settings: {
        // A fork of an archived branch is a thread of its own: listed, not "rewound from" anything.
        ...withoutKeys(source.settings, ["archived", "rewound_from"]),
        base_id: this.#p.ids.item("msg_base"),
        forked_from: { thread_id: source.id, items: items.length },
        ...opts.settings,
      },
    };
    delete record.usage;
    this.#p.store.createThread(record);
    const turns = new Map<string, string>();
    const records = new Map(this.#p.store.listTurns(source.id).map((t) => [t.id, t]));
    for (const s of items) {
      let turnId: string | null = null;
      if (s.turn_id) {
        turnId = turns.get(s.turn_id) ?? null;
        if (!turnId) {
          turnId = this.#p.ids.turn();
          turns.set(s.turn_id, turnId);
          const t = records.get(s.turn_id);
          if (t) this.#p.store.putTurn({ ...t, id: turnId, thread_id: id, usage: null });
        }
      }
      this.#p.store.appendItem(id, turnId, s.item);
    }
    return { record: this.#p.store.getThread(id) ?? record, turns };
  }
}

function withoutKeys(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}
