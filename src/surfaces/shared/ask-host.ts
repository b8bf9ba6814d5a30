/**
 * The runtime as an asker's host (questions/asker.ts AskHost), for the surfaces that forward
 * pending requests to a connected client (app-server, ACP, mcp-server). Below the surfaces: none
 * of them imports another.
 *
 * Contract: every method acts on the request's own thread through the runtime's broker, so the
 * broker validates and records each outcome; `interrupt` stops the request's turn only while that
 * turn is the thread's active one in this process; `othersCanAnswer` counts the responders
 * attached to the request's thread (its ancestors' too, for a sub-agent) other than the asking
 * connection (same kind and id).
 */
import type { AskHost } from "../../questions/asker.js";
import type { Runtime } from "../../runtime/core.js";

export function askHost(runtime: Runtime): AskHost {
  return {
    pending: (request) =>
      runtime.broker.list({ threadId: request.thread_id }).find((r) => r.request_id === request.request_id),
    reply: (request, reply, responder) =>
      runtime.reply(request.thread_id, request.request_id, reply, responder),
    decline: (request, responder, reason) =>
      runtime.broker.decline(request.thread_id, request.request_id, responder, reason),
    unavailable: (request, reason) =>
      runtime.broker.unavailable(request.thread_id, request.request_id, reason),
    expire: (request, reason) => ({ ok: true, outcome: runtime.broker.expire(request, reason) }),
    interrupt: (request, reason) => {
      const thread = runtime.thread(request.thread_id);
      return thread?.active?.id === request.turn_id ? thread.interrupt(reason) : false;
    },
    othersCanAnswer: (request, responder) =>
      runtime.responders
        .list(request.thread_id)
        .some((r) => r.kind !== responder.kind || (r.id ?? "") !== (responder.id ?? "")),
  };
}
