/**
 * Codex `thread/shellCommand` (README "Your own commands: `!`"): params `{threadId, command,
 * timeoutMs?}`, result `{}` at once. The command is the user's own: it runs through
 * `runtime.turns.shell` as a turn of its own, with full access and no approval (as Codex: "runs
 * unsandboxed with full access"), streamed as a `commandExecution` item (`turn/started`,
 * `item/started`, `item/commandExecution/outputDelta`, `item/completed`, `turn/completed`), and
 * recorded in the thread's history, so `thread/read` shows it and the model's next request
 * carries it. Like `turn/start`, it attaches the connection and opens a stored thread; a running
 * turn is a conflict (TurnConflict, -32003).
 */
import * as z from "zod";
import { ThreadInUseError } from "../../runtime/errors.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { inUseOr, requireThread } from "./threads.js";

export const ThreadShellCommandParams = z.object({
  threadId: z.string(),
  command: z.string(),
  timeoutMs: z.number().int().nonnegative().nullable().optional(),
});

const shellCommand = method(ThreadShellCommandParams, ({ server, session }: Ctx, p) => {
  if (p.command.trim() === "")
    throw new RpcError(ErrorCode.InvalidParams, "invalid params: command is empty");
  requireThread(server, p.threadId);
  const attached = session.attach(p.threadId);
  try {
    const thread = server.runtime.threads.open(p.threadId);
    if (thread.active)
      throw new RpcError(
        ErrorCode.TurnConflict,
        `thread ${p.threadId} already runs turn ${thread.active.id}; wait for it or stop it with turn/interrupt`,
        { threadId: p.threadId, activeTurnId: thread.active.id },
      );
    server.runtime.turns.shell(p.threadId, p.command, { timeoutMs: p.timeoutMs ?? null });
    return {};
  } catch (err) {
    if (attached && !server.runtime.threads.get(p.threadId)) session.detach(p.threadId);
    throw err instanceof ThreadInUseError ? inUseOr(err, ErrorCode.ThreadInUse, p.threadId) : err;
  }
});

export const SHELL_COMMAND_METHODS: Record<string, Method<any>> = { "thread/shellCommand": shellCommand };
