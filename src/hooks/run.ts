/**
 * Runs one command hook on the host (not in the sandbox) through host/run.ts `runHost`:
 * `/bin/sh -c <command>` with the event's JSON on stdin, the thread's cwd, the environment the
 * caller built (the environment policy: no provider keys, no secrets), a deadline of the hook's
 * `timeout` seconds (the whole process group is killed), and bounded output.
 *
 * What a run means, as in Claude Code's hooks reference:
 * - exit 0: stdout may hold a JSON object (decisions, below); other stdout is plain text.
 * - exit 2: a blocking error; stderr is the reason (what the model or user is told depends on
 *   the event, engine.ts).
 * - any other exit, a crash, a timeout, output over the bound, or stdout that starts like JSON
 *   but does not parse: a failure that is reported (`warning`) and otherwise ignored.
 *
 * Contract: `runHook` never throws or rejects.
 */
import { runHost } from "../host/run.js";
import type { HookDef } from "./types.js";

/** Most bytes kept of a hook's stdout and stderr together; more is a failure. */
export const MAX_HOOK_OUTPUT = 256 * 1024;

export interface HookRun {
  hook: HookDef;
  /** The parsed JSON object a hook printed on stdout with exit 0. */
  json?: Record<string, unknown>;
  /** Plain stdout (exit 0, not JSON), trimmed. */
  text?: string;
  /** Exit 2: stderr (trimmed), the reason for blocking. */
  blocked?: string;
  /** Why the hook failed (reported; never blocks). */
  warning?: string;
}

export interface RunHookOptions {
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
}

const SHELL = "/bin/sh";

const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Runs `hook` with `input` on stdin (see the module contract). */
export async function runHook(hook: HookDef, input: unknown, opts: RunHookOptions): Promise<HookRun> {
  const name = `hook \`${clip(hook.command, 120)}\` (${hook.event})`;
  const r = await runHost(SHELL, {
    args: ["-c", hook.command],
    cwd: opts.cwd,
    env: opts.env,
    timeoutMs: Math.round(hook.timeoutSec * 1000),
    maxOutputBytes: MAX_HOOK_OUTPUT,
    input: JSON.stringify(input),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (r.error?.kind === "timeout")
    return { hook, warning: `${name} did not finish within ${hook.timeoutSec} s and was killed; ignored` };
  if (r.error) return { hook, warning: `${name} failed: ${r.error.message}; ignored` };
  if (r.dropped > 0)
    return {
      hook,
      warning: `${name} printed more than ${MAX_HOOK_OUTPUT} bytes of output; its output is ignored`,
    };
  if (r.code === 2) return { hook, blocked: r.stderr.trim() || `blocked by ${name}` };
  if (r.code !== 0) {
    const why = r.code === null ? `was killed by ${r.signal ?? "a signal"}` : `exited with status ${r.code}`;
    const err = r.stderr.trim();
    return { hook, warning: `${name} ${why}${err ? `: ${clip(err)}` : ""}; ignored` };
  }
  const out = r.stdout.trim();
  if (!out) return { hook };
  if (out.startsWith("{") || out.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(out);
    } catch (err) {
      return {
        hook,
        warning: `${name} printed invalid JSON on stdout (${(err as Error).message}); its output is ignored`,
      };
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      return { hook, warning: `${name} printed JSON that is not an object; its output is ignored` };
    return { hook, json: parsed as Record<string, unknown> };
  }
  return { hook, text: out };
}
