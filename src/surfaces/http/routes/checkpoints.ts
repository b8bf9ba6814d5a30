/**
 * Undo, redo, fork and rewind over HTTP (README "Undo, redo, fork and rewind"): thin calls of
 * `runtime.checkpoints` and `runtime.branches`.
 *
 * - `GET /thread/:id/checkpoints`: the thread's checkpoints, oldest first.
 * - `POST /thread/:id/undo`, `/redo` (body `{turnId?}`): asks the user (the questions appear on
 *   `GET /question` and `GET /event`; answer with `POST /question/:id/reply`) and answers once
 *   they did: `{status: "applied" | "cancelled", turn_id, applied, skipped, failed, unrestorable}`.
 *   Closing the request cancels the questions. With no responder for the thread (a client on
 *   `GET /event?responder=KIND`, or `serve --responder`): 409 `no_responder`, nothing written.
 * - `POST /thread/:id/fork` (body `{itemId?}`: keep items through that index of
 *   `GET /thread/:id`'s `items`, or `{turnId?}`: through that turn; default all): 201 with the
 *   new thread's summary.
 * - `POST /thread/:id/rewind` (body `{turnId, restoreCode?}`): cuts the history before that turn;
 *   `{status, archived_id, restores}`.
 * Unknown thread 404; nothing to undo, a running turn, a changed workspace 409.
 */
import { type Context, Hono } from "hono";
import * as z from "zod";
import type { RestoreOutcome } from "../../../runtime/checkpoints-api.js";
import type { Runtime } from "../../../runtime/core.js";
import { fail, readBody } from "../errors.js";
import { threadParam, threadSummary } from "./threads.js";

const RestoreBody = z.strictObject({ turnId: z.string().min(1).optional() });
const ForkBody = z
  .strictObject({
    itemId: z.number().int().min(0).optional().describe("Keep the items through this index"),
    turnId: z.string().min(1).optional().describe("Keep the items through this turn"),
  })
  .refine((b) => b.itemId === undefined || b.turnId === undefined, "give itemId or turnId, not both");
const RewindBody = z.strictObject({ turnId: z.string().min(1), restoreCode: z.boolean().optional() });

/** A refusal from the runtime as 409 (404 when it names no such thread). */
function refused(c: Context, err: unknown): Response {
  const message = err instanceof Error ? err.message : String(err);
  if (/^no thread with id/.test(message)) return fail(c, 404, "not_found", message);
  if (/headless/.test(message)) return fail(c, 409, "no_responder", message);
  return fail(c, 409, "refused", message);
}

const outcome = (o: RestoreOutcome) => ({
  status: o.status,
  turn_id: o.turnId,
  applied: o.result?.applied ?? [],
  skipped: o.result?.skipped ?? [],
  failed: o.result?.failed ?? [],
  unrestorable: o.result?.unrestorable ?? o.plan.unrestorable,
});

export function checkpointRoutes(runtime: Runtime, opts: { maxBodyBytes?: number } = {}): Hono {
  const app = new Hono();

  app.get("/:id/checkpoints", (c) => {
    const t = threadParam(runtime, c);
    if ("response" in t) return t.response;
    try {
      return c.json({ checkpoints: runtime.checkpoints.list(t.id) });
    } catch (err) {
      return refused(c, err);
    }
  });

  for (const direction of ["undo", "redo"] as const)
    app.post(`/:id/${direction}`, async (c) => {
      const body = await readBody(c, RestoreBody, opts.maxBodyBytes);
      if (!body.ok) return body.response;
      const t = threadParam(runtime, c);
      if ("response" in t) return t.response;
      try {
        const o = await runtime.checkpoints[direction](t.id, {
          turnId: body.value.turnId,
          signal: c.req.raw.signal,
        });
        return c.json(outcome(o));
      } catch (err) {
        return refused(c, err);
      }
    });

  app.post("/:id/fork", async (c) => {
    const body = await readBody(c, ForkBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const t = threadParam(runtime, c);
    if ("response" in t) return t.response;
    try {
      const record = runtime.branches.fork(t.id, {
        throughItem: body.value.itemId,
        throughTurnId: body.value.turnId,
      });
      return c.json(threadSummary(runtime, record), 201);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return /has no (item|turn)/.test(message) ? fail(c, 400, "bad_request", message) : refused(c, err);
    }
  });

  app.post("/:id/rewind", async (c) => {
    const body = await readBody(c, RewindBody, opts.maxBodyBytes);
    if (!body.ok) return body.response;
    const t = threadParam(runtime, c);
    if ("response" in t) return t.response;
    try {
      const r = await runtime.branches.rewind(t.id, body.value.turnId, {
        restoreCode: body.value.restoreCode,
        signal: c.req.raw.signal,
      });
      return c.json({
        status: r.status,
        archived_id: r.archivedId ?? null,
        restores: r.restores.map(outcome),
      });
    } catch (err) {
      return refused(c, err);
    }
  });

  return app;
}

const idParam = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: "Thread id",
};
const jsonBody = (schema: z.ZodType) => ({
  required: false,
  content: { "application/json": { schema: z.toJSONSchema(schema, { io: "input" }) } },
});
const reply = (description: string) => ({ description, content: { "application/json": {} } });
const refusals = {
  "400": reply("Invalid body"),
  "401": reply("Missing or wrong bearer token"),
  "404": reply("No such thread"),
  "409": reply("Nothing to act on, a running turn, no responder, or the workspace changed meanwhile"),
};

/** The routes above for `GET /openapi.json`. */
export const checkpointPaths: Record<string, unknown> = {
  "/thread/{id}/checkpoints": {
    get: {
      summary: "The thread's checkpoints (one per turn that changed files), oldest first",
      parameters: [idParam],
      responses: { "200": reply("Checkpoints"), "401": refusals["401"], "404": refusals["404"] },
    },
  },
  "/thread/{id}/undo": {
    post: {
      summary: "Undo the file changes of the last turn (or turnId), after asking the user",
      parameters: [idParam],
      requestBody: jsonBody(RestoreBody),
      responses: { "200": reply("Applied or cancelled"), ...refusals },
    },
  },
  "/thread/{id}/redo": {
    post: {
      summary: "Re-apply the file changes of the earliest undone turn (or turnId), after asking the user",
      parameters: [idParam],
      requestBody: jsonBody(RestoreBody),
      responses: { "200": reply("Applied or cancelled"), ...refusals },
    },
  },
  "/thread/{id}/fork": {
    post: {
      summary:
        "A new thread with the history through item itemId or turn turnId (default: all), same settings",
      parameters: [idParam],
      requestBody: jsonBody(ForkBody),
      responses: { "201": reply("The new thread"), ...refusals },
    },
  },
  "/thread/{id}/rewind": {
    post: {
      summary: "Cut the history before turn turnId (archived as a fork); restoreCode undoes its files too",
      parameters: [idParam],
      requestBody: jsonBody(RewindBody),
      responses: { "200": reply("Rewound or cancelled"), ...refusals },
    },
  },
};
