/**
 * The runtime as an asker's host (questions/asker.ts AskHost), for the surfaces that forward
 * pending requests to a connected client (app-server, ACP, mcp-server). Below the surfaces: none
 * of them imports another.
 *
 * Contract: every method acts on the request's own thread through `runtime.questions` (the broker
 * behind it validates and records each outcome); `interrupt` stops the request's turn only while that
 * turn is the thread's active one in this process; `othersCanAnswer` counts the responders
 * attached to the request's thread (its ancestors' too, for a sub-agent) other than the asking
 * connection (same kind and id).
 */
import type { AskHost } from "../../questions/asker.js";
import type { Runtime } from "../../runtime/core.js";

export function askHost(runtime: Runtime): AskHost {
  const { questions, turns } = runtime;
  return {
    pending: (request) =>
      questions.list({ threadId: request.thread_id }).find((r) => r.request_id === request.request_id),
    reply: (request, reply, responder) =>
      questions.reply(request.thread_id, request.request_id, reply, responder),
    decline: (request, responder, reason) =>
      questions.decline(request.thread_id, request.request_id, responder, reason),
    unavailable: (request, reason) => questions.unavailable(request.thread_id, request.request_id, reason),
    expire: (request, reason) => ({ ok: true, outcome: questions.expire(request, reason) }),
    interrupt: (request, reason) =>
      turns.active(request.thread_id)?.id === request.turn_id
        ? turns.interrupt(request.thread_id, reason)
        : false,
    othersCanAnswer: (request, responder) =>
      questions
        .responders(request.thread_id)
        .some((r) => r.kind !== responder.kind || (r.id ?? "") !== (responder.id ?? "")),
  };
}
