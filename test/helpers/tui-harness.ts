/**
 * Shared harness for the end-to-end TUI tests that drive a real `tandem` in tmux: it launches the
 * TUI in a detached tmux session (temp TANDEM_HOME and cwd, CI and API-key variables unset so it
 * runs interactively), polls `capture-pane` instead of sleeping, sends keys with `send-keys`, and
 * reads the scripted model's request log. One harness per test file: `tuiHarness()` registers an
 * `afterEach` that kills the session, stops the mock model and runs deferred cleanups, in that order.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach } from "vitest";
import { BIN, type MockProcess, startMockProcess } from "./cli.js";
import { tempDir } from "./index.js";
import { missing, sandboxFallback } from "./system-tools.js";

/** The repository root; the TUI is started from here. */
export const ROOT = resolve(import.meta.dirname, "../..");
/** Whether tmux is installed (the TUI tests skip without it; see system-tools.ts). */
export const hasTmux = missing("tmux").length === 0;
/**
 * What runs in the pane: always the built `./bin/tandem`. test/global-setup.ts rebuilds dist/
 * before the run when any source is newer (or fails the run), so it is never an old bundle, and
 * the tests never switch silently between dist/ and the sources.
 */
export function builtOrSourceTui(): string[] {
  return [BIN];
}

/** Single-quotes `s` for a POSIX shell. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Variables removed from the TUI's environment (CI would make it non-interactive). */
const UNSET = ["CI", "CONTINUOUS_INTEGRATION", "OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"];

export interface TuiHarnessOptions {
  /**
   * Names the tmux sessions (`<name>-<pid>-<n>`), the paste buffer (`<name>-<pid>`) and, unless
   * `tempPrefix` says otherwise, the temp directories.
   */
  name: string;
  /** Prefix of the temp directories made by `launch`: `<tempPrefix>-home-…`, `<tempPrefix>-cwd-…`. Default `name`. */
  tempPrefix?: string;
  /** The command that runs in the pane (program and leading arguments). Default `[BIN]`. */
  command?: string[];
  /** Pane size in cells. Default 120×40. */
  width?: number;
  height?: number;
  /**
   * Shell run in the pane after the TUI exits and `[exited <code>]` is printed, before the pane
   * sleeps (so it stays open for the last capture), e.g. `cat -v`. Default nothing.
   */
  afterExit?: string;
  /**
   * Runs the sessions on a tmux server of their own (`tmux -L <socket> -f /dev/null`), so a test
   * may read or change server state (buffers, options, titles) without touching other tests'.
   * Default: the user's default server.
   */
  socket?: string;
}

export interface LaunchOptions {
  /** Mock model URL: sets OPENAI_API_KEY=test-key and OPENAI_BASE_URL. `null` starts with no API key. */
  url: string | null;
  /** Extra command-line arguments, after `--cd <cwd>`. */
  args?: string[];
  /** TANDEM_HOME to reuse (e.g. to relaunch against the same state). Default: a fresh temp directory. */
  home?: string;
  /** Workspace to reuse (`--cd`). Default: a fresh temp directory. */
  cwd?: string;
  /** Extra environment variables for the TUI, added after the defaults. */
  env?: Record<string, string>;
}

export interface TuiHarness {
  /**
   * Starts the TUI in a fresh tmux session, killing this harness's previous one first. The pane
   * prints `[exited <code>]` when the TUI exits, runs `afterExit`, then stays open.
   * Returns the TANDEM_HOME and workspace in use.
   */
  launch(opts: LaunchOptions): { home: string; cwd: string };
  /** Kills the current tmux session, if any. */
  kill(): void;
  /** Starts `tandem mock-model` with `script`; it is stopped after the test. */
  startMock(script: unknown): Promise<MockProcess>;
  /** The pane with its scrollback (500 lines), wrapped lines joined. */
  pane(): string;
  /**
   * Polls the pane every 100 ms until it contains `text` (or matches the regex) and returns that
   * capture; throws with the last capture after `ms` (default 30 s).
   */
  waitFor(text: string | RegExp, ms?: number): Promise<string>;
  /** `tmux send-keys` with key names (`Enter`, `C-c`, `Up`, …). */
  keys(...k: string[]): void;
  /** Types `text` literally (`send-keys -l`). */
  literal(text: string): void;
  /** Pastes `text` the way a terminal does: bracketed when the app turned the mode on (`paste-buffer -p`). */
  paste(text: string): void;
  /** Runs `fn` after the test, once the session is killed and the mock stopped. */
  defer(fn: () => void): void;
}

