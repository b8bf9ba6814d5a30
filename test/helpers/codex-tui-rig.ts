/**
 * Rig for driving the real Codex TUI (`codex --remote`) against `tandem app-server` (README "Answer from anywhere").
 *
 * - `startFrameProxy(target)`: a websocket proxy in the test process between the TUI and the
 *   server. It forwards every frame unchanged (the client's `Authorization` header too), records
 *   it as `{conn, dir, msg}` and validates it against the complete Codex schema bundle
 *   (test/app-server-schema.ts): client requests as `ClientRequest` variants, server responses as
 *   the method's `*Response`, notifications as `ServerNotification`, server requests as
 *   `ServerRequest`, client responses as e.g. `ToolRequestUserInputResponse`. Responses are paired
 *   with their request per connection (ids repeat across TUI processes). A frame that is not
 *   JSON, or answers an id nobody asked, is a violation too.
 * - `startTandemAppServer(opts)`: `tandem app-server --listen ws://127.0.0.1:0 --ws-token-file …`
 *   as a real process whose cwd is a fresh workspace, on a temp TANDEM_HOME whose config.toml
 *   selects the scripted model as provider `mock` (`env_key = "MOCK_KEY"`).
 * - `codexPane(opts)`: one tmux session at a time running the TUI in `cwd` with a CODEX_HOME, the
 *   token read into an environment variable and passed with `--remote-auth-token-env`; polls
 *   `capture-pane` (history included) instead of sleeping.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import WebSocket, { WebSocketServer } from "ws";
import { BIN } from "./cli.js";
import { codexValidator } from "./codex-schema.js";
import { tempDir } from "./index.js";
import { sandboxFallback } from "./system-tools.js";
import { waitUntil } from "./wait.js";

export const CODEX_BIN = resolve(import.meta.dirname, "../../node_modules/.bin/codex");

export type Json = Record<string, any>;

export interface Frame {
  /** 1-based connection number (one per TUI process). */
  conn: number;
  dir: "c2s" | "s2c";
  msg: Json;
  /** For a response: the method of the request it answers. */
  answers?: string;
}

export interface Violation {
  frame: Frame | string;
  problems: string[];
}

export interface FrameProxy {
  url: string;
  frames: Frame[];
  violations: Violation[];
  close(): Promise<void>;
}

/** Starts the recording proxy on 127.0.0.1 in front of `target` (ws://…); `log` gets one JSON line per frame. */
export async function startFrameProxy(target: string, log?: string): Promise<FrameProxy> {
  const v = codexValidator();
  const frames: Frame[] = [];
  const violations: Violation[] = [];
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  let conns = 0;

  wss.on("connection", (client, req) => {
    const conn = ++conns;
    const pending = { c2s: new Map<unknown, string>(), s2c: new Map<unknown, string>() };
    const auth = req.headers.authorization;
    const upstream = new WebSocket(target, auth ? { headers: { Authorization: auth } } : {});
    sockets.add(client);
    sockets.add(upstream);
    const queued: Array<[Buffer, boolean]> = [];

    const record = (dir: Frame["dir"], data: Buffer) => {
      let msg: Json;
      try {
        msg = JSON.parse(data.toString("utf8"));
      } catch {
        violations.push({ frame: `${dir} #${conn}: ${data.toString("utf8")}`, problems: ["not JSON"] });
        return;
      }
      const frame: Frame = { conn, dir, msg };
      const server = dir === "s2c";
      let problems: string[];
      if (typeof msg.method === "string" && msg.id !== undefined) {
        pending[dir].set(msg.id, msg.method);
        problems = server ? v.serverRequest(msg) : v.clientRequest(msg);
      } else if (typeof msg.method === "string") {
        problems = server ? v.serverNotification(msg) : v.clientNotification(msg);
      } else {
        const asker = server ? "c2s" : "s2c";
        const method = pending[asker].get(msg.id);
        pending[asker].delete(msg.id);
        frame.answers = method;
        if (method === undefined) problems = [`response to unknown id ${JSON.stringify(msg.id)}`];
        else problems = server ? v.serverResponse(method, msg) : v.clientResponse(method, msg);
      }
      frames.push(frame);
      if (log) appendFileSync(log, `${JSON.stringify(frame)}\n`);
      if (problems.length) violations.push({ frame, problems });
    };

    client.on("message", (data: Buffer, binary) => {
      record("c2s", data);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
      else queued.push([data, binary]);
    });
    upstream.on("open", () => {
      for (const [data, binary] of queued.splice(0)) upstream.send(data, { binary });
    });
    upstream.on("message", (data: Buffer, binary) => {
      record("s2c", data);
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
    });
    const end = () => {
      client.close();
      upstream.close();
    };
    upstream.on("close", end);
    client.on("close", end);
    upstream.on("error", (e) => violations.push({ frame: `upstream #${conn}`, problems: [String(e)] }));
    client.on("error", () => end());
  });

  await new Promise<void>((res) => wss.once("listening", () => res()));
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    frames,
    violations,
    close: () =>
      new Promise<void>((res) => {
        for (const s of sockets) s.terminate();
        wss.close(() => res());
      }),
  };
}

