/**
 * `GET /event`: the bus as a Server-Sent Events stream (requirements S4).
 *
 * Wire format:
 * - each bus event: `id: <seq>` + `data: {"seq","time","event"}` (no `event:` name, so
 *   `EventSource.onmessage` sees every one);
 * - control messages carry an `event:` name and no `id:` (so they never move Last-Event-ID):
 *   `ready` first (`{last_seq, server_time}`), and `gap` when the client asked to resume from a
 *   seq the server no longer holds (evicted from the replay buffer, or a restarted server) — the
 *   client must refetch state over the API;
 * - a `: ping` comment every `heartbeatMs`.
 *
 * Contract:
 * - Resume: `Last-Event-ID` (or `?since=`) replays every buffered event after that seq, in
 *   order, before live ones and with nothing missed in between (the bus replays and subscribes
 *   in one synchronous step).
 * - `?thread=ID` keeps only that thread's events.
 * - `?responder=KIND` (e.g. `web`) declares the connection a responder (Q3) for the thread, or
 *   for all threads without a filter, for exactly as long as it is connected. Disconnecting
 *   never settles a question.
 * - On disconnect (client gone, server closing, or the client falling more than `maxQueuedBytes`
 *   behind) the bus listener, heartbeat timer and responder registration are all removed.
 * - In a cluster (`eventLog`, ../../cluster/events.ts) ids are cluster-wide: `id:` and `seq` are
 *   the event's id in the store's log, the same on every node, and a resume replays from that
 *   log on whichever node the client reaches. Deltas carry no `id:` line (their `seq` repeats
 *   the last id sent), so a resume never starts in the middle of a streamed item. An event of
 *   this node is sent once its log entry is written, behind any that is not yet (in order).
 */
import type { Context } from "hono";
import { type EventLog, Outbox } from "../../cluster/events.js";
import type { Stamped } from "../../protocol/events.js";
import type { Runtime } from "../../runtime/core.js";
import { shortId } from "../../util/ids.js";
import { fail } from "./errors.js";

export interface EventStreamOptions {
  /** Interval of `: ping` comments (default 15 s). */
  heartbeatMs?: number;
  /** A client this far behind is dropped; it reconnects with Last-Event-ID (default 8 MiB). */
  maxQueuedBytes?: number;
  /** A cluster's event log: cluster-wide ids and resume from the store. */
  eventLog?: EventLog;
}

const RESPONDER_KIND = /^[a-z][a-z0-9-]{0,31}$/;
const encoder = new TextEncoder();

