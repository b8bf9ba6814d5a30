/**
 * Codex `turn/*` methods: start, steer, interrupt.
 *
 * Contract:
 * - `turn/start` maps Codex's `collaborationMode` (`{mode, settings: {model, reasoning_effort}}`)
 *   onto Tandem's turn options: mode → TurnOptions.mode (Plan mode is where the model may ask),
 *   settings.model/reasoning_effort win over the top-level `model`/`effort`. An effort Tandem does not
 *   know is ignored with a `warning` notification; `developer_instructions` is not supported (ignored).
 * - `approvalPolicy`, `sandboxPolicy` and `permissions` (a profile) hold for this turn and the thread's next ones, as in Codex:
 *   they are stored with the thread (safety.ts) before the turn starts.
 * - Starting a turn attaches the connection to the thread (a stored thread is opened first).
 *   A thread that already runs a turn refuses with -32003: steer it or interrupt it.
 * - `turn/steer` and `turn/interrupt` name the turn they expect; any other turn → -32003, except
 *   that interrupting a turn of the thread that already ended answers `{}` (nothing left to stop).
 *   The interrupted turn ends `interrupted` (its pending questions are cancelled by the core).
 */
import { readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import {
  TurnInterruptParams,
  TurnStartParams,
  TurnSteerParams,
  type UserInput,
} from "../../protocol/app-server.js";
import { TurnOptions } from "../../protocol/ops.js";
import { ThreadInUseError } from "../../runtime/errors.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import type { ServerContext } from "./context.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { applySafety, safetyPatch } from "./safety.js";
import { inUseOr, requireThread } from "./threads.js";

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
};

function invalid(name: string, message: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, `invalid params for ${name}: ${message}`);
}

/** Text (joined by newlines), image URLs and skill names of Codex user input. */
export function userInput(
  name: string,
  input: UserInput[],
): { text: string; images: string[]; skills: string[] } {
  const texts: string[] = [];
  const images: string[] = [];
  const skills: string[] = [];
  input.forEach((item, i) => {
    if (item.type === "text") texts.push(item.text);
    else if (item.type === "image") images.push(item.url);
    else if (item.type === "skill") skills.push(item.name);
    else {
      const mime = IMAGE_TYPES[extname(item.path).toLowerCase()];
      if (!mime) throw invalid(name, `input.${i}.path: ${item.path} is not a png, gif, webp or jpeg image`);
      try {
        images.push(`data:${mime};base64,${readFileSync(item.path).toString("base64")}`);
      } catch (err) {
        throw invalid(name, `input.${i}.path: cannot read ${item.path}: ${(err as Error).message}`);
      }
    }
  });
  // A turn of skills alone names them, so the message says what was asked.
  const text = texts.join("\n") || skills.map((s) => `$${s}`).join(" ");
  if (text.trim() === "" && images.length === 0) throw invalid(name, "input: no text or image to send");
  return { text, images, skills };
}

function loadedThread(server: ServerContext, threadId: string): Thread {
  requireThread(server, threadId);
  const thread = server.runtime.threads.get(threadId);
  if (!thread?.active)
    throw new RpcError(
      ErrorCode.TurnConflict,
      `thread ${threadId} has no running turn; start one with turn/start`,
      {
        threadId,
      },
    );
  return thread;
}

function expectTurn(thread: Thread, turnId: string): void {
  const active = thread.active!;
  if (active.id !== turnId)
    throw new RpcError(
      ErrorCode.TurnConflict,
      `turn ${turnId} is not running on thread ${thread.id}; the running turn is ${active.id}`,
      { threadId: thread.id, activeTurnId: active.id },
    );
}

