/**
 * Codex `thread/compact/start` (requirements L14): params `{threadId}`, result `{}`. The compaction runs
 * on the thread (Thread.compact): an idle thread compacts as its own turn (`turn/started`, the
 * `contextCompaction` item's `item/started` + `item/completed`, `thread/compacted`,
 * `turn/completed`); a running turn compacts before its next request, or at once when it waits on
 * a question. Like `turn/start`, it attaches the connection and opens a stored thread.
 */
import * as z from "zod";
import { ThreadInUseError } from "../../runtime/errors.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode } from "./rpc.js";
import { inUseOr, requireThread } from "./threads.js";

export const ThreadCompactStartParams = z.object({ threadId: z.string() });

const compactStart = method(ThreadCompactStartParams, ({ server, session }: Ctx, p) => {
  requireThread(server, p.threadId);
  const attached = session.attach(p.threadId);
  try {
    server.runtime.turns.compact(p.threadId);
    return {};
  } catch (err) {
    if (attached && !server.runtime.threads.get(p.threadId)) session.detach(p.threadId);
    throw err instanceof ThreadInUseError ? inUseOr(err, ErrorCode.ThreadInUse, p.threadId) : err;
  }
});

export const COMPACT_METHODS: Record<string, Method<any>> = { "thread/compact/start": compactStart };
