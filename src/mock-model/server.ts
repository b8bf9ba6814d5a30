/**
 * The scripted model server (`tandem mock-model`): plain `node:http`, one script step per
 * sampling request, on the Responses and Chat Completions wires.
 *
 * Routes:
 *   POST /v1/responses, /responses               → Responses SSE (responses-wire.ts)
 *   POST /v1/chat/completions, /chat/completions → Chat Completions SSE (chat-wire.ts)
 *   POST /v1/responses/compact, /responses/compact → server-side compaction JSON (compaction.ts)
 *   GET  /v1/responses, /responses + Upgrade      → Responses over WebSocket (responses-ws.ts)
 *   GET  /v1/models, /models                     → `{object:"list", data:[{id:model}]}`
 *   GET  /health                                 → 200 `{status:"ok"}`
 * With the script's `api_key`, every route but /health first requires `Authorization: Bearer
 * <api_key>` (else 401 `invalid_api_key`, nothing consumed or logged), WebSocket upgrades too.
 *   anything else                                → 404 OpenAI-style error JSON
 *
 * Contract of a POST to a model route, in order:
 *   1. A body that is not a JSON object → 400; no step is consumed, nothing is logged.
 *   2. The body is counted, appended to `requests` (unless `retain` is false) and, when
 *      `log` is set, to the log file as one
 *      JSON line (synchronously: it is on disk before the answer starts).
 *   3. `stream` not true → 400 (the mock only streams); no step is consumed.
 *   4. The next step is consumed (wrapping round when `loop`); none left → the script's
 *      `ended_message` as an ordinal assistant message when set, else 400
 *      "mock-model: script exhausted after N steps".
 *   5. `expect` unmet → 400 naming the step and the missing strings; then `delay_ms`;
 *      then the step's fault if any, else its output.
 * A client that disconnects stops the answer (delays and hangs end with it); `close()`
 * drops every open connection, hanging ones included.
 */
import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { log } from "../util/log.js";
import { watchHttpServer } from "../util/log-wire.js";
import { chatWire } from "./chat-wire.js";
import { compactAnswer, generatedCompactionStep, isCompactionRequest } from "./compaction.js";
import { errorBody, failedMessage, httpErrorDefaults } from "./errors.js";
import { contains, pause, unmetExpectation } from "./expect.js";
import { type AnswerContext, planStep, type Wire } from "./output.js";
import { responsesWire } from "./responses-wire.js";
import { attachResponsesWs } from "./responses-ws.js";
import { loadScriptFile, type ParsedScript, parseScript, type Script, type Step } from "./script.js";

export interface MockModelOptions {
  /** A script object, or the path of a JSON script file. */
  script: Script | string;
  /** 0 or absent = a random free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** File that receives each request body as one JSON line. */
  log?: string;
  /**
   * Keep every request body and frame in `requests`/`frames` (default true). The command
   * (`tandem mock-model`) turns it off: nobody in its process reads them, and a long session
   * would otherwise hold every prompt it was sent.
   */
  retain?: boolean;
}

export interface MockModel {
  /** Base URL for clients, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  /**
   * Every parsed request body received on a model route, in arrival order. A WebSocket
   * `response.create` appears as its logical body (responses-ws.ts), as HTTP would send it.
   * Empty when `retain` is false.
   */
  requests: unknown[];
  /** Every WebSocket frame received, as sent (`previous_response_id` and the input tail). */
  frames: unknown[];
  /** Number of steps consumed so far (the index of the next step unless looping). */
  stepIndex(): number;
  /** Stops listening and drops open connections. Resolves when the server is closed. */
  close(): Promise<void>;
}

type Body = Record<string, unknown>;
export type HttpFault = Extract<NonNullable<Step["fault"]>, { type: "http" }>;

/** The step that answers a request, or why none does. */
export type Routed =
  | { error: { message: string; code: string } }
  | { step: Step; label: number | string; ctx: AnswerContext };

const WIRES: Record<string, Wire> = {
  "/v1/responses": responsesWire,
  "/responses": responsesWire,
  "/v1/chat/completions": chatWire,
  "/chat/completions": chatWire,
};

/**
 * Starts the server and resolves once it listens.
 * @throws MockModelScriptError when the script is invalid; the listen error when the port is taken.
 */
