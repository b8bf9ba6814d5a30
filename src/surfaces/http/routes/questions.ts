/**
 * Question routes (requirements S4, Q4, Q11, Q13): list pending, reply (typed or text), reject, touch.
 * All bookkeeping stays in the broker; these routes validate, translate and map refusals.
 *
 * Contract:
 * - `GET /question` lists what the broker holds plus questions persisted by an earlier process
 *   for threads not opened here, so the inbox survives a restart. Replying to one of those opens
 *   its thread (re-asking it) and then answers it: the late answer completes the turn.
 * - A reply names its thread; the broker refuses replies to another thread's request
 *   (409 wrong_thread), to settled or cancelled ones (409), and to unknown ids (404).
 * - Responses carry the broker's redacted outcome only: secret answers never come back.
 */
import { Hono } from "hono";
import {
  RejectBody,
  type ReplyBody,
  ReplyBody as ReplyBodySchema,
  TouchBody,
} from "../../../protocol/http.js";
import {
  type QuestionAnswer,
  type QuestionRequest,
  queueOrder,
  type Responder,
} from "../../../protocol/questions.js";
import { parseTextReply } from "../../../questions/text-reply.js";
import type { Runtime } from "../../../runtime/core.js";
import { brokerFailure, fail, readBody } from "../errors.js";
import { liveThread } from "./threads.js";

/** How long a reply waits for a just-opened thread to re-ask its stored question. */
const REASK_WAIT_MS = 5_000;

/**
 * Pending requests: the broker's, plus stored ones of threads this process has not opened.
 * One queue as the broker keeps it (Q16): approvals first, then oldest first.
 */
export function pendingQuestions(runtime: Runtime, threadId?: string): QuestionRequest[] {
  const live = runtime.questions.list(threadId ? { threadId } : {});
  const seen = new Set(live.map((r) => r.request_id));
  const stored = runtime.questions
    .stored(threadId)
    .filter((r) => !seen.has(r.request_id) && !runtime.threads.get(r.thread_id));
  return [...live, ...stored].sort(queueOrder);
}

export function questionRoutes(runtime: Runtime, opts: { maxBodyBytes?: number } = {}): Hono {
  const app = new Hono();

  app.get("/", (c) => {
    const threadId = c.req.query("thread") || undefined;
    if (threadId && !runtime.threads.record(threadId))
      return fail(c, 404, "not_found", `no thread with id ${threadId}; GET /thread lists threads`);
    return c.json({ questions: pendingQuestions(runtime, threadId), server_time: Date.now() });
  });

  app.post("/:id/reply", async (c) => {
    const body = await readBody(c, ReplyBodySchema, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const requestId = c.req.param("id");
    const b = body.value;
    const ready = await ensureAsked(runtime, b.thread_id, requestId);
    if (ready === "no_thread") return fail(c, 404, "not_found", noThread(b.thread_id));
    let answers: Record<string, QuestionAnswer> = b.answers ?? {};
    if (b.text) {
      const parsed = parseText(runtime, requestId, b.text);
      if (!parsed.ok) return fail(c, 400, "invalid_reply", parsed.message);
      answers = parsed.answers;
    }
    const r = runtime.questions.reply(b.thread_id, requestId, { answers }, responderOf(b.responder));
    if (!r.ok) return brokerFailure(c, r);
    return c.json({ request_id: requestId, outcome: r.outcome, duplicate: r.duplicate === true });
  });

  app.post("/:id/reject", async (c) => {
    const body = await readBody(c, RejectBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const requestId = c.req.param("id");
    const b = body.value;
    const ready = await ensureAsked(runtime, b.thread_id, requestId);
    if (ready === "no_thread") return fail(c, 404, "not_found", noThread(b.thread_id));
    const r = runtime.questions.decline(b.thread_id, requestId, responderOf(b.responder), b.reason);
    if (!r.ok) return brokerFailure(c, r);
    return c.json({ request_id: requestId, outcome: r.outcome, duplicate: r.duplicate === true });
  });

  app.post("/:id/touch", async (c) => {
    const body = await readBody(c, TouchBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const requestId = c.req.param("id");
    const r = runtime.questions.touch(requestId, responderOf(body.value.responder));
    if (!r.ok) return brokerFailure(c, r);
    return c.json({ request_id: requestId, deadline: r.deadline });
  });

  return app;
}

const noThread = (id: string) => `no thread with id ${id}; GET /thread lists threads`;

function responderOf(client: ReplyBody["responder"]): Responder {
  return client?.id ? { kind: client.kind, id: client.id } : { kind: client?.kind ?? "http" };
}

/**
 * Makes sure a stored question of a thread not opened here is live in the broker before the
 * broker sees the reply: opens the thread, then waits for the re-ask (`threads.open` starts it
 * asynchronously). Anything else (unknown request, other thread) is left to the broker to refuse.
 */
async function ensureAsked(
  runtime: Runtime,
  threadId: string,
  requestId: string,
): Promise<"ok" | "no_thread"> {
  if (runtime.threads.get(threadId)) return "ok";
  if (!runtime.threads.stored(threadId)) return "no_thread";
  const stored = runtime.questions.get(requestId);
  // A sub-agent's request may be answered naming its root thread (Q14): its own thread opens.
  const asker = stored?.request.thread_id;
  const waiting =
    stored && !stored.outcome && (asker === threadId || stored.request.agent?.root_thread_id === threadId);
  if (!waiting || !asker) return "ok";
  liveThread(runtime, asker);
  await runtime.questions.reasked(asker, REASK_WAIT_MS);
  return "ok";
}

type ParsedText = { ok: true; answers: Record<string, QuestionAnswer> } | { ok: false; message: string };

/**
 * Text answers through the shared parser (Q13). The request's questions come from the broker or
 * the store; for an id known to neither, nothing is parsed and the broker refuses the reply.
 */
function parseText(runtime: Runtime, requestId: string, text: Record<string, string>): ParsedText {
  const request = runtime.questions.pending(requestId) ?? runtime.questions.get(requestId)?.request;
  if (!request) return { ok: true, answers: {} };
  const answers: Record<string, QuestionAnswer> = {};
  const errors: string[] = [];
  for (const [id, value] of Object.entries(text)) {
    const q = request.questions.find((x) => x.id === id);
    if (!q) {
      const ids = request.questions.map((x) => `"${x.id}"`).join(", ");
      errors.push(`unknown question "${id}"; expected one of ${ids}`);
      continue;
    }
    const r = parseTextReply(q, value);
    if (r.ok) answers[id] = r.answer;
    else errors.push(r.error);
  }
  if (errors.length) return { ok: false, message: errors.join("; ") };
  return { ok: true, answers };
}
