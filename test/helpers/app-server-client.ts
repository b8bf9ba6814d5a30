/**
 * A JSON-RPC test client for `tandem app-server`, over stdio (a real child process, or an
 * in-process PassThrough pair) or websockets. Every message it sends or receives under a Codex
 * method name is validated against the Codex schema (app-server-schema.ts); problems are collected in
 * `violations`, which every test asserts is empty.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import WebSocket from "ws";
import { runAppServer } from "../../src/surfaces/app-server/index.js";
import { BIN } from "./cli.js";
import { codexValidator } from "./codex-schema.js";
import { tempDir } from "./index.js";
import { sandboxFallback } from "./system-tools.js";

type Json = Record<string, any>;

export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${code}: ${message}`);
  }
}

interface Waiter {
  pred: (m: Json) => boolean;
  resolve: (m: Json) => void;
}

export class TestClient {
  readonly received: Json[] = [];
  readonly notifications: Json[] = [];
  readonly serverRequests: Json[] = [];
  /** Errors with id null (parse errors, framing errors, invalid requests without an id). */
  readonly orphanErrors: Json[] = [];
  readonly violations: string[] = [];
  private pending = new Map<string | number, { method: string; resolve(m: Json): void }>();
  private waiters: Waiter[] = [];
  private nextId = 1;
  private validator: ReturnType<typeof codexValidator> | undefined;

  constructor(
    readonly name: string,
    private readonly write: (text: string) => void,
    private readonly opts: {
      /** Send `jsonrpc: "2.0"` (and expect it back); default false, Codex style. */
      jsonrpc?: boolean;
      validate?: boolean;
    } = {},
  ) {
    if (opts.validate !== false) this.validator = codexValidator();
  }

  /** Feeds one raw message from the server. */
  receive(text: string): void {
    let m: Json;
    try {
      m = JSON.parse(text);
    } catch {
      this.violations.push(`${this.name}: server sent invalid JSON: ${text.slice(0, 200)}`);
      return;
    }
    this.received.push(m);
    // Always checked: the server mirrors the client's style — `jsonrpc: "2.0"` on every message
    // to a client that sends it, none to a Codex-style client that does not. Fails if the server
    // drops the field for the one or adds it for the other.
    const want = this.opts.jsonrpc ? "2.0" : undefined;
    if (m.jsonrpc !== want)
      this.violations.push(
        `${this.name}: jsonrpc ${JSON.stringify(m.jsonrpc)}, want ${want ?? "none"}, in ${text}`,
      );
    if (typeof m.method === "string" && m.id !== undefined) {
      this.flag(this.validator?.serverRequest(m), m);
      this.serverRequests.push(m);
    } else if (typeof m.method === "string") {
      this.flag(this.validator?.serverNotification(m), m);
      this.notifications.push(m);
    } else {
      const p = m.id === null || m.id === undefined ? undefined : this.pending.get(m.id);
      if (!p) {
        // Errors with id null, and responses to raw messages the test sent itself (sendRaw): errors
        // with an id must still be well-formed JSON-RPC errors.
        if (m.id === null && m.error) this.orphanErrors.push(m);
        else if (m.error) this.flag(this.validator?.serverResponse("", m), m);
      } else {
        this.pending.delete(m.id);
        this.flag(this.validator?.serverResponse(p.method, m), m);
        p.resolve(m);
      }
    }
    for (const w of [...this.waiters]) {
      if (w.pred(m)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  }

  private flag(problems: string[] | undefined, m: Json): void {
    if (!problems) return;
    for (const p of problems) this.violations.push(`${this.name}: ${m.method ?? "response"}: ${p}`);
  }

  private out(m: Json): void {
    this.write(JSON.stringify(this.opts.jsonrpc ? { jsonrpc: "2.0", ...m } : m));
  }

  sendRaw(text: string): void {
    this.write(text);
  }

  /** Sends a request; resolves with the whole response message (result or error). */
  call(method: string, params: unknown = {}): Promise<Json> {
    const id = this.nextId++;
    const msg = { id, method, params };
    this.flag(this.validator?.clientRequest(msg), msg);
    return new Promise((resolve) => {
      this.pending.set(id, { method, resolve });
      this.out(msg);
    });
  }

  /** Sends a request; resolves with its result, rejects with `RpcFailure`. */
  async request(method: string, params: unknown = {}): Promise<Json> {
    const m = await this.call(method, params);
    if (m.error) throw new RpcFailure(m.error.code, m.error.message, m.error.data);
    return m.result;
  }

  notify(method: string, params?: unknown): void {
    const msg = params === undefined ? { method } : { method, params };
    this.flag(this.validator?.clientNotification(msg), msg);
    this.out(msg);
  }

  async initialize(extra: Json = {}): Promise<Json> {
    // Opts into tandem/* notifications unless the test sends its own capabilities.
    const r = await this.request("initialize", {
      clientInfo: { name: "tandem-test", version: "1.0.0" },
      capabilities: { extensions: { tandem: {} } },
      ...extra,
    });
    this.notify("initialized");
    return r;
  }

  respond(request: Json, result: unknown): void {
    const msg = { id: request.id, result };
    this.flag(this.validator?.clientResponse(request.method, msg), msg);
    this.out(msg);
  }

  respondError(request: Json, code: number, message: string): void {
    this.out({ id: request.id, error: { code, message } });
  }

  /** The first message (already received or future) matching `pred`. */
  waitFor(pred: (m: Json) => boolean, timeoutMs = 15_000): Promise<Json> {
    const seen = this.received.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        const last = this.received.slice(-5).map((m) => m.method ?? `response ${m.id}`);
        reject(new Error(`${this.name}: timed out waiting; last messages: ${last.join(", ")}`));
      }, timeoutMs);
      this.waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(t);
          resolve(m);
        },
      });
    });
  }

  notification(method: string, pred: (params: Json) => boolean = () => true, timeoutMs?: number) {
    return this.waitFor(
      (m) => m.method === method && m.id === undefined && pred(m.params ?? {}),
      timeoutMs,
    ).then((m) => m.params as Json);
  }

  serverRequest(method: string, pred: (params: Json) => boolean = () => true, timeoutMs?: number) {
    return this.waitFor((m) => m.method === method && m.id !== undefined && pred(m.params ?? {}), timeoutMs);
  }

  /** Methods of all notifications received so far, in order. */
  methods(): string[] {
    return this.received.filter((m) => typeof m.method === "string").map((m) => m.method);
  }
}

