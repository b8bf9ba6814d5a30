/**
 * Running a program on the host — outside the sandbox — on Tandem's own behalf: hooks the user
 * configured, a `notify` program, probes of system tools. The one door every such call goes
 * through (ARCHITECTURE.md, "the host door"), so each gets the same guarantees:
 *
 * - The program is an absolute path or is looked up on a PATH with every relative entry and
 *   every entry under `untrustedDirs` removed (a model-written `./git` or `node_modules/.bin/x`
 *   is never what runs); `hostProgram` does that lookup.
 * - The environment is exactly `env` (nothing inherited unless the caller passes it).
 * - A deadline (`timeoutMs`, required) and the caller's signal end the call: the whole process
 *   tree is killed (it runs in its own process group), so a program that hangs or forks a
 *   child that hangs never hangs Tandem.
 * - Output is bounded (`maxOutputBytes` per stream; the rest is counted, not kept).
 *
 * Contract: `runHost` never throws and never rejects; a program that cannot start, times out
 * or is aborted resolves with `error` set.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join, resolve, sep } from "node:path";
import { killTree } from "../util/process-tree.js";

export interface HostRunOptions {
  args?: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes?: number;
  /** Written to stdin, which is then closed. */
  input?: string | Buffer;
  signal?: AbortSignal;
}

export interface HostRunResult {
  /** Exit code; null when killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Bytes dropped past `maxOutputBytes` (stdout + stderr). */
  dropped: number;
  /** Why the call did not run to its own end: start failure, timeout or abort. */
  error?: { kind: "spawn" | "timeout" | "aborted"; message: string };
}

const DEFAULT_MAX_OUTPUT = 1 << 20;

/** Runs `program` as the module contract says. */
export function runHost(program: string, opts: HostRunOptions): Promise<HostRunResult> {
  const max = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  return new Promise((done) => {
    const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], kept: 0, dropped: 0 };
    let error: HostRunResult["error"];
    let settled = false;
    const child = spawn(program, opts.args ?? [], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const keep = (which: "stdout" | "stderr") => (chunk: Buffer) => {
      const room = Math.max(0, max - out.kept);
      if (room < chunk.length) out.dropped += chunk.length - room;
      if (room > 0) {
        const part = room < chunk.length ? chunk.subarray(0, room) : chunk;
        out[which].push(part);
        out.kept += part.length;
      }
    };
    child.stdout.on("data", keep("stdout"));
    child.stderr.on("data", keep("stderr"));
    const stop = (kind: "timeout" | "aborted", message: string) => {
      if (error || settled) return;
      error = { kind, message };
      if (child.pid !== undefined) void killTree(child.pid, { graceMs: 200 });
    };
    const timer = setTimeout(
      () => stop("timeout", `${program} did not finish within ${opts.timeoutMs} ms and was killed`),
      opts.timeoutMs,
    );
    timer.unref?.();
    const onAbort = () => stop("aborted", `${program} was stopped`);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    const finish = (code: number | null, sig: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      // A detached grandchild may still hold the pipes open: the tree goes with its root.
      if (child.pid !== undefined) void killTree(child.pid, { graceMs: 0 });
      done({
        code,
        signal: sig,
        stdout: Buffer.concat(out.stdout).toString("utf8"),
        stderr: Buffer.concat(out.stderr).toString("utf8"),
        dropped: out.dropped,
        ...(error ? { error } : {}),
      });
    };
    child.on("error", (err) => {
      error ??= { kind: "spawn", message: `cannot run ${program}: ${err.message}` };
      finish(null, null);
    });
    // `close` once the pipes drain; a grandchild holding them open gets 200 ms after `exit`.
    let exited: [number | null, NodeJS.Signals | null] | undefined;
    child.on("exit", (code, sig) => {
      exited = [code, sig];
      setTimeout(() => finish(code, sig), 200).unref?.();
    });
    child.on("close", (code, sig) => finish(exited?.[0] ?? code, exited?.[1] ?? sig));
    child.stdin.on("error", () => {}); // the program may exit without reading its input
    child.stdin.end(opts.input ?? "");
  });
}

/**
 * The absolute path of `name` on `path`, skipping relative entries and entries inside any of
 * `untrustedDirs` (workspaces, temp dirs: places the model can write). Undefined when absent.
 */
export function hostProgram(
  name: string,
  path: string,
  untrustedDirs: readonly string[],
): string | undefined {
  if (isAbsolute(name)) return executable(name) ? name : undefined;
  if (name.includes("/")) return undefined;
  const bad = untrustedDirs.map((d) => resolve(d));
  for (const dir of path.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const d = resolve(dir);
    if (bad.some((b) => d === b || d.startsWith(b.endsWith(sep) ? b : b + sep))) continue;
    const candidate = join(d, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
