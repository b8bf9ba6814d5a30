/**
 * Codex thread-management methods Tandem can honour: `thread/loaded/list`, `thread/unsubscribe`,
 * `thread/name/set`, `thread/archive`, `thread/unarchive`.
 *
 * Contract:
 * - `thread/loaded/list` lists the ids of the threads loaded in this process (started or resumed),
 *   whichever connection loaded them.
 * - `thread/unsubscribe` detaches this connection from the thread: no more of its events, no longer
 *   a responder (Q3), its server requests for the thread dropped. Pending questions stay pending in
 *   the broker (another client, or this one after `thread/resume`, gets them). The thread stays
 *   loaded, so no `thread/closed` follows. Status: `unsubscribed`, `notSubscribed` (loaded, not
 *   attached here) or `notLoaded`.
 * - `thread/name/set` stores the trimmed name as the thread's title (live record and store), then
 *   every connection gets `thread/name/updated`. An empty name is invalid params.
 * - `thread/archive` / `thread/unarchive` persist the `archived` thread setting (runtime.threads.archive) without
 *   touching `updated_at`; thread/list hides archived threads unless asked for them. A thread with a
 *   turn running or waiting on the user cannot be archived (-32003). Every connection gets
 *   `thread/archived` / `thread/unarchived` when the flag changes; repeating a call is a no-op.
 * - Unknown thread ids are -32001, like thread/read.
 */
import { ThreadIdParams, ThreadLoadedListParams, ThreadSetNameParams } from "../../protocol/app-server.js";
import { type Ctx, type Method, method, pageOf } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { requireThread, threadObject } from "./threads.js";

const loadedList = method(ThreadLoadedListParams, ({ server }: Ctx, p) =>
  pageOf(
    "thread/loaded/list",
    server.runtime.threads.loaded().map((t) => t.id),
    p,
  ),
);

const unsubscribe = method(ThreadIdParams, ({ server, session }: Ctx, p) => {
  requireThread(server, p.threadId);
  if (session.unsubscribe(p.threadId)) return { status: "unsubscribed" };
  return { status: server.runtime.threads.get(p.threadId) ? "notSubscribed" : "notLoaded" };
});

const setName = method(ThreadSetNameParams, ({ server }: Ctx, p) => {
  requireThread(server, p.threadId);
  const name = p.name.trim();
  if (!name)
    throw new RpcError(
      ErrorCode.InvalidParams,
      "invalid params for thread/name/set: name: must not be empty",
    );
  // A live thread without input yet is stored later with its live record.
  server.runtime.threads.rename(p.threadId, name);
  server.broadcast("thread/name/updated", { threadId: p.threadId, threadName: name });
  return {};
});

const archive = method(ThreadIdParams, ({ server }: Ctx, p) => {
  requireThread(server, p.threadId);
  const status = server.runtime.threads.get(p.threadId)?.status;
  if (status === "running" || status === "waiting_on_user")
    throw new RpcError(
      ErrorCode.TurnConflict,
      `thread ${p.threadId} has a turn in progress; interrupt it (turn/interrupt) before archiving`,
      { threadId: p.threadId },
    );
  if (server.runtime.threads.archive(p.threadId, true))
    server.broadcast("thread/archived", { threadId: p.threadId });
  return {};
});

const unarchive = method(ThreadIdParams, ({ server }: Ctx, p) => {
  requireThread(server, p.threadId);
  if (server.runtime.threads.archive(p.threadId, false))
    server.broadcast("thread/unarchived", { threadId: p.threadId });
  return { thread: threadObject(server, requireThread(server, p.threadId), false) };
});

export const MANAGE_METHODS: Record<string, Method<any>> = {
  "thread/loaded/list": loadedList,
  "thread/unsubscribe": unsubscribe,
  "thread/name/set": setName,
  "thread/archive": archive,
  "thread/unarchive": unarchive,
};
