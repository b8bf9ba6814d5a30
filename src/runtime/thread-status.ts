/**
 * A stored thread's status as readers without its live Thread show it (`tandem threads`, the HTTP
 * API for threads not loaded in the server).
 *
 * Contract: a thread whose last turn failed reads `failed` whatever the stored status says once
 * nothing runs (a process that ran the failed turn and then closed the thread stored `closed`);
 * a later turn that does not fail clears it. `running` and `waiting_on_user` are kept as stored:
 * the caller decides whether to believe them (the HTTP server does not for threads it has not
 * loaded, see routes/threads.ts).
 */
import type { ThreadStatus } from "../protocol/events.js";
import type { Store } from "../store/types.js";

export function settledStatus(stored: ThreadStatus, lastTurn: string | undefined): ThreadStatus {
  if (stored === "running" || stored === "waiting_on_user") return stored;
  return lastTurn === "failed" ? "failed" : stored === "failed" ? "idle" : stored;
}

/** The status of the last turn stored for the thread, if it has any. */
export function lastTurnStatus(store: Store, threadId: string): string | undefined {
  return store.lastTurn(threadId)?.status;
}
