/**
 * Thread routes: create, list, search (`GET /thread?q=`), read, change settings, start turn,
 * steer, compact, interrupt.
 *
 * Reads never change state: `GET /thread/:id` of a thread this process has not opened reads the
 * store. Writes to such a thread open it first with `runtime.threads.open`, which repairs orphan
 * calls and re-asks its pending questions (Q11).
 */

import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { type Context, Hono } from "hono";
import type { ThreadStatus } from "../../../protocol/events.js";
import {
  CreateThreadBody,
  ReviewBody,
  ShellBody,
  StartTurnBody,
  SteerBody,
  type ThreadDetail,
  ThreadSettingsBody,
  type ThreadSummary,
  type TurnSummary,
} from "../../../protocol/http.js";
import { TurnOptions } from "../../../protocol/ops.js";
import {
  parseReviewArgs,
  REVIEW_TURN,
  reviewLabel,
  reviewPrompt,
  reviewRequestLine,
  targetProblem,
} from "../../../protocol/review.js";
import {
  SEARCH_LIMITS,
  type StoredItem,
  type ThreadRecord,
  type ThreadSettings,
  type TurnRecord,
} from "../../../protocol/threads.js";
import type { Runtime } from "../../../runtime/core.js";
import { TurnBusyError } from "../../../runtime/errors.js";
import { settledStatus } from "../../../runtime/thread-status.js";
import type { ThreadHandle } from "../../../runtime/types.js";
import { fail, readBody } from "../errors.js";

export interface ThreadRoutesOptions {
  /** Directory for threads created without `cwd` (default: the server's cwd). */
  defaultCwd: string;
  maxBodyBytes?: number;
}

/** The API view of a thread: live state when loaded here, else the stored record made honest. */
export function threadSummary(runtime: Runtime, record: ThreadRecord): ThreadSummary {
  const live = runtime.threads.get(record.id);
  const rec = live?.record ?? record;
  const pending = live ? runtime.questions.pendingCount(rec.id) : runtime.questions.stored(rec.id).length;
  // A thread no process has open cannot be running, whatever a crashed process stored; one whose
  // last turn failed reads failed (thread-status.ts).
  const status: ThreadStatus = live
    ? live.status
    : pending > 0
      ? "waiting_on_user"
      : settledStatus(rec.status === "closed" ? "closed" : "idle", runtime.threads.lastTurn(rec.id)?.status);
  return {
    id: rec.id,
    parent_id: rec.parent_id,
    agent: threadAgent(rec.settings.agent),
    created_at: rec.created_at,
    updated_at: rec.updated_at,
    cwd: rec.cwd,
    model: rec.model,
    mode: rec.mode,
    effort: effortOf(rec.settings),
    title: rec.title,
    status,
    loaded: Boolean(live),
    active_turn_id: live?.active?.id ?? null,
    pending_questions: pending,
    usage: rec.usage ?? null,
  };
}

/** The thread's own effort (`settings.effort`, as the turn loop reads it), null for none. */
function effortOf(settings: ThreadSettings): ThreadSummary["effort"] {
  const e = TurnOptions.shape.effort.safeParse(settings.effort);
  return e.success && e.data ? e.data : null;
}

/** A sub-agent's `settings.agent` as the API shows it; null for a thread that is none. */
function threadAgent(a: ThreadSettings["agent"]): ThreadSummary["agent"] {
  if (!a) return null;
  return { nickname: a.nickname, role: a.role, depth: a.depth, task: a.task };
}

/**
 * The live thread, opening it from the store when this process has not yet (which re-asks its
 * pending questions). Undefined when no such thread exists. May throw if the store fails.
 */
export function liveThread(runtime: Runtime, id: string): ThreadHandle | undefined {
  const loaded = runtime.threads.get(id);
  if (loaded) return loaded;
  if (!runtime.threads.stored(id)) return undefined;
  return runtime.threads.open(id);
}

/**
 * The API view of a thread's turns, each with `item_end`: the index in `items` just past its
 * last item (a turn that recorded none ends where the one before it did).
 */
export function turnSummaries(turns: TurnRecord[], items: StoredItem[]): TurnSummary[] {
  const end = new Map<string, number>();
  items.forEach((s, i) => {
    if (s.turn_id !== null) end.set(s.turn_id, i + 1);
  });
  let last = 0;
  return turns.map((t) => {
    last = Math.max(last, end.get(t.id) ?? 0);
    return {
      id: t.id,
      status: t.status,
      started_at: t.started_at,
      ended_at: t.ended_at,
      error: t.error,
      diff: t.diff ?? null,
      item_end: last,
    };
  });
}

