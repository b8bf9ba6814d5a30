/**
 * Where a thread runs, when more than one process shares a store (a cluster, docs/scale-out.md): the
 * Runtime's part of moving threads between processes. ClusterNode (../cluster/node.ts) sets
 * the hooks; without a cluster nothing here does anything.
 *
 * Contract:
 * - `relinquish(id)` gives up a thread another process now owns (this node lost its lease):
 *   nothing more is written or published for it, its turn stops (no more model requests or
 *   commands here), its in-memory questions settle without touching the store (they stay pending
 *   for the new owner) and it leaves memory; the lease is not released (not ours). `handOver(id)`
 *   is the same for a thread another node asked for, and releases the lease so it takes it now.
 * - `fenced(id)`: a write was refused by fencing; the thread is relinquished at once, quietly
 *   (its failing turn's own events would tell clients it failed while it goes on elsewhere).
 * - `claim(id)`: before opening `id` here, a promise that resolves once the node that runs it
 *   has handed it over (`claimHook`); opening a claimed thread then goes on with its turn
 *   (`takeClaimed`). Undefined when nothing has to move.
 * - `publish` and `bus` drop the events of a thread given up here, until it is opened here again
 *   (`unmute`).
 */
import type { Event } from "../protocol/events.js";
import type { Broker } from "../questions/broker.js";
import { AbortNow } from "../util/abort.js";
import type { Bus } from "../util/bus.js";
import type { Thread } from "./thread.js";

/** What ownership needs of the Runtime. */
export interface OwnershipHost {
  readonly bus: Bus;
  /** The Runtime's broker (made after this, with `bus` below). */
  broker(): Broker;
  thread(id: string): Thread | undefined;
  /**
   * Removes a loaded thread; `release` gives its lease back (to node `to` when given: a
   * hand-over), else it only forgets holding it.
   */
  unload(id: string, release: boolean, to?: string): void;
}

export type RemoteOp = (
  id: string,
  op: "steer" | "interrupt",
  body: Record<string, unknown>,
) => Promise<{ status: number; body: any }> | undefined;

export class Ownership {
  /** Threads given up to another process: their last events are not published. */
  private readonly muted = new Set<string>();
  /** Threads just handed over to this process: opening them goes on with their turn. */
  private readonly claimed = new Set<string>();
  /** Asks the live node that runs `id` to hand it over; undefined when nobody runs it. */
  claimHook?: (id: string) => Promise<void> | undefined;
  /** Runs `POST /thread/:id/<op>` on the live node that runs `id`; undefined: act here. */
  remoteOp?: RemoteOp;
  /** Told when a thread is fenced here (ClusterNode counts and reports the lost lease). */
  onFenced?: (id: string) => void;
  /** The bus as the broker sees it: a given-up thread's question events go nowhere. */
  readonly bus: Bus;

  constructor(private readonly host: OwnershipHost) {
    const bus = host.bus;
    const muted = this.muted;
    this.bus = {
      publish: (event) => {
        if (mutedEvent(muted, event)) return { seq: bus.lastSeq, time: Date.now(), event };
        return bus.publish(event);
      },
      subscribe: (listener, opts) => bus.subscribe(listener, opts),
      get lastSeq() {
        return bus.lastSeq;
      },
      get listenerCount() {
        return bus.listenerCount;
      },
    };
  }

  publish(event: Event): void {
    if (!mutedEvent(this.muted, event)) this.host.bus.publish(event);
  }

  /** The thread opens here again: its events are published again. */
  unmute(id: string): void {
    this.muted.delete(id);
  }

  claim(id: string): Promise<void> | undefined {
    if (this.host.thread(id)) return undefined;
    return this.claimHook?.(id)?.then(() => {
      this.claimed.add(id);
    });
  }

  /** True (once) when `id` was just claimed: its turn goes on here. */
  takeClaimed(id: string): boolean {
    return this.claimed.delete(id);
  }

  /** Gives `id` up to node `to` (the lease passes to it; without `to`, it is released). */
  async handOver(id: string, to?: string): Promise<boolean> {
    if (!this.host.thread(id)) return false;
    await this.relinquish(id, { release: true, to });
    return true;
  }

  fenced(id: string): void {
    this.onFenced?.(id);
    void this.relinquish(id, { now: true }).catch(() => {});
  }

  /**
   * `now`: another process may already be starting the thread's work again, so its commands and
   * sessions are SIGKILLed at once (no grace), the kill signals sent before this first awaits.
   */
  async relinquish(id: string, opts: { release?: boolean; now?: boolean; to?: string } = {}): Promise<void> {
    const thread = this.host.thread(id);
    if (!thread) return;
    const why = "the thread moved to another node";
    this.muted.add(id);
    thread.suspended = true;
    this.host.broker().cancelAll({ threadId: id }, why, { persist: false });
    thread.interrupt(opts.now ? new AbortNow(why) : why);
    const disposed = opts.now ? thread.disposeTools({ now: true }).catch(() => {}) : undefined;
    await thread.active?.done.catch(() => {});
    await (disposed ?? thread.disposeTools().catch(() => {}));
    this.host.unload(id, opts.release === true, opts.to);
  }
}

function mutedEvent(muted: Set<string>, event: Event): boolean {
  return "thread_id" in event && typeof event.thread_id === "string" && muted.has(event.thread_id);
}
