/**
 * The scripted model's Responses-over-WebSocket route (requirements L13): an HTTP upgrade on
 * `/v1/responses` (or `/responses`) of the same port. Each text frame the client sends is a
 * `response.create` (the Responses body with `type` added); the answer comes back as one JSON
 * text frame per event, the same events the SSE route sends.
 *
 * Contract of one `response.create` frame, in order (frames of one socket are served one at a time):
 *   1. Not a JSON object, or not `type: "response.create"`, or `input` not an array → an
 *      `error` frame (`invalid_json` / `invalid_request`); nothing is consumed or logged.
 *   2. `previous_response_id` must name the last completed response on this socket (the
 *      server keeps nothing else, like the real service with `store: false`); otherwise an
 *      `error` frame with code `previous_response_not_found` (status 400), nothing consumed.
 *   3. The logical body is rebuilt: the frame's fields in order without `type` and
 *      `previous_response_id`, `input` = the previous request's logical input + that
 *      response's output items (in their canonical ResponseItem form, as a client stores
 *      them) + the frame's input. That body is what `requests`, the `--log` file, side steps,
 *      `expect` and `{{answer:…}}` see; the frame as sent goes to `frames` (and `<log>.frames`).
 *   4. The step is chosen exactly as for HTTP (server.ts `route`); errors that HTTP answers
 *      with a status (exhausted script, unmet `expect`, `http` faults) are an `error` frame
 *      `{type:"error", status, error:{type, code, message}}` (plus `headers` for retry-after).
 *   5. `cut` sends the first `after_events` frames and then drops the socket without a close
 *      frame (the client sees the connection lost mid-response); `hang` sends
 *      `response.created` and then nothing until the client goes away.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { ResponseItem } from "../protocol/items.js";
import { errorTypeForCode, failedMessage, httpErrorDefaults } from "./errors.js";
import { pause, unmetExpectation } from "./expect.js";
import { appendMeasured, type Frame, planStep } from "./output.js";
import { responsesWire } from "./responses-wire.js";
import type { HttpFault, Routed } from "./server.js";

type Body = Record<string, unknown>;

export interface WsDeps {
  route(fields: Body, raw: string): Routed;
  record(body: Body, frame: unknown): void;
  /** False refuses the upgrade with 401 (the script's `api_key`, server.ts). */
  authorized?(req: IncomingMessage): boolean;
}

const PATHS = new Set(["/v1/responses", "/responses"]);

/** What one socket remembers: its last completed response (the only one it can continue). */
interface Chain {
  id: string;
  input: unknown[];
  output: unknown[];
}

