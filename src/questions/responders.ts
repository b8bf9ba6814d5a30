/**
 * Who can answer questions (requirements Q3 gate 4, Q13).
 *
 * Contract:
 * - A surface that can answer declares itself with `attach`, per thread or for all threads (`"all"`,
 *   e.g. an HTTP server with a web page). Merely subscribing to events does not count: a thread with
 *   only headless listeners (exec without `--questions`, a JSONL pipe) has no responder, so the
 *   question tool is unavailable instead of waiting forever.
 * - `attach` returns its own `detach`; calling it twice is harmless. Attaching the same responder
 *   twice yields two registrations, each removed by its own `detach`.
 * - `list(thread)` is in attach order, global and thread-scoped responders interleaved.
 * - Sub-agents (Q14): with `lineage`, a responder attached to a thread also answers for its
 *   descendants (a child's question is relayed to the root thread's surfaces), so `has(child)` is
 *   true when anyone can answer the child's root.
 */
import type { Responder } from "../protocol/questions.js";

export type ResponderScope = { threadId: string } | "all";

export interface Responders {
  attach(scope: ResponderScope, responder: Responder): () => void;
  /** True when at least one responder can answer this thread. */
  has(threadId: string): boolean;
  list(threadId: string): Responder[];
  /** Registrations alive (leak tests). */
  readonly size: number;
}

interface Registration {
  threadId: string | null;
  responder: Responder;
}

export interface RespondersDeps {
  /** The thread and its ancestors, itself first (sub-agents); default: the thread alone. */
  lineage?: (threadId: string) => string[];
}

export function createResponders(deps: RespondersDeps = {}): Responders {
  const registrations = new Set<Registration>();
  const lineage = deps.lineage ?? ((id: string) => [id]);
  const applies = (r: Registration, threadId: string) =>
    r.threadId === null || r.threadId === threadId || lineage(threadId).includes(r.threadId);

  return {
    get size() {
      return registrations.size;
    },
    attach(scope, responder) {
      const r: Registration = { threadId: scope === "all" ? null : scope.threadId, responder };
      registrations.add(r);
      return () => {
        registrations.delete(r);
      };
    },
    has(threadId) {
      for (const r of registrations) if (applies(r, threadId)) return true;
      return false;
    },
    list(threadId) {
      return [...registrations].filter((r) => applies(r, threadId)).map((r) => r.responder);
    },
  };
}
