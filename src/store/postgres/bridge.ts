/**
 * A synchronous call into an asynchronous worker: the `Store` contract is synchronous (callers
 * in the runtime, broker and threads never await it), and `pg` is asynchronous, so the pg
 * client lives in a worker thread (./worker.ts) and `call` blocks the calling thread on
 * `Atomics.wait` until the worker has answered (measured in bench/ and docs/scale-out.md:
 * a few tenths of a millisecond per call on a local database).
 *
 * Contract:
 * - `call(op, ...args)` returns the op's value or throws `StoreError` with the worker's code
 *   (`not_found`, `conflict`, `fenced`, `schema`, `open`), or `unavailable` when no answer
 *   comes within `timeoutMs` (a late answer to a timed-out call is discarded by its id).
 * - `later(op, item)` queues one item of a batched op (the op takes the items as one array and
 *   answers an array of values, one per item) without blocking: the queue goes to the worker
 *   as one call once the current turn of the event loop has run its I/O callbacks (so a busy
 *   node writes the events of many replies in one statement, not one per reply step), or before
 *   the next blocking call of any op outside OVERTAKING, whichever comes first. So an item
 *   queued before such an op is always written before it (a lease handed over or released
 *   after events were recorded: those events go first). The promise resolves with the item's
 *   value or rejects with the same `StoreError`s (`unavailable` after `timeoutMs`). For writes
 *   whose caller need not wait (the cluster's event log, ../../cluster/events.ts).
 * - `soon(op, ...args)` queues one whole op without blocking (a write whose caller does not wait
 *   for it: ./store.ts `queued`). Queued ops are sent, in order, before any later blocking call
 *   (none overtakes them) and at the latest with `later`'s items, ahead of those; each runs as
 *   if sent alone and its promise settles with its own answer.
 * - Calls are answered in the order they are sent, queued and blocking ones alike; the worker
 *   runs one op at a time, so a blocking call returns only after every op sent before it ran.
 * - `close()` ends the pg clients and the worker; later calls throw, and queued items not yet
 *   answered are answered first (close is queued behind them).
 */
import { createRequire } from "node:module";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { StoreError, type StoreErrorCode } from "../errors.js";
import { pgOps } from "./ops.js";
import { type PgWorkerData, pgWorkerMain } from "./worker.js";

export interface BridgeOptions {
  url: string;
  migrations: readonly string[];
  ttlMs: number;
  /** Self-fencing: the share of the TTL a lease may go unconfirmed (./worker.ts). */
  fenceAfter: number;
  node: string | null;
  timeoutMs: number;
}

/**
 * The ops of a reply's hot path that may reach the database before items queued by `later`:
 * they neither read the event log nor move a lease, so writing queued events after them changes
 * nothing anyone can observe except a log entry landing a few hundred microseconds later. Every
 * other op (leases, the event log's reads, `close`, anything new) sends the queue first.
 */
const OVERTAKING: ReadonlySet<string> = new Set([
  "getThread",
  "getLease",
  "getMeta",
  "getQuestion",
  "questionRoute",
  "lostLeases",
  "appendItem",
  "updateThread",
  "updateTurn",
  "putTurn",
  "addUsage",
  "saveQuestion",
  "settleQuestion",
]);

/** Settles a queued op with its answer from the worker's `each`. */
function settleWith(w: { op: string; resolve(v: unknown): void; reject(e: unknown): void }, a: Reply): void {
  if (a.ok) w.resolve(a.value);
  else w.reject(new StoreError(a.code ?? "unavailable", a.message ?? `store op ${w.op} failed`));
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  code?: StoreErrorCode;
  pgCode?: string;
  message?: string;
}

export class SyncBridge {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #flag: Int32Array;
  readonly #timeoutMs: number;
  #next = 1;
  #closed = false;
  /** Items queued by `later`, by op, not sent yet. */
  readonly #batches = new Map<
    string,
    Array<{ item: unknown; resolve(v: unknown): void; reject(e: unknown): void }>
  >();
  /** Ops queued by `soon`, in order, not sent yet. */
  #writes: Array<{ op: string; args: unknown[]; resolve(v: unknown): void; reject(e: unknown): void }> = [];
  #flushing = false;
  /** Calls sent without blocking (`#send`), not answered yet, by id. */
  readonly #sent = new Map<
    number,
    { resolve(v: unknown): void; reject(e: unknown): void; timer: NodeJS.Timeout }
  >();

  constructor(opts: BridgeOptions) {
    const sab = new SharedArrayBuffer(4);
    this.#flag = new Int32Array(sab);
    this.#timeoutMs = opts.timeoutMs;
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    const pgPath = createRequire(import.meta.url).resolve("pg");
    // `__name` covers a bundler's keepNames helper inside the shipped function text.
    const source =
      "const __name = (f) => f;\n" +
      `const { workerData } = require("node:worker_threads");\n` +
      `(${pgWorkerMain.toString()})(require, workerData, ${pgOps.toString()});`;
    const data: Omit<PgWorkerData, "port"> & { port: MessagePort } = {
      url: opts.url,
      pgPath,
      migrations: opts.migrations,
      ttlMs: opts.ttlMs,
      fenceAfter: opts.fenceAfter,
      node: opts.node,
      flag: sab,
      port: port2,
    };
    this.#worker = new Worker(source, { eval: true, workerData: data, transferList: [port2] });
    this.#worker.unref(); // a process may exit without closing its store (the lease then expires)
    this.#worker.on("error", (e) => process.emitWarning(`tandem store worker failed: ${e.message}`));
    // Answers to sent calls that no blocking call took off the port first.
    this.#port.on("message", (reply: Reply) => this.#answer(reply));
    this.#port.unref();
  }

