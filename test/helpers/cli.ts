/** Helpers for tests that drive the real `./bin/tandem` processes. */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { tempDir } from "./index.js";
import { sandboxFallback } from "./system-tools.js";

export const BIN = resolve(import.meta.dirname, "../../bin/tandem");

export interface MockProcess {
  url: string;
  log: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `tandem mock-model` as a real process and waits for its listening line. */
export async function startMockProcess(script: unknown, opts: { log?: boolean } = {}): Promise<MockProcess> {
  const dir = tempDir("tandem-mock-");
  const file = join(dir, "script.json");
  const log = join(dir, "requests.jsonl");
  writeFileSync(file, JSON.stringify(script));
  const args = ["mock-model", "--script", file, "--port", "0", ...(opts.log === false ? [] : ["--log", log])];
  const proc = spawn(BIN, args, { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise<string>((res, rej) => {
    const rl = createInterface({ input: proc.stdout! });
    const t = setTimeout(() => rej(new Error("mock-model did not start")), 10_000);
    rl.once("line", (line) => {
      clearTimeout(t);
      const m = /listening on (\S+)/.exec(line);
      m ? res(m[1]) : rej(new Error(`unexpected line: ${line}`));
    });
    proc.once("exit", (code) => rej(new Error(`mock-model exited ${code}`)));
  });
  return {
    url,
    log,
    proc,
    stop: () =>
      new Promise<void>((r) => {
        if (proc.exitCode !== null) return r();
        proc.once("exit", () => r());
        proc.kill("SIGTERM");
      }),
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tandem …` to completion with the given env and optional stdin. */
export function runTandem(
  args: string[],
  opts: {
    env?: Record<string, string>;
    input?: string;
    cwd?: string;
    killAfterMs?: number;
    /** Leave TANDEM_HOME as it is (no sandboxFallback): a test of what a first run creates. */
    freshHome?: boolean;
  } = {},
): Promise<RunResult> {
  return new Promise((res) => {
    const env = { ...process.env, NO_COLOR: "1", ...opts.env };
    delete (env as Record<string, string | undefined>).OPENAI_API_KEY;
    delete (env as Record<string, string | undefined>).CODEX_API_KEY;
    Object.assign(env, opts.env);
    if (!opts.freshHome) sandboxFallback((env as Record<string, string | undefined>).TANDEM_HOME);
    // Never the repository: a scripted model's commands run in the default cwd.
    const p = spawn(BIN, args, {
      env,
      cwd: opts.cwd ?? tempDir("tandem-run-cwd-"),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => {
      stdout += d;
    });
    p.stderr.on("data", (d) => {
      stderr += d;
    });
    p.stdin.end(opts.input ?? "");
    // A bound for runs that must not hang: the test then fails at once, saying so.
    const timer =
      opts.killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            stderr += `\n[test: tandem ${args.join(" ")} was still running after ${opts.killAfterMs} ms and was killed]`;
            p.kill("SIGKILL");
          }, opts.killAfterMs);
    p.on("exit", (code) => {
      if (timer) clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

export function jsonLines(text: string): any[] {
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

export interface ServeRun {
  proc: ChildProcess;
  /** stdout's first two lines: the listening URL and the page link. */
  lines: string[];
  stderr: () => string;
}

/**
 * Starts `tandem serve ARGS` as a real process (cwd a temp dir: threads created without a cwd
 * never run in the repository) and waits for its two stdout lines. `env` is merged over
 * process.env; an `undefined` value removes a variable.
 */
export async function spawnServe(args: string[], env: Record<string, string | undefined>): Promise<ServeRun> {
  const full: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...env };
  for (const [k, v] of Object.entries(full)) if (v === undefined) delete full[k];
  sandboxFallback(full.TANDEM_HOME);
  const proc = spawn(BIN, ["serve", ...args], {
    cwd: tempDir("tandem-serve-cwd-"),
    env: full,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr!.on("data", (d) => {
    stderr += d;
  });
  const lines: string[] = [];
  await new Promise<void>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`serve did not start: ${stderr}`)), 15_000);
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      lines.push(line);
      if (lines.length === 2) {
        clearTimeout(t);
        res();
      }
    });
    proc.once("exit", (code) => rej(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { proc, lines, stderr: () => stderr };
}
