/**
 * The user's own shell command (`!cmd` in the TUI and the web composer, app-server
 * `thread/shellCommand`; README "Your own commands: `!`"). As in Codex, it is what the user
 * typed, so it runs with full access — no sandbox, no approval — in the thread's directory with
 * the thread's shell environment policy, up to `timeoutMs` (default one hour) of active time.
 *
 * Contract: never throws for a command that could not run (bad directory, missing shell): the
 * result says why (`exitCode` null, `error`). Output is merged stdout+stderr, streamed through
 * `ctx.onUpdate` masked (masking.ts) and returned masked and truncated like `exec_command`'s. On
 * `ctx.signal` abort the whole process tree is killed and the result is `interrupted` with the
 * output printed so far; on the timeout likewise `timedOut`.
 */
import type { UserCommandOutcome } from "../../protocol/user-command.js";
import { AbortError } from "../../util/abort.js";
import { truncateMiddle } from "../../util/truncate.js";
import type { ToolContext } from "../types.js";
import type { EnvPolicy } from "./env-policy.js";
import { buildEnv, resolveShell, resolveWorkdir } from "./launch.js";
import { maskedStream, takeOutput } from "./masking.js";
import { type ExecProcess, spawnProcess } from "./process.js";
import { LIMITS } from "./schema.js";

/** One hour, Codex's default for `thread/shellCommand`. */
export const USER_COMMAND_TIMEOUT_MS = 60 * 60 * 1000;

/** `output` is masked and truncated to the model's budget; `error`: why it did not run at all. */
export type UserCommandResult = UserCommandOutcome;

export async function runUserCommand(
  command: string,
  ctx: Pick<ToolContext, "cwd" | "signal" | "secrets" | "pause" | "onUpdate">,
  opts: { envPolicy?: EnvPolicy; timeoutMs?: number | null; shell?: string } = {},
): Promise<UserCommandResult> {
  const started = performance.now();
  const base = { command, interrupted: false, timedOut: false };
  const failed = (error: string): UserCommandResult => ({
    ...base,
    output: error,
    exitCode: null,
    wallMs: performance.now() - started,
    error,
  });
  const cwd = await resolveWorkdir(ctx.cwd, undefined);
  if (!cwd.ok) return failed(cwd.error);
  const shell = await resolveShell(opts.shell ?? process.env.SHELL ?? "/bin/bash", cwd.path);
  if (!shell.ok) return failed(shell.error);
  let proc: ExecProcess;
  try {
    proc = await spawnProcess({
      command,
      shell: shell.path,
      cwd: cwd.path,
      env: buildEnv(opts.envPolicy, ctx.secrets.env()),
      tty: false,
    });
  } catch (err) {
    return failed((err as Error).message);
  }
  const stream = maskedStream(ctx as ToolContext, proc);
  proc.listener = stream.listener;
  const timeoutMs = Math.max(0, opts.timeoutMs ?? USER_COMMAND_TIMEOUT_MS);
  let interrupted = false;
  try {
    await ctx.pause.waitActive(timeoutMs, { signal: ctx.signal, wake: proc.exited });
  } catch (err) {
    if (!AbortError.isInstance(err) && !ctx.signal.aborted) throw err;
  }
  interrupted = ctx.signal.aborted;
  const timedOut = !interrupted && proc.exitCode === null;
  if (interrupted || timedOut) await proc.kill();
  else await proc.exited;
  proc.listener = undefined;
  stream.flush();
  const raw = takeOutput(proc, ctx.secrets);
  const cleaned = ctx.secrets.mask(raw.text).replace(/[\r\n]+$/, "");
  const out = truncateMiddle(cleaned, LIMITS.outputTokens, { omittedBytes: raw.omittedBytes });
  return {
    ...base,
    output: out.text,
    exitCode: proc.exitCode,
    wallMs: performance.now() - started,
    interrupted,
    timedOut,
  };
}
