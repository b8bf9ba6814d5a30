/**
 * Shell tools `exec_command` and `write_stdin` (requirements T1, T2).
 *
 * Contract of both tools:
 * - Waits for exit up to the yield time, measured as *active* time (`ctx.pause`, requirements Q9):
 *   time the thread spends waiting on the user does not count. A process that outlives the
 *   yield stays alive as a session in `ExecSessions`; its output so far is returned.
 * - Output is merged stdout+stderr; secrets are masked (`ctx.secrets.mask`) before anything
 *   is streamed (`ctx.onUpdate`, whole lines), truncated or returned, and never shown cut in
 *   two across reads (masking.ts). See format.ts.
 * - `success` is false only when the tool itself failed (bad workdir, missing shell, unknown
 *   session, write to an exited session); a non-zero exit code is a valid output.
 * - On `ctx.signal` abort while waiting, the command's whole process tree is killed (its
 *   session removed) and an AbortError is thrown; the registry records the call "aborted".
 * - Safety (requirements A1–A3, see gate.ts): every command runs under the OS sandbox of
 *   `ctx.safety.sandbox` unless the user approved an escalation for it; approvals go through
 *   `ctx.safety.requestApproval`. A declined command returns a clear "declined" output; a
 *   cancelled one throws AbortError (the runtime interrupts the turn).
 */
import { AbortError, abortsNow } from "../../util/abort.js";
import { randomIds } from "../../util/ids.js";
import { defineTool, type FunctionTool, type ToolContext, type ToolResult } from "../types.js";
import type { EnvPolicy } from "./env-policy.js";
import { renderChunk } from "./format.js";
import { gateCommand } from "./gate.js";
import { buildEnv, resolveShell, resolveWorkdir } from "./launch.js";
import { maskedStream, takeOutput } from "./masking.js";
import { type ExecProcess, spawnProcess } from "./process.js";
import {
  EXEC_COMMAND_DESCRIPTION,
  EXEC_COMMAND_WIRE,
  ExecCommandArgs,
  LIMITS,
  outputTokens,
  WRITE_STDIN_DESCRIPTION,
  WriteStdinArgs,
  writeStdinWire,
  yieldMs,
} from "./schema.js";
import type { ExecSessions } from "./sessions.js";

export { EXEC_COMMAND_WIRE, ExecCommandArgs, WriteStdinArgs } from "./schema.js";
export { ExecSessions } from "./sessions.js";

export interface ExecToolsOptions {
  sessions: ExecSessions;
  /** Chunk ids for the `Chunk ID:` header (default: 6 random hex chars). */
  chunkId?: () => string;
  /** Default shell when the call names none (then `$SHELL`, then /bin/bash). */
  shell?: string;
  /** Which of process.env commands see (default: DEFAULT_ENV_POLICY; see env-policy.ts). */
  envPolicy?: EnvPolicy;
  /** Extra environment for every command (after the filtered process.env, before secrets). */
  env?: Record<string, string>;
}

type Display = NonNullable<ToolResult["display"]>;

function failure(message: string, extra: Record<string, unknown> = {}): ToolResult {
  const display: Display = { aggregated_output: message, exit_code: null, status: "failed", ...extra };
  return { output: message, success: false, display };
}

/** Fields of the exec_command arguments that are recorded but not enforced. */
function approvalFields(args: ExecCommandArgs): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (args.sandbox_permissions !== undefined) out.sandbox_permissions = args.sandbox_permissions;
  if (args.justification !== undefined) out.justification = args.justification;
  if (args.prefix_rule !== undefined) out.prefix_rule = args.prefix_rule;
  return out;
}

/**
 * Streams output while waiting up to `ms` active time for exit.
 * On abort: `onAbort()`, kill the tree, throw AbortError carrying `partial()` — the output so
 * far and the interruption note, which the registry records as the call's output.
 */