export interface TandemAppServer {
  url: string;
  tokenFile: string;
  /** The server's cwd: threads the TUI starts without a cwd run here. */
  workspace: string;
  /** The server's TANDEM_HOME (config.toml is there). */
  home: string;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts the server on the scripted model at `mockUrl`. `sandboxed` sets `sandbox_mode =
 * "read-only"`; otherwise sandboxFallback gives full access (no bubblewrap on this machine).
 */
export async function startTandemAppServer(opts: {
  mockUrl: string;
  sandboxed: boolean;
  /** Lines put first in config.toml (comments, top-level keys). */
  configHead?: string[];
}): Promise<TandemAppServer> {
  const home = tempDir("tandem-codex-tui-home-");
  const workspace = tempDir("tandem-codex-tui-ws-");
  const tokenFile = join(tempDir("tandem-codex-tui-token-"), "token");
  writeFileSync(tokenFile, randomBytes(24).toString("hex"));
  const config = [
    ...(opts.configHead ?? []),
    'model = "mock-model"',
    'model_provider = "mock"',
    ...(opts.sandboxed ? ['sandbox_mode = "read-only"'] : []),
    "[model_providers.mock]",
    `base_url = "${opts.mockUrl}"`,
    'env_key = "MOCK_KEY"',
  ];
  writeFileSync(join(home, "config.toml"), `${config.join("\n")}\n`);
  sandboxFallback(home);
  const env: Record<string, string | undefined> = { ...process.env, TANDEM_HOME: home, MOCK_KEY: "test-key" };
  for (const k of ["OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"]) delete env[k];
  const args = ["app-server", "--listen", "ws://127.0.0.1:0", "--ws-token-file", tokenFile];
  const proc = spawn(BIN, args, { cwd: workspace, env, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  let stderr = "";
  proc.stderr!.on("data", (d) => {
    stderr += d;
  });
  const listening = () => /app-server listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
  await waitUntil(() => listening() !== undefined || proc.exitCode !== null, "app-server to listen", {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  const url = listening();
  if (!url) throw new Error(`app-server did not start: ${stderr}`);
  return {
    url,
    tokenFile,
    workspace,
    home,
    stderr: () => stderr,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await exited;
    },
  };
}

/** Violations as readable text: the frame, then its ajv (or pairing) errors. */
export function describeViolations(list: Violation[]): string {
  return list
    .map(
      (x) =>
        `${typeof x.frame === "string" ? x.frame : JSON.stringify(x.frame)}\n  ${x.problems.join("\n  ")}`,
    )
    .join("\n\n");
}

/** Single-quotes `s` for a POSIX shell. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

/** Variables removed from the TUI's environment (CI makes TUIs non-interactive; no real keys). */
const UNSET = [
  "CI",
  "CONTINUOUS_INTEGRATION",
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
  "OPENAI_BASE_URL",
  "NO_COLOR",
];

export interface CodexPaneOptions {
  /** The TUI's working directory (the workspace). */
  cwd: string;
  codexHome: string;
  /** File holding the server's bearer token; read into `TANDEM_WS_TOKEN` inside the pane. */
  tokenFile: string;
  /** ws:// address the TUI connects to (the proxy). */
  remote: string;
  width?: number;
  height?: number;
}

export interface CodexPane {
  /** Starts a new TUI process in a fresh tmux session (killing the previous one). */
  launch(): void;
  kill(): void;
  /** The pane with up to 2000 lines of history, wrapped lines joined. */
  pane(): string;
  /** The last `lines` non-blank lines of the visible screen (composer, popups, status line). */
  bottom(lines?: number): string;
  /** Polls every 150 ms until the pane matches; throws with the last capture after `ms`. */
  waitFor(what: string | RegExp, ms?: number): Promise<string>;
  keys(...k: string[]): void;
  literal(text: string): void;
  /**
   * Types `text`, waits until the bottom of the screen shows it, lets the TUI's paste-burst detection go quiet,
   * then presses Enter. (Codex treats keys arriving in a fast burst as a paste: an Enter inside
   * the burst inserts a newline instead of submitting. The pause comes after a poll, not instead.)
   */
  submit(text: string): Promise<void>;
}

export function codexPane(opts: CodexPaneOptions): CodexPane {
  let session: string | undefined;
  let n = 0;
  const target = () => {
    if (!session) throw new Error("no tmux session: launch() first");
    return session;
  };
  const kill = () => {
    if (session) spawnSync("tmux", ["kill-session", "-t", session]);
    session = undefined;
  };
  const pane = () => tmux("capture-pane", "-p", "-J", "-S", "-2000", "-t", target());
  const bottom = (lines = 20) =>
    tmux("capture-pane", "-p", "-J", "-t", target())
      .split("\n")
      .filter((l) => l.trim())
      .slice(-lines)
      .join("\n");
  const literal = (text: string) => tmux("send-keys", "-t", target(), "-l", text);
  return {
    launch() {
      kill();
      session = `codex-tui-${process.pid}-${++n}`;
      const tui = [
        `env ${UNSET.map((u) => `-u ${u}`).join(" ")}`,
        `CODEX_HOME=${q(opts.codexHome)} TERM=xterm-256color TANDEM_WS_TOKEN="$(cat ${q(opts.tokenFile)})"`,
        q(CODEX_BIN),
        `--remote ${q(opts.remote)} --remote-auth-token-env TANDEM_WS_TOKEN`,
      ].join(" ");
      const cmd = `cd ${q(opts.cwd)} && ${tui}; echo "[exited $?]"; sleep 600`;
      const size = ["-x", String(opts.width ?? 140), "-y", String(opts.height ?? 60)];
      tmux("new-session", "-d", "-s", session, ...size, cmd);
    },
    kill,
    pane,
    bottom,
    async waitFor(what, ms = 60_000) {
      const end = Date.now() + ms;
      let last = "";
      while (Date.now() < end) {
        last = pane();
        if (typeof what === "string" ? last.includes(what) : what.test(last)) return last;
        await new Promise((r) => setTimeout(r, 150));
      }
      throw new Error(`pane never showed ${String(what)}; last capture:\n${last}`);
    },
    keys(...k) {
      tmux("send-keys", "-t", target(), ...k);
    },
    literal,
    async submit(text) {
      literal(text);
      const end = Date.now() + 30_000;
      while (!bottom().includes(text)) {
        if (Date.now() > end) throw new Error(`the composer never showed ${text}:\n${bottom()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 600));
      tmux("send-keys", "-t", target(), "Enter");
    },
  };
}
