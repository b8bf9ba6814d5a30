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
 * - Calls are answered in order; the worker runs one op at a time.
 * - `close()` ends the pg clients and the worker; later calls throw.
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
  }

  call<T>(op: string, ...args: unknown[]): T {
    if (this.#closed) throw new StoreError("unavailable", `store op ${op}: the store is closed`);
    const id = this.#next++;
    Atomics.store(this.#flag, 0, 0);
    this.#port.postMessage({ id, op, args });
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      const got = receiveMessageOnPort(this.#port);
      if (got) {
        const reply = got.message as Reply;
        if (reply.id !== id) continue; // the late answer of a call that timed out
        if (reply.ok) return reply.value as T;
        throw new StoreError(reply.code ?? "unavailable", reply.message ?? `store op ${op} failed`);
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new StoreError(
          "unavailable",
          `store op ${op}: PostgreSQL did not answer within ${this.#timeoutMs} ms; check the database`,
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
    void this.#worker.terminate();
  }
}