async function waitForYield(
  proc: ExecProcess,
  ctx: ToolContext,
  ms: number,
  onAbort: () => void,
  partial: (exitedBefore: boolean, by: string) => ToolResult,
): Promise<void> {
  const stream = maskedStream(ctx, proc);
  proc.listener = stream.listener;
  try {
    await ctx.pause.waitActive(ms, { signal: ctx.signal, wake: proc.exited });
    // Exited right at the deadline: wait out the (≤100 ms) drain so the output is complete.
    if (!ctx.signal.aborted && proc.exitCode !== null) await proc.exited;
  } finally {
    if (proc.listener === stream.listener) proc.listener = undefined;
    stream.flush();
  }
  if (ctx.signal.aborted) {
    onAbort();
    const exitedBefore = proc.exitCode !== null;
    await proc.kill(abortsNow(ctx.signal) ? 0 : undefined);
    throw new AbortError(
      "interrupted; the command's process tree was killed",
      partial(exitedBefore, stoppedBy(ctx.signal)),
    );
  }
}

/**
 * Who stopped a turn, from its abort reason (runtime/thread.ts, runtime/core.ts): Tandem's
 * shutdown, a hand-over to another process (AbortNow), or else the user (Esc, Ctrl-C, an
 * approval's Cancel, an interrupt request).
 */
function stoppedBy(signal: AbortSignal): string {
  const reason = signal.reason;
  if (reason === "shutdown") return "Tandem shutting down";
  if (abortsNow(signal)) return `Tandem (${String(reason)})`;
  return "the user";
}

