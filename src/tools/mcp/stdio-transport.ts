/**
 * Tandem's stdio transport for MCP servers (README "MCP servers"): the SDK's `Transport`
 * (start / send / close / onmessage / onerror / onclose) over a child process's stdin and stdout,
 * one JSON-RPC message per line, written for a server that may be hostile or broken.
 *
 * Contract:
 * - `start()` spawns the server (environment: the SDK's safe default variables, then `env`);
 *   it resolves once the process is spawned and rejects when it cannot be. Calling it again
 *   returns the same promise, so a caller may start early and let `Client.connect` start too.
 * - Bad frames never leave a request waiting: a line that is not a JSON-RPC message fails
 *   every request Tandem has in flight on this server at once, with a JSON-RPC error response
 *   delivered through `onmessage` as if the server had sent it (code FRAME_ERROR; the message
 *   quotes the start of the line). A parseable message with a bad shape fails only its own
 *   request when its id is one in flight. Reading resumes at the next line.
 * - No line is held whole past `maxLineBytes` (MAX_LINE_BYTES, 16 MiB): the rest of it is read
 *   and dropped up to its newline, and the request it answered fails with "result too large"
 *   naming both sizes. Its id is looked for at the line's start and end (where JSON-RPC
 *   serialisers put it); when neither names a request in flight, every one in flight fails.
 * - Blank lines are ignored. `onerror` reports each bad frame too (not fatal: the connection stays).
 * - `onclose` is called once, when the process has exited (after `close()` or on its own).
 *   `close()` ends stdin and waits for the exit; a process still running after CLOSE_WAIT_MS is
 *   killed (SIGKILL). The caller (connection.ts) kills the server's whole process tree.
 * - `stderr` carries the server's stderr from the moment the transport exists.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { type Frame, LineSplitter } from "./lines.js";

/** The longest line (one JSON-RPC message) Tandem reads from a stdio MCP server: 16 MiB. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** JSON-RPC "Parse error": the code of the error responses Tandem makes for bad frames. */
export const FRAME_ERROR = -32700;
const CLOSE_WAIT_MS = 2000;
const PREVIEW_CHARS = 120;

export interface StdioServer {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  maxLineBytes?: number;
}

export class StdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly stderr = new PassThrough();

  private child: ChildProcessWithoutNullStreams | undefined;
  private starting: Promise<void> | undefined;
  private exited: Promise<void> | undefined;
  private ended = false;
  /** Ids of Tandem's requests the server has not answered yet. */
  private readonly inFlight = new Set<RequestId>();
  private readonly max: number;
  private readonly lines: LineSplitter;

  constructor(private readonly server: StdioServer) {
    this.max = server.maxLineBytes ?? MAX_LINE_BYTES;
    this.lines = new LineSplitter(this.max);
    // Flowing from the start: stderr nobody listens to is dropped, never left to fill the pipe
    // (a server blocked on a full stderr would stop answering).
    this.stderr.resume();
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    this.starting ??= new Promise<void>((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.server.env },
        cwd: this.server.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      this.child = child;
      let spawned = false;
      this.exited = new Promise((done) => {
        child.once("close", () => done());
        // A process that never spawned (no such command) emits no "close".
        child.once("error", () => spawned || done());
      });
      this.exited.then(() => this.finish());
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once("spawn", () => {
        spawned = true;
        resolve();
      });
      child.stdin.on("error", (err) => this.onerror?.(err));
      child.stdout.on("error", (err) => this.onerror?.(err));
      child.stdout.on("data", (chunk: Buffer) => {
        for (const frame of this.lines.push(chunk)) this.receive(frame);
      });
      child.stderr.pipe(this.stderr);
    });
    return this.starting;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.ended || !stdin.writable) return Promise.reject(new Error("Not connected"));
    if ("method" in message && "id" in message) this.inFlight.add(message.id);
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) this.inFlight.delete(id);
    }
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) return this.finish();
    child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      this.exited.then(() => true),
      new Promise<false>((r) => {
        timer = setTimeout(() => r(false), CLOSE_WAIT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (!waited) {
      child.kill("SIGKILL");
      // "close" waits for every stdio stream to end; a grandchild holding the pipes open (or an
      // unread stream) must not keep it from coming.
      child.stdout.destroy();
      child.stderr.destroy();
      await this.exited;
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.inFlight.clear();
    this.onclose?.();
  }

  private receive(frame: Frame): void {
    const bad = this.problem(frame);
    if ("message" in bad) {
      const m = bad.message;
      if (!("method" in m) && "id" in m && m.id !== undefined) this.inFlight.delete(m.id);
      this.onmessage?.(m);
      return;
    }
    this.fail(bad.own !== undefined && this.inFlight.has(bad.own) ? [bad.own] : [...this.inFlight], bad.why);
  }

  /** The frame as a message, or what is wrong with it and the request id it names (if any). */
  private problem(frame: Frame): { message: JSONRPCMessage } | { why: string; own?: RequestId } {
    if ("dropped" in frame) {
      const { bytes, head, tail } = frame.dropped;
      return {
        why: `result too large: the server sent ${size(bytes)} on one line, over Tandem's ${size(this.max)} limit for one MCP message; it was discarded`,
        own: idAtEdges(head, tail),
      };
    }
    let value: unknown;
    try {
      value = JSON.parse(frame.line);
    } catch {
      return { why: `the server wrote a line to stdout that is not JSON (${preview(frame.line)})` };
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) return { message: parsed.data };
    const id = (value as { id?: unknown } | null)?.id;
    return {
      why: `the server wrote a line to stdout that is not a JSON-RPC message (${preview(frame.line)})`,
      ...((typeof id === "number" || typeof id === "string") && { own: id }),
    };
  }

  /** Answers `ids` with a JSON-RPC error on the server's behalf, so no request waits on a lost frame. */
  private fail(ids: RequestId[], why: string): void {
    this.onerror?.(new Error(why));
    const message = `${why}. Tandem failed ${ids.length === 1 ? "the request" : "the requests"} waiting on it instead of waiting for a reply; the server stays connected`;
    for (const id of ids) {
      this.inFlight.delete(id);
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: FRAME_ERROR, message } });
    }
  }
}

/** The request id of a JSON-RPC message of which only the first and last bytes are known. */
export function idAtEdges(head: string, tail: string): RequestId | undefined {
  const value =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head)?.[1] ??
    /[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail)?.[1];
  if (value === undefined) return undefined;
  return JSON.parse(value) as RequestId;
}

function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${bytes} bytes`;
  const m = bytes / (1024 * 1024);
  return `${Number.isInteger(m) ? m : m.toFixed(1)} MiB`;
}

/** The start of a bad line, quoted and escaped (no control character reaches a terminal). */
function preview(line: string): string {
  const cut = line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line;
  return JSON.stringify(cut);
}