export async function startMockModel(opts: MockModelOptions): Promise<MockModel> {
  const script: ParsedScript =
    typeof opts.script === "string" ? loadScriptFile(opts.script) : parseScript(opts.script);
  const host = opts.host ?? "127.0.0.1";
  const requests: unknown[] = [];
  const frames: unknown[] = [];
  let served = 0;
  let received = 0;
  const retain = opts.retain ?? true;
  // Steps marked `compaction` answer compaction requests (./compaction.ts), outside the sequence.
  const compactionSteps = script.steps.filter((st) => st.compaction);
  const sequence = compactionSteps.length ? script.steps.filter((st) => !st.compaction) : script.steps;

  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, errorBody(`mock-model: internal error: ${String(err)}`, "server_error"));
    });
  });
  watchHttpServer(server, "mock-model");

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (req.method === "POST" && (path === "/v1/responses/compact" || path === "/responses/compact"))
      return compactRoute(req, res);
    if (script.api_key !== undefined && path !== "/health" && !authorized(req, script.api_key)) {
      req.resume();
      return badRequest(
        res,
        "mock-model: missing or wrong API key (Authorization: Bearer …)",
        "invalid_api_key",
        401,
      );
    }
    const wire = req.method === "POST" ? WIRES[path] : undefined;
    if (!wire) {
      req.resume();
      if (req.method === "GET" && path === "/health") return sendJson(res, 200, { status: "ok" });
      if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
        const data = [{ id: script.model ?? "mock-model", object: "model", created: 0, owned_by: "tandem" }];
        return sendJson(res, 200, { object: "list", data });
      }
      return badRequest(res, `mock-model: no route for ${req.method} ${path}`, "not_found", 404);
    }
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (err) {
      return badRequest(
        res,
        `mock-model: request body is not valid JSON: ${(err as Error).message}`,
        "invalid_json",
      );
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return badRequest(res, "mock-model: request body must be a JSON object", "invalid_json");
    }
    record(body as Body);
    const fields = body as Body;
    if (fields.stream !== true) {
      return badRequest(
        res,
        "mock-model: only streaming requests are served; set stream: true",
        "stream_required",
      );
    }
    const routed = route(fields, raw);
    if ("error" in routed) return badRequest(res, routed.error.message, routed.error.code);
    await play(res, wire, routed.step, routed.label, routed.ctx, fields, raw);
  }

  /** Picks the step that answers a request (side step, compaction step, or the next in sequence). */
  function route(fields: Body, raw: string): Routed {
    const model = script.model ?? (typeof fields.model === "string" ? fields.model : "mock-model");
    const createdAt = Math.floor(Date.now() / 1000);
    const side = script.side_steps.findIndex((st) =>
      st.when.input_contains.every((needle) => contains(raw, fields, needle)),
    );
    if (side >= 0) {
      const ctx: AnswerContext = { ordinal: `s${received}`, model, createdAt };
      return { step: script.side_steps[side], label: `side step ${side + 1}`, ctx };
    }
    if (isCompactionRequest(fields)) {
      const ctx: AnswerContext = { ordinal: `c${received}`, model, createdAt };
      const step = compactionSteps.shift();
      if (step) return { step, label: "compaction step", ctx };
      return { step: generatedCompactionStep(fields), label: "compaction", ctx };
    }
    const steps = sequence;
    if (served >= steps.length && !(script.loop && steps.length > 0)) {
      if (script.ended_message !== undefined) {
        served += 1;
        const ctx: AnswerContext = { ordinal: served, model, createdAt };
        const step: Step = { output: [{ type: "message", text: script.ended_message }] };
        return { step, label: steps.length + 1, ctx };
      }
      const message = `mock-model: script exhausted after ${steps.length} steps`;
      return { error: { message, code: "script_exhausted" } };
    }
    const stepNumber = (served % steps.length) + 1;
    served += 1;
    const ctx: AnswerContext = { ordinal: served, model, createdAt };
    return { step: steps[stepNumber - 1], label: stepNumber, ctx };
  }

  const record = (body: Body, frame?: unknown): void => {
    received += 1;
    log.trace("mock-model", "request body", { n: received, body, frame });
    if (retain) {
      requests.push(body);
      if (frame !== undefined) frames.push(frame);
    }
    if (opts.log) {
      appendFileSync(opts.log, `${JSON.stringify(body)}\n`);
      if (frame !== undefined) appendFileSync(`${opts.log}.frames`, `${JSON.stringify(frame)}\n`);
    }
  };
  const key = script.api_key;
  const ws = attachResponsesWs(server, {
    route,
    record,
    authorized: key === undefined ? undefined : (req) => authorized(req, key),
  });

  /**
   * POST /responses/compact (server-side compaction, ./compaction.ts): a JSON answer built from the
   * next `compaction: true` step (its http fault, or its message as the summary) or generated; it
   * takes no step of the sequence. The body is recorded like any request.
   */
  async function compactRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (err) {
      const message = `mock-model: request body is not valid JSON: ${(err as Error).message}`;
      return badRequest(res, message, "invalid_json");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return badRequest(res, "mock-model: request body must be a JSON object", "invalid_json");
    record(body as Body);
    const step = compactionSteps.shift();
    if (step?.fault?.type === "http") return sendHttpFault(res, step.fault);
    sendJson(res, 200, compactAnswer(body as Body, received, step));
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHost(host)}:${port}/v1`,
    port,
    requests,
    frames,
    stepIndex: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        ws.close();
      }),
  };
}

/** Plays one step onto `res`: expectation, delay, then fault or output. */
async function play(
  res: ServerResponse,
  wire: Wire,
  step: Step,
  stepNumber: number | string,
  ctx: AnswerContext,
  body: Body,
  raw: string,
): Promise<void> {
  const closed = new AbortController();
  res.once("close", () => closed.abort());
  const signal = closed.signal;
  log.debug("mock-model", "step", { step: stepNumber, fault: step.fault?.type, items: step.output?.length });

  const unmet = unmetExpectation(step, stepNumber, body, raw);
  if (unmet) return badRequest(res, unmet, "expectation_failed");
  if (step.delay_ms && !(await pause(step.delay_ms, signal))) return;

  const fault = step.fault;
  if (fault?.type === "http") return sendHttpFault(res, fault);
  const rendered =
    fault?.type === "failed"
      ? wire.failed(ctx, fault.code, fault.message ?? failedMessage(fault.code))
      : fault?.type === "hang"
        ? wire.hang(ctx)
        : wire.answer(ctx, planStep(step, ctx.ordinal, body), body);
  const frames =
    fault?.type === "cut"
      ? rendered.frames.slice(0, fault.after_events ?? rendered.terminal)
      : rendered.frames;

  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-request-id": `req_${ctx.ordinal}`,
  });
  const tokenDelay = step.token_delay_ms ?? 0;
  if (tokenDelay === 0) {
    // The fast path: the whole answer in one write (the loop benchmark runs through here).
    const text = frames.map((f) => f.text).join("");
    if (!fault) return void res.end(text);
    res.write(text);
  } else {
    res.flushHeaders();
    for (const frame of frames) {
      if (frame.delta && !(await pause(tokenDelay, signal))) return;
      res.write(frame.text);
    }
    if (!fault) return void res.end();
  }
  if (fault?.type === "cut") {
    // FIN after the written bytes, with the chunked body unterminated: the client sees the
    // stream end early (no response.completed / [DONE]) after reading every sent event.
    res.flushHeaders();
    res.socket?.end();
  } else if (fault?.type === "hang") {
    res.flushHeaders();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
  } else {
    res.end();
  }
}

function sendHttpFault(res: ServerResponse, fault: HttpFault): void {
  const headers: Record<string, string> = {};
  if (fault.retry_after !== undefined) headers["retry-after"] = String(fault.retry_after);
  if (fault.retry_after_ms !== undefined) headers["retry-after-ms"] = String(fault.retry_after_ms);
  if (typeof fault.body === "string") {
    headers["content-type"] = "text/plain; charset=utf-8";
    res.writeHead(fault.status, headers);
    return void res.end(fault.body);
  }
  const d = httpErrorDefaults(fault.status);
  const body = fault.body ?? errorBody(fault.message ?? d.message, d.type, fault.code ?? d.code);
  sendJson(res, fault.status, body, headers);
}

/** True when `req` carries `Authorization: Bearer <key>`. */
export function authorized(req: IncomingMessage, key: string): boolean {
  return req.headers.authorization === `Bearer ${key}`;
}

function badRequest(res: ServerResponse, message: string, code: string, status = 400): void {
  sendJson(res, status, errorBody(message, "invalid_request_error", code));
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The host as written in a URL: wildcard binds are reached via loopback; IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}