export function createExecTools(opts: ExecToolsOptions): {
  execCommand: FunctionTool;
  writeStdin: FunctionTool;
} {
  const { sessions } = opts;
  const chunkId = opts.chunkId ?? randomIds.chunk;

  /**
   * Text + display for the output collected since the last read. `interrupted`: the user
   * stopped the turn (the process is killed); `exitedBefore` says it had already exited.
   */
  function report(
    proc: ExecProcess,
    ctx: ToolContext,
    started: number,
    maxTokens: number,
    sessionId?: number,
    interrupted?: { exitedBefore: boolean; by: string },
  ) {
    const exitCode = proc.finished || interrupted ? proc.exitCode : null;
    const rendered = renderChunk({
      chunkId: chunkId(),
      wallMs: performance.now() - started,
      exitCode,
      sessionId,
      raw: takeOutput(proc, ctx.secrets),
      maxTokens,
      mask: (t) => ctx.secrets.mask(t),
      ...(interrupted ? { interrupted } : {}),
    });
    const display: Display = {
      aggregated_output: rendered.output,
      exit_code: exitCode,
      status: interrupted ? "failed" : exitCode === null || exitCode === 0 ? "completed" : "failed",
    };
    if (interrupted) display.interrupted = true;
    if (sessionId !== undefined) display.session_id = sessionId;
    return { output: rendered.text, success: true, display } satisfies ToolResult;
  }

  const execCommand = defineTool<ExecCommandArgs>({
    kind: "function",
    name: "exec_command",
    description: EXEC_COMMAND_DESCRIPTION,
    parameters: ExecCommandArgs,
    wireParameters: EXEC_COMMAND_WIRE as unknown as Record<string, unknown>,
    displayStart(args, callId) {
      const cmd = (args as Partial<ExecCommandArgs> | undefined)?.cmd;
      return {
        id: callId,
        type: "command_execution",
        command: typeof cmd === "string" ? cmd : "",
        aggregated_output: "",
        exit_code: null,
        status: "in_progress",
      };
    },
    async execute(args, ctx) {
      const started = performance.now();
      if (ctx.signal.aborted) throw new AbortError();
      const recorded = approvalFields(args);
      const cwd = await resolveWorkdir(ctx.cwd, args.workdir);
      if (!cwd.ok) return failure(cwd.error, recorded);
      const shell = await resolveShell(
        args.shell ?? opts.shell ?? process.env.SHELL ?? "/bin/bash",
        cwd.path,
      );
      if (!shell.ok) return failure(shell.error, recorded);

      const gate = await gateCommand(args, cwd.path, ctx);
      if (gate.kind === "refuse")
        return {
          ...failure(gate.message, recorded),
          display: { ...recorded, aggregated_output: gate.message, exit_code: null, status: gate.status },
        };

      let proc: ExecProcess;
      try {
        proc = await spawnProcess({
          command: args.cmd,
          shell: shell.path,
          cwd: cwd.path,
          env: buildEnv(opts.envPolicy, opts.env ?? {}, ctx.secrets.env()),
          tty: args.tty === true,
          wrap: gate.wrap,
        });
      } catch (err) {
        return failure((err as Error).message, recorded);
      }
      sessions.track(proc);
      const maxTokens = outputTokens(args.max_output_tokens);
      try {
        await waitForYield(
          proc,
          ctx,
          yieldMs(args.yield_time_ms, LIMITS.execYieldMs),
          () => {},
          (exitedBefore, by) => {
            const r = report(proc, ctx, started, maxTokens, undefined, { exitedBefore, by });
            return { ...r, display: { ...r.display, ...recorded } };
          },
        );
      } finally {
        sessions.untrack(proc);
      }
      if (proc.finished) {
        const result = report(proc, ctx, started, maxTokens);
        return { ...result, display: { ...result.display, ...recorded } };
      }
      const { id } = sessions.add(proc);
      const result = report(proc, ctx, started, maxTokens, id);
      return { ...result, display: { ...result.display, ...recorded } };
    },
  });

  const writeStdin = defineTool<WriteStdinArgs>({
    kind: "function",
    name: "write_stdin",
    description: WRITE_STDIN_DESCRIPTION,
    parameters: WriteStdinArgs,
    wireParameters: writeStdinWire(),
    displayStart(args, callId) {
      const id = (args as Partial<WriteStdinArgs> | undefined)?.session_id;
      const session = typeof id === "number" ? sessions.get(id) : undefined;
      return {
        id: callId,
        type: "command_execution",
        command: session?.proc.command ?? `write_stdin ${String(id)}`,
        aggregated_output: "",
        exit_code: null,
        status: "in_progress",
        ...(typeof id === "number" ? { session_id: id } : {}),
      };
    },
    async execute(args, ctx) {
      if (ctx.signal.aborted) throw new AbortError();
      const id = args.session_id;
      const session = sessions.get(id);
      if (!session) return failure(sessions.describeMissing(id), { session_id: id });
      return sessions.withLock(session, async () => {
        const started = performance.now();
        const { proc } = session;
        const chars = args.chars ?? "";
        if (chars.length > 0) {
          if (proc.exitCode !== null) {
            return failure(
              `write_stdin failed: session ${id} already exited with code ${proc.exitCode}; ` +
                "call write_stdin with empty chars to read its remaining output",
              { session_id: id },
            );
          }
          try {
            await proc.write(chars);
          } catch (err) {
            return failure(`write_stdin failed for session ${id}: ${(err as Error).message}`, {
              session_id: id,
            });
          }
        }
        if (!proc.finished) {
          await waitForYield(
            proc,
            ctx,
            yieldMs(args.yield_time_ms, LIMITS.writeYieldMs),
            () => sessions.remove(id, "it was killed when its turn was interrupted"),
            (exitedBefore, by) =>
              report(proc, ctx, started, outputTokens(args.max_output_tokens), id, { exitedBefore, by }),
          );
        }
        const result = report(proc, ctx, started, outputTokens(args.max_output_tokens), id);
        if (proc.finished) {
          sessions.remove(
            id,
            `it exited with code ${proc.exitCode} and its final output was already returned`,
          );
        }
        return result;
      });
    },
  });

  return { execCommand, writeStdin };
}