  later<T>(op: string, item: unknown): Promise<T> {
    if (this.#closed)
      return Promise.reject(new StoreError("unavailable", `store op ${op}: the store is closed`));
    return new Promise<T>((resolve, reject) => {
      let items = this.#batches.get(op);
      if (!items) {
        items = [];
        this.#batches.set(op, items);
      }
      items.push({ item, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  soon<T>(op: string, ...args: unknown[]): Promise<T> {
    if (this.#closed)
      return Promise.reject(new StoreError("unavailable", `store op ${op}: the store is closed`));
    return new Promise<T>((resolve, reject) => {
      this.#writes.push({ op, args, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      if (this.#flushing) this.#flush();
    });
  }

  /** Sends the ops queued by `soon`, then every batch queued by `later`. */
  #flush(): void {
    const writes = this.#writes;
    if (writes.length) {
      this.#writes = [];
      this.#send<Reply[]>(
        "each",
        writes.map((w) => [w.op, w.args]),
      ).then(
        (answers) => {
          for (const [i, w] of writes.entries()) settleWith(w, answers[i]);
        },
        (e) => {
          for (const w of writes) w.reject(e);
        },
      );
    }
    this.#flushing = false;
    const all = [...this.#batches];
    this.#batches.clear();
    for (const [op, items] of all)
      this.#send<unknown[]>(
        op,
        items.map((x) => x.item),
      ).then(
        (values) => {
          for (const [i, x] of items.entries()) x.resolve(values[i]);
        },
        (e) => {
          for (const x of items) x.reject(e);
        },
      );
  }

  /** One call without blocking (see `later`); answered by `#answer`. */
  #send<T>(op: string, ...args: unknown[]): Promise<T> {
    if (this.#closed)
      return Promise.reject(new StoreError("unavailable", `store op ${op}: the store is closed`));
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#sent.delete(id);
        reject(
          new StoreError(
            "unavailable",
            `store op ${op}: PostgreSQL did not answer within ${this.#timeoutMs} ms; check the database`,
          ),
        );
      }, this.#timeoutMs);
      timer.unref();
      this.#sent.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.#port.postMessage({ id, op, args });
    });
  }

  /** Settles the sent call `reply` answers; false when it answers none (a timed-out blocking call's). */
  #answer(reply: Reply): boolean {
    const waiting = this.#sent.get(reply.id);
    if (!waiting) return false;
    this.#sent.delete(reply.id);
    clearTimeout(waiting.timer);
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(new StoreError(reply.code ?? "unavailable", reply.message ?? "store op failed"));
    return true;
  }

  call<T>(op: string, ...args: unknown[]): T {
    // Queued ops go first; queued items too, unless this op may overtake them.
    if (this.#batches.size && !OVERTAKING.has(op)) this.#flush();
    if (this.#closed) throw new StoreError("unavailable", `store op ${op}: the store is closed`);
    // Ops queued by `soon` ride in the same message, ahead of this one (one wake-up of the
    // worker instead of two); their answers come back with its own.
    // (Not `lostLeases`: the worker answers it out of turn, even while an op hangs.)
    const writes = this.#writes;
    if (writes.length && op !== "lostLeases") {
      this.#writes = [];
      if (!this.#batches.size) this.#flushing = false;
      let answers: Reply[];
      try {
        answers = this.#wait("each", [[...writes.map((w) => [w.op, w.args]), [op, args]]], op);
      } catch (e) {
        for (const w of writes) w.reject(e);
        throw e;
      }
      for (const [i, w] of writes.entries()) settleWith(w, answers[i]);
      const own = answers[writes.length];
      if (own.ok) return own.value as T;
      throw new StoreError(own.code ?? "unavailable", own.message ?? `store op ${op} failed`);
    }
    return this.#wait<T>(op, args);
  }

  /** Sends one call and blocks until its answer (see `call`); errors name the op `name`. */
  #wait<T>(op: string, args: unknown[], name = op): T {
    const id = this.#next++;
    Atomics.store(this.#flag, 0, 0);
    this.#port.postMessage({ id, op, args });
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      const got = receiveMessageOnPort(this.#port);
      if (got) {
        const reply = got.message as Reply;
        // A sent call's answer (settled now, its callbacks run later), or the late answer of a
        // blocking call that timed out.
        if (reply.id !== id) {
          this.#answer(reply);
          continue;
        }
        if (reply.ok) return reply.value as T;
        throw new StoreError(reply.code ?? "unavailable", reply.message ?? `store op ${name} failed`);
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new StoreError(
          "unavailable",
          `store op ${name}: PostgreSQL did not answer within ${this.#timeoutMs} ms; check the database`,
        );
      Atomics.wait(this.#flag, 0, 0, left);
      Atomics.store(this.#flag, 0, 0);
    }
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.call("close");
    } catch {
      /* the worker is ending anyway */
    }
    this.#closed = true;
    for (const [id, waiting] of this.#sent) {
      this.#sent.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(new StoreError("unavailable", "the store was closed before it answered"));
    }
    void this.#worker.terminate();
  }
}
