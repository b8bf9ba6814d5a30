/**
 * `runtime.turns`: starting, steering, interrupting and compacting a thread's turns by thread id
 * (a surface that holds a ThreadHandle may call the same methods on it).
 *
 * Contract:
 * - `start`, `steer` and `compact` open a stored thread that is not loaded here first (which
 *   repairs it and asks its pending questions again, Q11), so they may throw what
 *   `runtime.threads.open` throws. `start` throws TurnBusyError while a turn runs, `steer` when
 *   none does.
 * - `interrupt` never opens a thread: interrupting one not loaded here is "nothing running" (false).
 *   The interrupted turn ends `interrupted`; its pending questions are cancelled (Q8).
 * - `remote`: in a cluster, runs `steer`/`interrupt` on the node that runs the thread and resolves
 *   with that node's HTTP answer; undefined when the thread is not another node's to act on.
 */
import type { TurnOptions } from "../protocol/ops.js";
import type { RuntimeParts } from "./internals.js";
import type { Thread } from "./thread.js";
import type { TurnHandle } from "./types.js";

export class TurnsApi {
  readonly #p: RuntimeParts;

  constructor(parts: RuntimeParts) {
    this.#p = parts;
  }

  #thread(threadId: string): Thread {
    return this.#p.registry.get(threadId) ?? this.#p.registry.open(threadId);
  }

  /** Starts a turn with user input (text, image URLs, per-turn options); see the contract. */
  start(threadId: string, text: string, opts: { images?: string[]; options?: TurnOptions } = {}): TurnHandle {
    return this.#thread(threadId).startTurn(text, opts);
  }

  /**
   * Runs the user's own shell command in the thread as a turn of its own (README "Your own
   * commands: `!`"): full access, streamed as a `command_execution` item, recorded in history for
   * the model's next turn. Throws TurnBusyError while a turn runs; may throw what `open` throws.
   */
  shell(threadId: string, command: string, opts: { timeoutMs?: number | null } = {}): TurnHandle {
    return this.#thread(threadId).shell(command, opts);
  }

  /** Queues input for the running turn, recorded before its next request (L7). */
  steer(threadId: string, text: string): { inputId: string; turnId: string } {
    return this.#thread(threadId).steer(text);
  }

  /** Aborts the thread's running turn; false when nothing runs here. */
  interrupt(threadId: string, reason = "interrupted"): boolean {
    return this.#p.registry.get(threadId)?.interrupt(reason) ?? false;
  }

  /**
   * On-demand compaction (L14): an idle thread compacts as its own turn (returned); a running
   * turn compacts before its next request, or at once when it waits on a question (returned).
   */
  compact(threadId: string): TurnHandle {
    return this.#thread(threadId).compact();
  }

  /** The running turn of a thread loaded here, if any. */
  active(threadId: string): TurnHandle | undefined {
    return this.#p.registry.get(threadId)?.active;
  }

  /** See the contract (cluster only). */
  remote(
    threadId: string,
    op: "steer" | "interrupt",
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: any }> | undefined {
    return this.#p.ownership.remoteOp?.(threadId, op, body);
  }
}
