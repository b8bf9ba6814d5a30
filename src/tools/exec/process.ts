/**
 * One running command: a shell started with pipes (default) or under a PTY, its bounded
 * output buffer, and its exit.
 *
 * Contract:
 * - `spawnProcess` resolves once the process runs, or rejects with an Error whose message
 *   says what to fix (shell missing, bad cwd). The shell runs as `shell -c cmd` in its own
 *   process group (pipes: `detached`; PTY: the pty makes it a session leader), so `kill()`
 *   reaches the whole tree.
 * - Output arrives in `output` (merged stdout+stderr, arrival order) and, while a `listener`
 *   is set, is also handed to it raw; callers mask secrets.
 * - `exited` resolves with the exit code (128+n for signal n) once the process has exited and
 *   its output has drained (pipes: stdio closed, or 100 ms after exit when a background job
 *   still holds them — they are then closed, so such jobs should redirect their output).
 * - When the shell exits, what it left running (background jobs: its former process group and
 *   their descendants) is recorded in `leftovers` — pid and start time, so a later kill never
 *   hits a reused pid. `killLeftovers()` ends them; the owner (ExecSessions) does so when its
 *   thread closes. Outside the sandbox nothing else would: bwrap's PID namespace ends its
 *   leftovers with the shell (bwrap exits when its child does), so there it finds none.
 * - Every live process, and every leftover not yet killed, is SIGKILLed on
 *   `process.on("exit")`, a safety net for owners that never called `kill()`.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import {
  killLeftovers,
  killLeftoversSync,
  killTree,
  killTreeSync,
  type Leftover,
  leftoversOf,
} from "../../util/process-tree.js";
import { OutputBuffer } from "./buffer.js";

export type OutputStream = "stdout" | "stderr";
export type OutputListener = (stream: OutputStream, chunk: string) => void;

export interface SpawnOptions {
  command: string;
  shell: string;
  cwd: string;
  env: Record<string, string>;
  tty: boolean;
  /** Argv prefix that runs the shell inside a sandbox (e.g. `bwrap … --`). */
  wrap?: string[];
}

/** How long after exit we keep reading output a process left in flight. */
const DRAIN_MS = 100;
/** PTY size: wide enough that tools rarely wrap. */
const PTY_COLS = 160;
const PTY_ROWS = 48;

const live = new Set<ExecProcess>();
/** Exited processes whose leftovers were not killed yet. */
const lingering = new Set<ExecProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const p of live) killTreeSync(p.pid);
    for (const p of lingering) killLeftoversSync(p.leftovers);
  });
}

/** Low-level handle of one backend (pipes or PTY). */
interface Backend {
  write(chars: string): Promise<void>;
  /** Releases fds once the process is gone. */
  dispose(): void;
}

export class ExecProcess {
  readonly output = new OutputBuffer();
  /** Receives every chunk as it arrives (raw, unmasked); at most one listener at a time. */
  listener: OutputListener | undefined;
  /** Exit code, set as soon as the process exited (output may still be draining). */
  exitCode: number | null = null;
  /** True once `exited` has resolved: the exit code is final and all output is in `output`. */
  finished = false;
  /** What the shell left running when it exited (set at exit; see the module contract). */
  leftovers: Leftover[] = [];
  readonly exited: Promise<number>;
  readonly startedAt = Date.now();
  private resolveExited!: (code: number) => void;
  private backend!: Backend;

  constructor(
    readonly pid: number,
    readonly command: string,
    readonly tty: boolean,
  ) {
    this.exited = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
    live.add(this);
    installExitHook();
  }

  /** @internal Wiring used by the spawn functions below. */
  attach(backend: Backend): void {
    this.backend = backend;
  }

  /** @internal */
  push(stream: OutputStream, chunk: string): void {
    if (chunk.length === 0) return;
    this.output.append(chunk);
    try {
      this.listener?.(stream, chunk);
    } catch {
      // A failing listener never breaks output collection.
    }
  }

