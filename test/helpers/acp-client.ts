/**
 * An independent ACP client for the `tandem acp` tests: the SDK's client side (`client().connect`)
 * driving a real `./bin/tandem acp` process over stdio. It records every `session/update` and
 * queues the agent's `session/request_permission` and `elicitation/create` requests for the test to
 * answer (or leave pending).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { BIN, type MockProcess } from "./cli.js";
import { tempDir } from "./index.js";
import { sandboxFallback } from "./system-tools.js";

export interface Pending<P, R> {
  params: P;
  signal: AbortSignal;
  respond(result: R): void;
  fail(error: acp.RequestError): void;
}

class Queue<T> {
  private items: T[] = [];
  private waiters: Array<(t: T) => void> = [];
  push(t: T): void {
    const w = this.waiters.shift();
    if (w) w(t);
    else this.items.push(t);
  }
  next(what: string, timeoutMs = 15_000): Promise<T> {
    const t = this.items.shift();
    if (t) return Promise.resolve(t);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push((x) => {
        clearTimeout(timer);
        resolve(x);
      });
    });
  }
  get size(): number {
    return this.items.length;
  }
}

export interface AcpRun {
  proc: ChildProcess;
  agent: acp.ClientContext;
  home: string;
  updates: acp.SessionNotification[];
  permissions: Queue<Pending<acp.RequestPermissionRequest, acp.RequestPermissionResponse>>;
  elicitations: Queue<Pending<acp.CreateElicitationRequest, acp.CreateElicitationResponse>>;
  stderr(): string;
  initialize(caps?: acp.ClientCapabilities): Promise<acp.InitializeResponse>;
  /** Updates of a session, optionally of one kind. */
  of<K extends acp.SessionUpdate["sessionUpdate"]>(
    sessionId: string,
    kind?: K,
  ): Array<Extract<acp.SessionUpdate, { sessionUpdate: K }>>;
  close(): Promise<number | null>;
}

/** Starts `tandem acp ARGS` against the mock model (a fresh TANDEM_HOME unless `home` is given). */
export function startAcp(mock: MockProcess, args: string[] = [], home = tempDir("tandem-acp-home-")): AcpRun {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: "1",
    TANDEM_HOME: home,
    OPENAI_API_KEY: "test-key",
    OPENAI_BASE_URL: mock.url,
    CODEX_API_KEY: undefined,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  sandboxFallback(home);
  const proc = spawn(BIN, ["acp", ...args], {
    cwd: tempDir("tandem-acp-cwd-"),
    env: env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr!.on("data", (d) => {
    stderr += d;
  });
  const updates: acp.SessionNotification[] = [];
  const permissions = new Queue<Pending<acp.RequestPermissionRequest, acp.RequestPermissionResponse>>();
  const elicitations = new Queue<Pending<acp.CreateElicitationRequest, acp.CreateElicitationResponse>>();
  function pending<P, R>(queue: Queue<Pending<P, R>>, params: P, signal: AbortSignal): Promise<R> {
    return new Promise<R>((resolve, reject) =>
      queue.push({ params, signal, respond: resolve, fail: reject }),
    );
  }
  const app = acp
    .client({ name: "tandem-test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) =>
      pending(permissions, params, signal),
    )
    .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) =>
      pending(elicitations, params, signal),
    );
  const stream = acp.ndJsonStream(
    Writable.toWeb(proc.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(proc.stdout!) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return {
    proc,
    agent: connection.agent,
    home,
    updates,
    permissions,
    elicitations,
    stderr: () => stderr,
    initialize: (caps = {}) =>
      connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: caps,
        clientInfo: { name: "tandem-test-client", version: "1.0.0" },
      }),
    of: (sessionId, kind) =>
      updates
        .filter((n) => n.sessionId === sessionId && (!kind || n.update.sessionUpdate === kind))
        .map((n) => n.update) as never,
    close: async () => {
      connection.close();
      proc.stdin!.end();
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** The text of an update's content (text blocks), or of a tool call's text contents. */
export function textOf(update: acp.SessionUpdate): string {
  if ("content" in update && update.content && !Array.isArray(update.content))
    return update.content.type === "text" ? update.content.text : "";
  if ("content" in update && Array.isArray(update.content))
    return update.content
      .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
      .join("");
  return "";
}