const noThread = (id: string) => `no thread with id ${id}; GET /thread lists threads`;

/**
 * The `:id` path parameter resolved to the one thread it names: the full id, a unique prefix or
 * the web page's short id (runtime.threads.resolve). Unknown → 404, ambiguous → 400 naming the
 * candidates.
 */
export function threadParam(runtime: Runtime, c: Context): { id: string } | { response: Response } {
  const given = c.req.param("id") ?? "";
  const ref = runtime.threads.resolve(given);
  if (ref.ok) return { id: ref.id };
  if (ref.reason === "ambiguous") return { response: fail(c, 400, "ambiguous_id", ref.message) };
  return { response: fail(c, 404, "not_found", noThread(given)) };
}

export function threadRoutes(runtime: Runtime, opts: ThreadRoutesOptions): Hono {
  const app = new Hono();

  app.post("/", async (c) => {
    const body = await readBody(c, CreateThreadBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const b = body.value;
    const cwd = b.cwd === undefined ? opts.defaultCwd : resolve(opts.defaultCwd, b.cwd);
    if (!isAbsolute(cwd) || !isDirectory(cwd))
      return fail(
        c,
        400,
        "invalid_body",
        `cwd ${cwd} is not a directory on the server; pass an existing one`,
      );
    const thread = runtime.threads.start({
      cwd,
      model: b.model,
      mode: b.mode,
      effort: b.effort,
      questionPolicy: b.question_policy,
      offerQuestions: b.offer_questions ?? true,
    });
    return c.json(threadSummary(runtime, thread.record), 201);
  });

  app.get("/", (c) => {
    const limitText = c.req.query("limit");
    const q = c.req.query("q");
    const max = q === undefined ? 1000 : SEARCH_LIMITS.maxLimit;
    const limit =
      limitText === undefined ? (q === undefined ? 100 : SEARCH_LIMITS.defaultLimit) : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > max)
      return fail(c, 400, "invalid_query", `limit must be an integer from 1 to ${max}`);
    if (q !== undefined && q.length > 500)
      return fail(c, 400, "invalid_query", "q must be at most 500 characters");
    const default_cwd = opts.defaultCwd;
    // Search: titles and messages of stored threads, newest first (store/search.ts).
    if (q !== undefined) {
      const threads = runtime.threads
        .search(q, { limit })
        .map((h) => ({ ...threadSummary(runtime, h.thread), snippet: h.snippet }));
      return c.json({ threads, default_cwd });
    }
    // Threads created here and not stored yet (no input so far) come first: they are the newest.
    const records = [...runtime.threads.unstored(), ...runtime.threads.list({ limit })].slice(0, limit);
    const threads = records.map((r) => threadSummary(runtime, r));
    return c.json({ threads, default_cwd });
  });

  // Model, effort and mode of the thread's later turns (a running turn keeps its own).
  app.patch("/:id/settings", async (c) => {
    const body = await readBody(c, ThreadSettingsBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const thread = liveThread(runtime, param.id);
    if (!thread) return fail(c, 404, "not_found", noThread(param.id));
    const { model, effort, mode } = body.value;
    // Only what was given changes (threads.updateSettings; null effort: the config's again).
    const record = runtime.threads.updateSettings(thread.id, {
      ...(model ? { model } : {}),
      ...(mode ? { mode } : {}),
      ...(effort !== undefined ? { effort } : {}),
    });
    return c.json(threadSummary(runtime, record));
  });

  app.get("/:id", (c) => {
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const { id } = param;
    const live = runtime.threads.get(id);
    const record = live?.record ?? runtime.threads.stored(id);
    if (!record) return fail(c, 404, "not_found", noThread(id));
    // A stored thread's items are read from the store (the same as a live one's: items are
    // stored before they are visible), because only stored items know their turn.
    const stored = live && !live.stored ? undefined : runtime.threads.history(id);
    const items = stored ? stored.map((s) => s.item) : [...live!.items()];
    const questions = live ? runtime.questions.list({ threadId: id }) : runtime.questions.stored(id);
    const turns = stored ? turnSummaries(runtime.threads.turns(id), stored) : [];
    const approvals = items.flatMap((it) =>
      it.type === "function_call" || it.type === "custom_tool_call"
        ? runtime.questions.approvalsOf(id, it.call_id).map((a) => ({ call_id: it.call_id, ...a }))
        : [],
    );
    const detail: ThreadDetail = {
      thread: threadSummary(runtime, record),
      items,
      turns,
      questions,
      approvals,
    };
    return c.json(detail);
  });

  app.post("/:id/turn", async (c) => {
    const body = await readBody(c, StartTurnBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const { id } = param;
    const thread = liveThread(runtime, id);
    if (!thread) return fail(c, 404, "not_found", noThread(id));
    const { text, images, options } = body.value;
    try {
      const turn = thread.startTurn(text, { images, options });
      return c.json({ thread_id: id, turn_id: turn.id }, 202);
    } catch (err) {
      if (err instanceof TurnBusyError) return fail(c, 409, "turn_running", err.message);
      throw err;
    }
  });

  app.post("/:id/steer", async (c) => {
    const body = await readBody(c, SteerBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const { id } = param;
    const thread = liveThread(runtime, id);
    if (!thread) return fail(c, 404, "not_found", noThread(id));
    try {
      const { inputId, turnId } = thread.steer(body.value.text);
      return c.json({ thread_id: id, turn_id: turnId, input_id: inputId }, 202);
    } catch (err) {
      if (err instanceof TurnBusyError) return fail(c, 409, "no_running_turn", err.message);
      throw err;
    }
  });

  app.post("/:id/shell", async (c) => {
    const body = await readBody(c, ShellBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const { id } = param;
    if (!liveThread(runtime, id)) return fail(c, 404, "not_found", noThread(id));
    try {
      const turn = runtime.turns.shell(id, body.value.command, { timeoutMs: body.value.timeout_ms ?? null });
      return c.json({ thread_id: id, turn_id: turn.id }, 202);
    } catch (err) {
      if (err instanceof TurnBusyError) return fail(c, 409, "turn_running", err.message);
      throw err;
    }
  });

  // /review from the web composer (runtime/review.ts): a read-only review turn on the thread.
  app.post("/:id/review", async (c) => {
    const body = await readBody(c, ReviewBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const thread = liveThread(runtime, param.id);
    if (!thread) return fail(c, 404, "not_found", noThread(param.id));
    const target = parseReviewArgs(body.value.args ?? "");
    const problem = targetProblem(target);
    if (problem) return fail(c, 400, "bad_request", `review: ${problem}`);
    try {
      const turn = thread.startTurn(reviewPrompt(target), {
        options: REVIEW_TURN,
        mentions: false,
        display: reviewRequestLine(reviewLabel(target)),
      });
      return c.json({ thread_id: param.id, turn_id: turn.id }, 202);
    } catch (err) {
      if (err instanceof TurnBusyError) return fail(c, 409, "turn_running", err.message);
      throw err;
    }
  });

  // The `@` picker's search over the thread's directory (runtime.files), never another root.
  app.get("/:id/files", async (c) => {
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const record = runtime.threads.get(param.id)?.record ?? runtime.threads.stored(param.id);
    if (!record) return fail(c, 404, "not_found", noThread(param.id));
    const q = (c.req.query("q") ?? "").slice(0, 500);
    const limit = Math.min(100, Math.max(1, Number(c.req.query("limit")) || 20));
    const files = await runtime.files.search(record.cwd, q, { limit });
    return c.json({ files });
  });

  app.post("/:id/compact", async (c) => {
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const { id } = param;
    const thread = liveThread(runtime, id);
    if (!thread) return fail(c, 404, "not_found", noThread(id));
    const running = thread.active;
    const now = !running || thread.status === "waiting_on_user";
    const turn = thread.compact();
    return c.json({ thread_id: id, turn_id: turn.id, when: now ? "now" : "before_next_request" }, 202);
  });

  app.post("/:id/interrupt", async (c) => {
    const param = threadParam(runtime, c);
    if ("response" in param) return param.response;
    const { id } = param;
    // Interrupting a thread this process has not opened would only open it to abort the turn
    // the re-ask just started; report "nothing running" instead.
    const thread = runtime.threads.get(id);
    if (!thread && !runtime.threads.stored(id)) return fail(c, 404, "not_found", noThread(id));
    return c.json({ thread_id: id, interrupted: thread ? thread.interrupt() : false });
  });

  return app;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