export function eventStream(c: Context, runtime: Runtime, opts: EventStreamOptions = {}): Response {
  const threadId = c.req.query("thread") || undefined;
  if (threadId !== undefined && !runtime.threads.record(threadId))
    return fail(c, 404, "not_found", `no thread with id ${threadId}; GET /thread lists threads`);
  const responderKind = c.req.query("responder");
  if (responderKind !== undefined && !RESPONDER_KIND.test(responderKind))
    return fail(c, 400, "invalid_query", "responder must be a short lowercase surface name such as web");
  const sinceText = c.req.header("last-event-id") ?? c.req.query("since");
  let since: number | undefined;
  if (sinceText !== undefined && sinceText !== "") {
    since = Number(sinceText);
    if (!Number.isSafeInteger(since) || since < 0)
      return fail(c, 400, "invalid_query", "Last-Event-ID / since must be a non-negative integer event seq");
  }
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxQueued = opts.maxQueuedBytes ?? 8 * 1024 * 1024;
  const connectionId = shortId("sse", 6);

  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        // Set as soon as the bus listener exists: a stream dropped at any point (even while it
        // replays) always removes it.
        let unsubscribe = () => {};
        cleanup = () => {
          closed = true;
          unsubscribe();
        };
        const write = (text: string) => {
          if (closed) return;
          controller.enqueue(encoder.encode(text));
          if ((controller.desiredSize ?? 0) < -maxQueued) {
            // Too far behind: drop it; the client resumes from its Last-Event-ID.
            cleanup();
            controller.close();
          }
        };
        const log = opts.eventLog;
        const control = (name: string, extra: Record<string, unknown> = {}) =>
          write(
            `event: ${name}\ndata: ${JSON.stringify({ last_seq: log ? log.lastId() : runtime.lastSeq, server_time: Date.now(), ...extra })}\n\n`,
          );
        const send = (s: Stamped) => write(`id: ${s.seq}\ndata: ${JSON.stringify(s)}\n\n`);

        /** Once subscribed and caught up: the responder registration, heartbeat and cleanup. */
        const finish = () => {
          if (closed) return;
          const detach = responderKind
            ? runtime.questions.attach(threadId ? { threadId } : "all", {
                kind: responderKind,
                id: connectionId,
              })
            : undefined;
          const timer = setInterval(() => write(": ping\n\n"), heartbeatMs);
          timer.unref?.();
          cleanup = () => {
            if (closed) return;
            closed = true;
            clearInterval(timer);
            unsubscribe();
            detach?.();
            c.req.raw.signal.removeEventListener("abort", cleanup);
          };
          c.req.raw.signal.addEventListener("abort", cleanup, { once: true });
        };

        control("ready", { connection_id: connectionId });
        if (log) {
          // Cluster: live events are held while the log replays; then every id the replay sent
          // is skipped if it also arrives live (another node's event can arrive late over NATS).
          // This node's events go out only once they are in the log (Outbox), so a client that
          // saw one can resume from the log on any node.
          let lastSent = since ?? log.lastId();
          const replayed = new Set<number>();
          const sendLogged = (s: Stamped) => {
            const id = log.idOf(s);
            if (id === undefined) return write(`data: ${JSON.stringify({ ...s, seq: lastSent })}\n\n`);
            if (replayed.has(id)) return;
            lastSent = Math.max(lastSent, id);
            write(`id: ${id}\ndata: ${JSON.stringify({ ...s, seq: id })}\n\n`);
          };
          const outbox = new Outbox(log, sendLogged);
          const held: Stamped[] = [];
          let replaying = true;
          const sub = runtime.subscribe((s) => (replaying ? held.push(s) : outbox.push(s)), { threadId });
          unsubscribe = () => {
            sub.unsubscribe();
            outbox.close();
          };
          return (async () => {
            if (since !== undefined) {
              let replay: ReturnType<typeof log.since> | undefined;
              try {
                // What this node recorded before the stream subscribed is written first, so the
                // read below has it (it is not among the live events held).
                await log.settled();
                if (closed) return;
                replay = log.since(since, threadId);
              } catch (e) {
                const why = (e as Error).message;
                control("gap", {
                  message: `the event log is unavailable (${why}); refetch threads and questions`,
                });
              }
              if (replay?.gap)
                control("gap", {
                  message: `events after ${since} are no longer logged; refetch threads and questions`,
                });
              for (const s of replay?.events ?? []) {
                sendLogged(s);
                replayed.add(s.seq);
              }
            }
            for (const s of held) outbox.push(s);
            held.length = 0;
            replaying = false;
            finish();
          })();
        }
        // Replayed events arrive synchronously inside subscribe(); hold them until the gap
        // notice (if any) is out, so a client learns of the gap before it sees later events.
        const early: Stamped[] = [];
        let live = false;
        const sub = runtime.subscribe((s) => (live ? send(s) : early.push(s)), { threadId, since });
        unsubscribe = () => sub.unsubscribe();
        const restarted = since !== undefined && since > runtime.lastSeq;
        if (sub.gap || restarted)
          control("gap", {
            message: restarted
              ? `the server restarted since event ${since}; refetch threads and questions`
              : `events after ${since} are no longer buffered; refetch threads and questions`,
          });
        for (const s of early) send(s);
        live = true;
        finish();
      },
      cancel() {
        cleanup();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
