/**
 * Codex `thread/fork` and `thread/revert` over `runtime.branches` (README "Undo, redo, fork and
 * rewind").
 *
 * - `thread/fork`: a new stored thread with the source's history — all of it, through
 *   `lastTurnId`, or before `beforeTurnId` (not both) — and its settings; the connection is
 *   attached to it as a responder, `thread/started` follows the response, which carries the new
 *   thread (with its turns unless `excludeTurns`) and its settings, as `thread/resume` does.
 *   `ephemeral: true` is refused (a fork is a stored thread). Other params are accepted and
 *   ignored, as on thread/start.
 * - `thread/revert`: the thread's history is cut before `beforeTurnId` (that turn and every later
 *   one leave it); files are not touched, as Codex's schema says. The part cut away stays as an
 *   archived thread (thread/list with `archived: true`). `thread/reverted` follows the response;
 *   the thread object carries no turns (thread/read with includeTurns has them); Tandem has no
 *   paginated item or turn cursors, so both are null.
 * - `thread/rollback` (older Codex clients; not in 0.171.0's schema): `{threadId, numTurns}` drops
 *   the last `numTurns` turns the user started, as `thread/revert` does before the first of them
 *   (files untouched, the cut part archived), and answers `{thread}`. `numTurns` must be between
 *   1 and the number of such turns.
 */
import * as z from "zod";
import type { ThreadHandle } from "../../runtime/types.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { requireThread, settingsOf, threadObject } from "./threads.js";

export const ThreadForkParams = z.object({
  threadId: z.string(),
  beforeTurnId: z.string().nullish(),
  lastTurnId: z.string().nullish(),
  excludeTurns: z.boolean().nullish(),
  ephemeral: z.boolean().nullish(),
});

export const ThreadRevertParams = z.object({
  threadId: z.string(),
  beforeTurnId: z.string(),
});

/** A runtime refusal (unknown turn, running turn, another process's lease) as an RPC error. */
function refusal(err: unknown, threadId: string): RpcError {
  if (err instanceof RpcError) return err;
  const message = (err as Error).message;
  const code = /has no turn|has no item/.test(message) ? ErrorCode.InvalidParams : ErrorCode.ThreadInUse;
  return new RpcError(code, message, { threadId });
}

const fork = method(ThreadForkParams, ({ server, session }: Ctx, p) => {
  requireThread(server, p.threadId);
  if (p.beforeTurnId && p.lastTurnId)
    throw new RpcError(
      ErrorCode.InvalidParams,
      "invalid params for thread/fork: beforeTurnId cannot be combined with lastTurnId",
    );
  if (p.ephemeral)
    throw new RpcError(
      ErrorCode.InvalidParams,
      "invalid params for thread/fork: Tandem's forks are stored threads; ephemeral forks are not supported",
    );
  let thread: ThreadHandle;
  try {
    const record = server.runtime.branches.fork(p.threadId, {
      ...(p.beforeTurnId ? { beforeTurnId: p.beforeTurnId } : {}),
      ...(p.lastTurnId ? { throughTurnId: p.lastTurnId } : {}),
    });
    session.attach(record.id);
    thread = server.runtime.threads.open(record.id);
  } catch (err) {
    throw refusal(err, p.threadId);
  }
  const object = threadObject(server, thread.record, !p.excludeTurns);
  session.notify("thread/started", { thread: { ...object, turns: [] } });
  return { thread: object, ...settingsOf(server, thread) };
});

const revert = method(ThreadRevertParams, ({ server, session }: Ctx, p) => {
  requireThread(server, p.threadId);
  try {
    server.runtime.branches.rewindHistory(p.threadId, p.beforeTurnId);
  } catch (err) {
    throw refusal(err, p.threadId);
  }
  session.notify("thread/reverted", { threadId: p.threadId });
  return {
    thread: threadObject(server, requireThread(server, p.threadId), false),
    itemsBackwardsCursor: null,
    turnsBackwardsCursor: null,
  };
});

export const ThreadRollbackParams = z.object({ threadId: z.string(), numTurns: z.number().int() });

const rollback = method(ThreadRollbackParams, ({ server }: Ctx, p) => {
  requireThread(server, p.threadId);
  const turns = [...new Set(server.runtime.branches.userMessages(p.threadId).map((m) => m.turnId))];
  if (p.numTurns < 1 || p.numTurns > turns.length)
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params: numTurns must be between 1 and ${turns.length} (the turns of thread ${p.threadId})`,
    );
  try {
    server.runtime.branches.rewindHistory(p.threadId, turns[turns.length - p.numTurns]);
  } catch (err) {
    throw refusal(err, p.threadId);
  }
  return { thread: threadObject(server, requireThread(server, p.threadId), false) };
});

export const BRANCH_METHODS: Record<string, Method<any>> = {
  "thread/fork": fork,
  "thread/revert": revert,
  "thread/rollback": rollback,
};