// ---------------------------------------------------------------------------------------------
// Connections
// ---------------------------------------------------------------------------------------------

export interface Served {
  client: TestClient;
  stderr: () => string;
  close(): Promise<number | null>;
}

/** Feeds newline-delimited messages from a readable stream to the client. */
function pipeLines(stream: NodeJS.ReadableStream, client: TestClient): void {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (line.trim()) client.receive(line);
  });
}

/** `tandem app-server` over stdio, run in this process (PassThrough pair). */
export function inProcessStdio(env: Record<string, string>, args: string[] = []): Served {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let errText = "";
  stderr.on("data", (d) => {
    errText += d;
  });
  const ctrl = new AbortController();
  const exit = runAppServer(args, { stdin, stdout, stderr, env, signal: ctrl.signal });
  const client = new TestClient("stdio", (text) => stdin.write(`${text}\n`));
  pipeLines(stdout, client);
  return {
    client,
    stderr: () => errText,
    close: async () => {
      stdin.end();
      ctrl.abort();
      return exit;
    },
  };
}

/** The command that runs `tandem app-server` (the built CLI, as users run it; `npm test` builds first). */
export function appServerCommand(): string[] {
  return [BIN, "app-server"];
}

export interface ServerProcess {
  proc: ChildProcess;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnAppServer(env: Record<string, string>, args: string[] = []): ServerProcess {
  const [cmd, ...pre] = appServerCommand();
  const fullEnv: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...env };
  delete fullEnv.CODEX_API_KEY;
  sandboxFallback(env.TANDEM_HOME);
  // Threads started without a cwd run in the server's: a temp dir, never the repository.
  const proc = spawn(cmd, [...pre, ...args], {
    env: fullEnv,
    cwd: tempDir("tandem-app-server-cwd-"),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let errText = "";
  proc.stderr!.on("data", (d) => {
    errText += d;
  });
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return {
    proc,
    stderr: () => errText,
    stop: async (signal = "SIGTERM") => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** `tandem app-server` over stdio as a real child process. */
export function processStdio(
  env: Record<string, string>,
  args: string[] = [],
  opts: { jsonrpc?: boolean } = {},
) {
  const server = spawnAppServer(env, args);
  const client = new TestClient("stdio", (text) => server.proc.stdin!.write(`${text}\n`), opts);
  pipeLines(server.proc.stdout!, client);
  const exited = new Promise<number | null>((r) => server.proc.once("exit", (code) => r(code)));
  return {
    client,
    server,
    stderr: server.stderr,
    /** Closes stdin (EOF) and waits for the exit code. */
    close: async () => {
      server.proc.stdin!.end();
      return exited;
    },
  };
}

/** Tokens printed by the servers wsServer started, by URL: wsClient authenticates with them. */
const wsTokens = new Map<string, string>();

/**
 * Starts `tandem app-server --listen ws://127.0.0.1:0` and returns its URL and the bearer token
 * clients must send: the one it generated and printed on stderr, or `opts.token` when the caller
 * passes its own (`--ws-token`/`--ws-token-file` in `args`).
 */
export async function wsServer(
  env: Record<string, string>,
  args: string[] = [],
  opts: { token?: string } = {},
) {
  const server = spawnAppServer(env, ["--listen", "ws://127.0.0.1:0", ...args]);
  const url = await new Promise<string>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`app-server did not listen: ${server.stderr()}`)), 15_000);
    const check = () => {
      const m = /app-server listening on (ws:\/\/\S+)/.exec(server.stderr());
      if (m) {
        clearTimeout(t);
        res(m[1]);
      }
    };
    server.proc.stderr!.on("data", check);
    server.proc.once("exit", (code) => rej(new Error(`app-server exited ${code}: ${server.stderr()}`)));
  });
  const token = opts.token ?? /app-server token: (\S+)/.exec(server.stderr())?.[1];
  if (token) wsTokens.set(url, token);
  return { server, url, token };
}

/**
 * Connects to a websocket app-server. Sends `Authorization: Bearer <token>` (as Codex's
 * `--remote … --remote-auth-token-env` does) with `opts.token`, else the token of the server
 * wsServer started at `url`; `token: null` sends no header.
 */
export async function wsClient(
  url: string,
  name = "ws",
  opts: { jsonrpc?: boolean; token?: string | null } = {},
) {
  const token = opts.token === undefined ? wsTokens.get(url) : opts.token;
  const socket = new WebSocket(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  const client = new TestClient(name, (text) => socket.send(text), opts);
  socket.on("message", (data) => client.receive(data.toString()));
  await new Promise<void>((res, rej) => {
    socket.once("open", () => res());
    socket.once("error", rej);
  });
  return {
    client,
    socket,
    close: () =>
      new Promise<void>((r) => {
        if (socket.readyState === WebSocket.CLOSED) return r();
        socket.once("close", () => r());
        socket.close();
      }),
  };
}