/**
 * Every request body the scripted model logged, in order. With `allowMissing`, a log that does
 * not exist yet (no request arrived) reads as no requests instead of throwing.
 */
export function requests(log: string, opts: { allowMissing?: boolean } = {}): any[] {
  if (opts.allowMissing && !existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/** Creates the harness for one test file and registers its `afterEach` cleanup. */
export function tuiHarness(opts: TuiHarnessOptions): TuiHarness {
  const command = opts.command ?? [BIN];
  const server = opts.socket ? ["-L", opts.socket, "-f", "/dev/null"] : [];
  const tmux = (...args: string[]) => execFileSync("tmux", [...server, ...args], { encoding: "utf8" });
  const tempPrefix = opts.tempPrefix ?? opts.name;
  let session: string | undefined;
  let mock: MockProcess | undefined;
  let n = 0;
  const cleanup: Array<() => void> = [];

  const target = (): string => {
    if (!session) throw new Error("no tmux session: call launch() first");
    return session;
  };
  const kill = () => {
    if (session) spawnSync("tmux", [...server, "kill-session", "-t", session]);
  };

  afterEach(async () => {
    kill();
    session = undefined;
    await mock?.stop();
    mock = undefined;
    for (const f of cleanup.splice(0)) f();
  });

  const pane = () => tmux("capture-pane", "-p", "-J", "-S", "-500", "-t", target());

  return {
    launch({ url, args = [], home, cwd, env: extra = {} }) {
      kill();
      const h = home ?? tempDir(`${tempPrefix}-home-`);
      sandboxFallback(h);
      const c = cwd ?? tempDir(`${tempPrefix}-cwd-`);
      session = `${opts.name}-${process.pid}-${++n}`;
      const env = [`TANDEM_HOME=${q(h)}`, "TERM=xterm-256color"];
      if (url !== null) env.push("OPENAI_API_KEY=test-key", `OPENAI_BASE_URL=${q(url)}`);
      for (const [k, v] of Object.entries(extra)) env.push(`${k}=${q(v)}`);
      const tui = [...command.map(q), "--cd", q(c), ...args.map(q)].join(" ");
      const after = ['echo "[exited $?]"', ...(opts.afterExit ? [opts.afterExit] : []), "sleep 120"].join(
        "; ",
      );
      const cmd = `cd ${q(ROOT)} && env ${UNSET.map((v) => `-u ${v}`).join(" ")} ${env.join(" ")} ${tui}; ${after}`;
      tmux(
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        String(opts.width ?? 120),
        "-y",
        String(opts.height ?? 40),
        cmd,
      );
      return { home: h, cwd: c };
    },
    kill,
    async startMock(script) {
      mock = await startMockProcess(script);
      return mock;
    },
    pane,
    async waitFor(text, ms = 30_000) {
      const end = Date.now() + ms;
      let last = "";
      while (Date.now() < end) {
        last = pane();
        if (typeof text === "string" ? last.includes(text) : text.test(last)) return last;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`pane never showed ${String(text)}; last capture:\n${last}`);
    },
    keys(...k) {
      tmux("send-keys", "-t", target(), ...k);
    },
    literal(text) {
      tmux("send-keys", "-t", target(), "-l", text);
    },
    paste(text) {
      const buffer = `${opts.name}-${process.pid}`;
      tmux("set-buffer", "-b", buffer, "--", text);
      tmux("paste-buffer", "-p", "-d", "-b", buffer, "-t", target());
    },
    defer(fn) {
      cleanup.push(fn);
    },
  };
}
