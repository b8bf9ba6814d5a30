/**
 * The one way a long-running command ends on SIGINT, SIGTERM or SIGHUP (README "Stopping Tandem"): every
 * surface (`exec`, `serve`, `app-server`, `acp`, `mcp-server`, the TUI, `mock-model`) installs
 * this and runs its own shutdown when `signal` aborts.
 *
 * Contract of `stopOnSignals(name, opts)`:
 * - The first SIGINT, SIGTERM or SIGHUP writes one line to stderr (`tandem NAME: SIGTERM received,
 *   shutting down…`), aborts `signal` (reason: the signal's name) and arms a watchdog: if the
 *   process is still alive `graceMs` later — something ignored its abort signal — it says so and
 *   exits with `exitCode`. The caller's shutdown settles what is pending first (the runtime's
 *   `shutdown()` cancels questions without writing, so they stay stored for the next process).
 * - A second one exits at once with `exitCode`.
 * - Exiting (by either path, or normally) runs `process.on("exit")` hooks, which kill the process
 *   trees of running commands and MCP servers (tools/exec/process.ts, tools/mcp/connection.ts).
 * - `exitCode` is 130 after SIGINT, 143 after SIGTERM, 129 after SIGHUP (128 + the signal's
 *   number), undefined before any; callers return it as their exit code.
 * - `dispose()` removes the handlers; an armed watchdog stays armed (the process is going away).
 */
import { constants } from "node:os";

export interface SignalStop {
  /** Aborted at the first SIGINT/SIGTERM/SIGHUP, with the signal's name as reason. */
  readonly signal: AbortSignal;
  /** 130 after SIGINT, 143 after SIGTERM, 129 after SIGHUP; undefined before any. */
  readonly exitCode: number | undefined;
  dispose(): void;
}

export interface StopOptions {
  /** Added to the stderr line, e.g. "pending questions stay stored for the next run". */
  detail?: string;
  /** How long the caller's shutdown may take before the process exits anyway (default 5 s). */
  graceMs?: number;
  stderr?: { write(text: string): unknown };
  exit?: (code: number) => void;
  /** Where handlers go (default `process`; tests pass an emitter). */
  on?: Pick<NodeJS.Process, "on" | "off">;
}

/** SIGHUP too: a closed terminal or dropped ssh session must not end Tandem without its exit hooks. */
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** The `detail` of surfaces that run threads: what happens to what is pending (README "Stopping Tandem"). */
export const STOP_DETAIL = "running commands are killed, pending questions stay stored for the next run";
export const DEFAULT_GRACE_MS = 5_000;

export function stopOnSignals(name: string, opts: StopOptions = {}): SignalStop {
  const target = opts.on ?? process;
  const stderr = opts.stderr ?? process.stderr;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const grace = opts.graceMs ?? DEFAULT_GRACE_MS;
  const ctrl = new AbortController();
  let code: number | undefined;

  const onSignal = (sig: NodeJS.Signals) => {
    if (code !== undefined) return exit(code);
    code = 128 + (constants.signals[sig] ?? 0);
    const detail = opts.detail ? `; ${opts.detail}` : "";
    stderr.write(`tandem ${name}: ${sig} received, shutting down${detail} (send it again to quit at once)\n`);
    const watchdog = setTimeout(() => {
      stderr.write(`tandem ${name}: still not stopped ${grace / 1000} s after ${sig}; quitting now\n`);
      exit(code!);
    }, grace);
    watchdog.unref();
    ctrl.abort(sig);
  };
  for (const s of SIGNALS) target.on(s, onSignal);
  return {
    signal: ctrl.signal,
    get exitCode() {
      return code;
    },
    dispose() {
      for (const s of SIGNALS) target.off(s, onSignal);
    },
  };
}

/** Resolves when `signal` aborts (at once if it already has). Never rejects. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
