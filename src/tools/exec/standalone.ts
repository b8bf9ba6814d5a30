/**
 * One command run for a client outside any turn (the app server's `command/exec`), with the same
 * machinery as `exec_command`: the environment policy (env-policy.ts, launch.ts `buildEnv`), the
 * bubblewrap sandbox of `policy` (sandbox.ts), the process-group kill (process.ts).
 *
 * Contract:
 * - `argv` is run exactly (each word quoted for `/bin/sh -c`), in `cwd`, under `policy`; a sandbox
 *   that cannot be had is refused (`StandaloneError`), never silently skipped.
 * - `env` reaches the command inside the sandbox only (bwrap `--setenv`), never the host-side
 *   launcher (so `LD_PRELOAD` cannot load a workspace file outside the sandbox).
 * - stdout and stderr are kept apart, each capped at `outputCap` bytes (when set; `capReached`
 *   says a stream was cut) and passed to `onOutput` as they arrive.
 * - `timeoutMs` (when set) and `signal` kill the whole process group; the result's exit code is
 *   then the shell's (124 on timeout, as `timeout(1)`, when the process had none).
 * - The handle's `terminate()` kills it; `write()` sends text to its stdin.
 */

import type { EnvPolicy } from "./env-policy.js";
import { buildEnv } from "./launch.js";
import { type ExecProcess, type OutputStream, spawnProcess } from "./process.js";
import { type SandboxPolicy, sandboxWrap } from "./sandbox.js";

export class StandaloneError extends Error {
  override name = "StandaloneError";
}

export interface StandaloneOptions {
  argv: string[];
  cwd: string;
  policy: SandboxPolicy;
  envPolicy?: EnvPolicy;
  /** Variables over the policy's environment; `null` unsets one. */
  env?: Record<string, string | null>;
  timeoutMs?: number;
  outputCap?: number;
  onOutput?(stream: OutputStream, chunk: string, capReached: boolean): void;
}

export interface StandaloneResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface StandaloneHandle {
  result: Promise<StandaloneResult>;
  write(text: string): Promise<void>;
  terminate(): Promise<void>;
}

const quote = (word: string) =>
  /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;

/** Starts `argv`; rejects with StandaloneError when it cannot start (no sandbox, bad cwd). */
export async function runStandalone(opts: StandaloneOptions): Promise<StandaloneHandle> {
  if (opts.argv.length === 0) throw new StandaloneError("command must not be empty");
  const wrap = sandboxWrap(opts.policy, opts.cwd);
  if (!wrap.ok) throw new StandaloneError(wrap.error);
  const env = buildEnv(opts.envPolicy);
  // Under a sandbox the launcher (the fd-3 trampoline and bwrap) runs on the host: the client's
  // variables go to the command only (bwrap --setenv), or LD_PRELOAD naming a file the model
  // wrote would run it unsandboxed. Unset ones are dropped from the launcher's, so from both.
  const inner: string[] = [];
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === null) delete env[k];
    else if (wrap.wrap) inner.push("--setenv", k, v);
    else env[k] = v;
  }
  const sandboxed = wrap.wrap && [...wrap.wrap.slice(0, -1), ...inner, ...wrap.wrap.slice(-1)];
  let proc: ExecProcess;
  try {
    proc = await spawnProcess({
      command: opts.argv.map(quote).join(" "),
      shell: "/bin/sh",
      cwd: opts.cwd,
      env,
      tty: false,
      ...(sandboxed ? { wrap: sandboxed } : {}),
    });
  } catch (err) {
    throw new StandaloneError((err as Error).message);
  }
  const out = { stdout: "", stderr: "" };
  const capped = { stdout: false, stderr: false };
  proc.listener = (stream, chunk) => {
    let text = chunk;
    if (opts.outputCap !== undefined) {
      const room = opts.outputCap - Buffer.byteLength(out[stream]);
      if (room <= 0) {
        capped[stream] = true;
        return;
      }
      if (Buffer.byteLength(text) > room) {
        text = Buffer.from(text).subarray(0, room).toString("utf8");
        capped[stream] = true;
      }
    }
    out[stream] += text;
    opts.onOutput?.(stream, text, capped[stream]);
  };
  let timedOut = false;
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          void proc.kill();
        }, opts.timeoutMs);
  const result = proc.exited.then(
    async (code) => {
      if (timer) clearTimeout(timer);
      await proc.killLeftovers();
      return { exitCode: timedOut && code === 0 ? 124 : code, ...out, timedOut };
    },
    (err) => {
      if (timer) clearTimeout(timer);
      throw err;
    },
  );
  return { result, write: (text) => proc.write(text), terminate: () => proc.kill() };
}