const start = method(TurnStartParams, ({ server, session }: Ctx, p) => {
  requireThread(server, p.threadId);
  const { text, images, skills } = userInput("turn/start", p.input);
  const settings = p.collaborationMode?.settings;
  const effortText = settings?.reasoning_effort ?? p.effort ?? undefined;
  const effort = effortText === undefined ? undefined : TurnOptions.shape.effort.safeParse(effortText);
  if (effort && !effort.success)
    session.notify("warning", {
      threadId: p.threadId,
      message: `reasoning effort "${effortText}" is not supported by Tandem (minimal, low, medium, high, xhigh); the thread's effort is used`,
    });
  const options: TurnOptions = {
    ...(p.collaborationMode ? { mode: p.collaborationMode.mode } : {}),
    ...((settings?.model ?? p.model) ? { model: settings?.model ?? p.model ?? undefined } : {}),
    ...(effort?.success && effort.data ? { effort: effort.data } : {}),
    ...(p.cwd ? { cwd: resolve(p.cwd) } : {}),
    ...(p.outputSchema ? { output_schema: p.outputSchema } : {}),
  };
  const safety = safetyPatch(p, "turn/start");
  const attached = session.attach(p.threadId);
  try {
    const thread = server.runtime.threads.open(p.threadId);
    if (thread.active)
      throw new RpcError(
        ErrorCode.TurnConflict,
        `thread ${p.threadId} already runs turn ${thread.active.id}; steer it with turn/steer or stop it with turn/interrupt`,
        { threadId: p.threadId, activeTurnId: thread.active.id },
      );
    applySafety(server.runtime, thread, safety);
    const turn = thread.startTurn(text, { images, options, ...(skills.length ? { skills } : {}) });
    return { turn: server.mapper.liveTurn(turn.id) };
  } catch (err) {
    if (attached && !server.runtime.threads.get(p.threadId)) session.detach(p.threadId);
    throw err instanceof ThreadInUseError ? inUseOr(err, ErrorCode.ThreadInUse, p.threadId) : err;
  }
});

/**
 * A thread another cluster node runs (docs/scale-out.md): the op goes to that node and its answer comes
 * back as this method's. The turn id is checked against the store's running turn first.
 */
function remote(
  server: ServerContext,
  name: string,
  threadId: string,
  turnId: string,
  op: "steer" | "interrupt",
  body: Record<string, unknown>,
): Promise<{ status: number; body: any }> | undefined {
  if (server.runtime.threads.get(threadId)) return undefined;
  const running = server.runtime.threads.turns(threadId).findLast((t) => t.status === "running");
  if (!running) return undefined;
  const pending = server.runtime.turns.remote(threadId, op, body);
  if (!pending) return undefined;
  if (running.id !== turnId)
    throw new RpcError(
      ErrorCode.TurnConflict,
      `turn ${turnId} is not running on thread ${threadId}; the running turn is ${running.id}`,
      { threadId, activeTurnId: running.id },
    );
  return pending.then((r) => {
    if (r.status < 300) return r;
    const message = r.body?.error?.message ?? `the node running thread ${threadId} answered ${r.status}`;
    const code = r.status === 409 ? ErrorCode.TurnConflict : ErrorCode.InternalError;
    throw new RpcError(code, `${name}: ${message}`, { threadId });
  });
}

const steer = method(TurnSteerParams, ({ server }: Ctx, p) => {
  const { text: steerText, images: steerImages } = userInput("turn/steer", p.input);
  if (!steerImages.length) {
    const forwarded = remote(server, "turn/steer", p.threadId, p.expectedTurnId, "steer", {
      text: steerText,
    });
    if (forwarded) return forwarded.then((r) => ({ turnId: r.body.turn_id as string }));
  }
  const thread = loadedThread(server, p.threadId);
  expectTurn(thread, p.expectedTurnId);
  const { text, images } = userInput("turn/steer", p.input);
  if (images.length)
    throw invalid("turn/steer", "input: images cannot be added to a running turn; send text");
  return { turnId: thread.steer(text).turnId };
});

/** Whether `turnId` is a turn of the thread that already ended (stored, not running). */
function endedTurn(server: ServerContext, threadId: string, turnId: string): boolean {
  if (server.runtime.threads.get(threadId)?.active?.id === turnId) return false;
  return server.runtime.threads.turns(threadId).some((t) => t.id === turnId && t.status !== "running");
}

const interrupt = method(TurnInterruptParams, ({ server }: Ctx, p) => {
  requireThread(server, p.threadId);
  // Interrupting a turn that just ended (a Ctrl+C racing turn/completed) is done already.
  if (endedTurn(server, p.threadId, p.turnId)) return {};
  const forwarded = remote(server, "turn/interrupt", p.threadId, p.turnId, "interrupt", {});
  if (forwarded) return forwarded.then(() => ({}));
  const thread = loadedThread(server, p.threadId);
  expectTurn(thread, p.turnId);
  thread.interrupt("interrupted by client");
  return {};
});

export const TURN_METHODS: Record<string, Method<any>> = {
  "turn/start": start,
  "turn/steer": steer,
  "turn/interrupt": interrupt,
};