/** Serves WebSocket upgrades on `server`; `close()` drops every open socket. */
export function attachResponsesWs(server: Server, deps: WsDeps): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = req.url ?? "/";
    const path = url.split("?")[0];
    if (!PATHS.has(path)) {
      socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    if (deps.authorized && !deps.authorized(req)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, deps));
  });
  return {
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

function serve(ws: WebSocket, deps: WsDeps): void {
  const gone = new AbortController();
  ws.on("close", () => gone.abort());
  ws.on("error", () => gone.abort());
  const state: { last?: Chain } = {};
  let queue = Promise.resolve();
  ws.on("message", (data, isBinary) => {
    const text = isBinary ? Buffer.from(data as Buffer).toString("utf8") : String(data);
    queue = queue
      .then(() => answer(ws, text, state, deps, gone.signal))
      .catch((err: unknown) => {
        send(ws, errorFrame(500, `mock-model: internal error: ${String(err)}`, "server_error"));
      });
  });
}

function send(ws: WebSocket, value: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(typeof value === "string" ? value : JSON.stringify(value));
}

function errorFrame(status: number, message: string, code: string | null, type?: string): Body {
  return {
    type: "error",
    status,
    error: { type: type ?? (code ? errorTypeForCode(code) : "invalid_request_error"), code, message },
  };
}

/** Rebuilds the logical body of a `response.create` frame (contract step 3). */
function logicalBody(frame: Body, last: Chain | undefined): Body | { error: Body } {
  const prev = frame.previous_response_id;
  if (!Array.isArray(frame.input)) {
    return { error: errorFrame(400, "mock-model: response.create needs an input array", "invalid_request") };
  }
  let input = frame.input as unknown[];
  if (prev !== undefined && prev !== null) {
    if (!last || last.id !== prev) {
      const message = `Previous response with id '${String(prev)}' not found.`;
      return { error: errorFrame(400, message, "previous_response_not_found", "invalid_request_error") };
    }
    input = appendMeasured(last.input, [...last.output, ...input]);
  }
  const body: Body = {};
  for (const [key, value] of Object.entries(frame)) {
    if (key === "type" || key === "previous_response_id") continue;
    body[key] = key === "input" ? input : value;
  }
  return body;
}

async function answer(ws: WebSocket, text: string, state: { last?: Chain }, deps: WsDeps, gone: AbortSignal) {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch (err) {
    return send(
      ws,
      errorFrame(400, `mock-model: frame is not valid JSON: ${(err as Error).message}`, "invalid_json"),
    );
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
    return send(ws, errorFrame(400, "mock-model: a frame must be a JSON object", "invalid_json"));
  }
  const f = frame as Body;
  if (f.type !== "response.create") {
    const message = `mock-model: unsupported frame type ${JSON.stringify(f.type)}; expected "response.create"`;
    return send(ws, errorFrame(400, message, "invalid_request"));
  }
  const built = logicalBody(f, state.last);
  // A failed or unanswered request ends the chain: only a completed response can be continued.
  state.last = undefined;
  if ("error" in built) return send(ws, built.error);
  const body = built as Body;
  deps.record(body, frame);
  // No raw text over WebSocket: matching (side steps, expect) falls back to the body's own
  // serialisation, paid only by scripts that match.
  const raw = "";
  const routed = deps.route(body, raw);
  if ("error" in routed) return send(ws, errorFrame(400, routed.error.message, routed.error.code));
  const { step, label, ctx } = routed;

  const unmet = unmetExpectation(step, label, body, raw);
  if (unmet) return send(ws, errorFrame(400, unmet, "expectation_failed"));
  if (step.delay_ms && !(await pause(step.delay_ms, gone))) return;

  const fault = step.fault;
  if (fault?.type === "http") return send(ws, httpFaultFrame(fault));
  const rendered =
    fault?.type === "failed"
      ? responsesWire.failed(ctx, fault.code, fault.message ?? failedMessage(fault.code))
      : fault?.type === "hang"
        ? responsesWire.hang(ctx)
        : responsesWire.answer(ctx, planStep(step, ctx.ordinal, body), body);
  const frames =
    fault?.type === "cut"
      ? rendered.frames.slice(0, fault.after_events ?? rendered.terminal)
      : rendered.frames;
  const delay = step.token_delay_ms ?? 0;
  let completed: unknown;
  // Without a token delay the whole answer goes out in one write, as the HTTP route sends it in
  // one body: frames are still separate WebSocket messages, but the client is woken once.
  // (`_socket` is ws's own field; without it each frame is simply written on its own.)
  const socket = delay ? undefined : (ws as unknown as { _socket?: Duplex })._socket;
  socket?.cork();
  try {
    for (const fr of frames) {
      if (delay && fr.delta && !(await pause(delay, gone))) return;
      if (gone.aborted) return;
      const data = dataOf(fr);
      send(ws, data);
      if (data.startsWith('{"type":"response.completed"')) completed = JSON.parse(data);
    }
  } finally {
    socket?.uncork();
  }
  if (fault?.type === "cut") {
    ws.terminate();
    return;
  }
  if (fault?.type === "hang") {
    await new Promise<void>((resolve) => {
      if (gone.aborted) resolve();
      else gone.addEventListener("abort", () => resolve(), { once: true });
    });
    return;
  }
  const response = (completed as { response?: { id?: string; output?: unknown[] } } | undefined)?.response;
  if (response?.id) {
    const output = (response.output ?? []).map((item) => {
      const parsed = ResponseItem.safeParse(item);
      return parsed.success ? parsed.data : item;
    });
    state.last = { id: response.id, input: body.input as unknown[], output };
  }
}

/** The JSON of one SSE frame (`event: T\ndata: JSON\n\n`). */
function dataOf(frame: Frame): string {
  const at = frame.text.indexOf("data: ");
  return frame.text.slice(at + 6, frame.text.endsWith("\n\n") ? -2 : undefined);
}

function httpFaultFrame(fault: HttpFault): Body {
  const d = httpErrorDefaults(fault.status);
  const frame =
    typeof fault.body === "object" && fault.body !== null
      ? { type: "error", status: fault.status, ...(fault.body as Body) }
      : errorFrame(
          fault.status,
          typeof fault.body === "string" ? fault.body : (fault.message ?? d.message),
          fault.code ?? d.code,
          d.type,
        );
  const headers: Record<string, string> = {};
  if (fault.retry_after !== undefined) headers["retry-after"] = String(fault.retry_after);
  if (fault.retry_after_ms !== undefined) headers["retry-after-ms"] = String(fault.retry_after_ms);
  if (Object.keys(headers).length) frame.headers = headers;
  return frame;
}