  /** @internal Records the exit; resolves `exited` after `drain`. */
  markExited(code: number, drain: Promise<unknown>): void {
    if (this.exitCode !== null) return;
    this.exitCode = code;
    live.delete(this);
    // Now, while the former group still exists: once empty, its pid may be reused.
    this.leftovers = leftoversOf(this.pid);
    if (this.leftovers.length > 0) lingering.add(this);
    const timer = new Promise((r) => setTimeout(r, DRAIN_MS));
    Promise.race([drain, timer]).then(() => {
      this.backend.dispose();
      this.finished = true;
      this.resolveExited(code);
    });
  }

  /** Writes `chars` to stdin. Rejects when the process has exited or stdin is closed. */
  async write(chars: string): Promise<void> {
    if (this.exitCode !== null) throw new Error(`process exited with code ${this.exitCode}`);
    await this.backend.write(chars);
  }

  /**
   * Kills the whole process tree (SIGTERM, SIGKILL after a grace) and waits for `exited`.
   * After the shell exited, still kills what is left of its process group (background jobs).
   */
  async kill(graceMs = 500): Promise<void> {
    if (this.exitCode !== null) await this.killLeftovers(graceMs);
    else await killTree(this.pid, { graceMs });
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 1000))]);
  }

  /** Kills what the exited shell left running (no-op when nothing or while it runs). */
  async killLeftovers(graceMs = 500): Promise<void> {
    if (this.leftovers.length === 0) return;
    await killLeftovers(this.leftovers, graceMs);
    this.leftovers = [];
    lingering.delete(this);
  }
}

const signalExitCode = (signal: NodeJS.Signals | number | null | undefined): number => {
  const n = typeof signal === "number" ? signal : signal ? constants.signals[signal] : 0;
  return 128 + (n ?? 0);
};

/** `[program, args…]` to run: the shell, or the shell under a sandbox wrapper (`opts.wrap`). */
function argvFor(opts: SpawnOptions): [string, string[]] {
  const inner = [opts.shell, "-c", opts.command];
  const full = opts.wrap?.length ? [...opts.wrap, ...inner] : inner;
  return [full[0], full.slice(1)];
}

const FD3_SCRIPT = 'exec 3<"$0" && exec "$@"';

/**
 * `argv` run with the file at `path` open (read-only, offset 0) as its fd 3, e.g. a seccomp
 * program for `bwrap --seccomp 3`. Written as a `/bin/sh` trampoline, which works for every
 * spawn; spawnPipes skips the shell and passes the fd itself (one exec less per command).
 */
export function withFd3(path: string, argv: string[]): string[] {
  return ["/bin/sh", "-c", FD3_SCRIPT, path, ...argv];
}

/** The file a `withFd3` argv opens as fd 3, and the argv it then runs; null for any other. */
function splitFd3(argv: string[]): { path: string; argv: string[] } | null {
  if (argv[0] !== "/bin/sh" || argv[1] !== "-c" || argv[2] !== FD3_SCRIPT || argv.length < 5) return null;
  return { path: argv[3], argv: argv.slice(4) };
}

export function spawnProcess(opts: SpawnOptions): Promise<ExecProcess> {
  return opts.tty ? spawnPty(opts) : spawnPipes(opts);
}

async function spawnPipes(opts: SpawnOptions): Promise<ExecProcess> {
  let [program, argv] = argvFor(opts);
  const fd3 = splitFd3([program, ...argv]);
  let fd: number | undefined;
  if (fd3) {
    [program, ...argv] = fd3.argv;
    try {
      fd = openSync(fd3.path, "r");
    } catch (err) {
      throw new Error(`failed to start ${opts.shell}: ${(err as Error).message}`);
    }
  }
  let child: ChildProcessByStdio<Writable, Readable, Readable>;
  try {
    child = spawn(program, argv, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: fd === undefined ? ["pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe", fd],
    }) as ChildProcessByStdio<Writable, Readable, Readable>;
  } finally {
    // The child holds its own copy once spawn() returns (the fork is synchronous).
    if (fd !== undefined) closeSync(fd);
  }
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      child.off("spawn", onSpawn);
      reject(new Error(`failed to start ${opts.shell}: ${err.message}`));
    };
    const onSpawn = () => {
      child.off("error", onError);
      resolve();
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
  child.on("error", () => {}); // Later errors (e.g. kill races) surface as exit instead.
  child.stdin.on("error", () => {}); // EPIPE when the command stopped reading.

  const proc = new ExecProcess(child.pid!, opts.command, false);
  for (const stream of ["stdout", "stderr"] as const) {
    const decoder = new StringDecoder("utf8");
    child[stream].on("data", (buf: Buffer) => proc.push(stream, decoder.write(buf)));
    child[stream].on("end", () => proc.push(stream, decoder.end()));
  }
  const closed = new Promise((resolve) => child.once("close", resolve));
  child.once("exit", (code, signal) => proc.markExited(code ?? signalExitCode(signal), closed));

  proc.attach({
    write: (chars) => writePipe(child, chars),
    dispose: () => {
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
    },
  });
  return proc;
}

/**
 * Pipe stdin has no line discipline, so two control characters are interpreted here:
 * \u0003 (Ctrl-C) sends SIGINT to the process group, \u0004 (Ctrl-D) closes stdin.
 */
async function writePipe(child: ChildProcessByStdio<Writable, Readable, Readable>, chars: string) {
  for (const part of chars.split(/([\u0003\u0004])/)) {
    if (part === "\u0003") {
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {
        // Group already gone.
      }
    } else if (part === "\u0004") {
      child.stdin.end();
    } else if (part.length > 0) {
      if (!child.stdin.writable) throw new Error("stdin is closed");
      await new Promise<void>((resolve, reject) =>
        child.stdin.write(part, (err) =>
          err ? reject(new Error(`write failed: ${err.message}`)) : resolve(),
        ),
      );
    }
  }
}

type PtyModule = typeof import("@lydell/node-pty");
let ptyModule: Promise<PtyModule> | undefined;

/** node-pty is a native addon: loaded on first tty use only. */
function loadPty(): Promise<PtyModule> {
  ptyModule ??= import("@lydell/node-pty").catch((err) => {
    ptyModule = undefined;
    throw new Error(`tty:true needs @lydell/node-pty, which failed to load: ${(err as Error).message}`);
  });
  return ptyModule;
}

async function spawnPty(opts: SpawnOptions): Promise<ExecProcess> {
  const pty = await loadPty();
  let term: ReturnType<PtyModule["spawn"]>;
  try {
    const [program, argv] = argvFor(opts);
    term = pty.spawn(program, argv, {
      name: opts.env.TERM ?? "dumb",
      cols: PTY_COLS,
      rows: PTY_ROWS,
      cwd: opts.cwd,
      env: opts.env,
    });
  } catch (err) {
    throw new Error(`failed to start ${opts.shell} under a PTY: ${(err as Error).message}`);
  }
  const proc = new ExecProcess(term.pid, opts.command, true);
  // The terminal turns "\n" into "\r\n"; the model reads plain "\n". A trailing "\r" is held
  // back until the next chunk shows whether it starts a "\r\n" pair.
  let heldCR = "";
  const data = term.onData((d) => {
    let text = heldCR + d;
    heldCR = text.endsWith("\r") ? "\r" : "";
    if (heldCR) text = text.slice(0, -1);
    proc.push("stdout", text.replace(/\r\n/g, "\n"));
  });
  const exit = term.onExit(({ exitCode, signal }) => {
    const code = signal ? signalExitCode(signal) : exitCode;
    proc.markExited(
      code,
      new Promise((r) => setTimeout(r, 20)).then(() => proc.push("stdout", heldCR)),
    );
  });
  proc.attach({
    write: async (chars) => term.write(chars),
    // No term.kill() here: after exit the pid may already belong to another process.
    dispose: () => {
      data.dispose();
      exit.dispose();
    },
  });
  return proc;
}
