/**
 * Message framing for the app server, behind one small interface (like the MCP SDK's Transport):
 * a transport moves whole JSON texts; it never parses them.
 *
 * Contract:
 * - `start()` begins delivering messages to `onmessage`, one call per message, in arrival order.
 * - A message larger than `maxBytes` is never buffered whole: it is skipped and reported to
 *   `onerror` as a `MessageTooLargeError` (a `FramingError`); the next message is read normally.
 *   Other `onerror` errors (stream or socket failures) are for logging; the transport then closes.
 * - `send` after `close()` (or after the peer went away) is a silent no-op: the peer is gone.
 * - `onclose` fires exactly once, whether the peer closed (EOF, socket close) or `close()` was called.
 */
import type { Readable, Writable } from "node:stream";
import type { WebSocket } from "ws";
import * as WireLog from "../../util/log-wire.js";

export interface Transport {
  start(): Promise<void>;
  send(message: string): void;
  close(): Promise<void>;
  onmessage?: (message: string) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** A message the transport could not deliver (too large, binary): the peer gets an error, the link stays. */
export class FramingError extends Error {
  override name = "FramingError";
}

export class MessageTooLargeError extends FramingError {
  override name = "MessageTooLargeError";
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`message of ${bytes} bytes exceeds the ${limit}-byte limit; it was ignored`);
  }
}

/**
 * Splits a byte stream into lines ("\n", optional "\r" before it) without holding more than
 * `maxBytes` of one line. Pure and synchronous so framing is unit-testable.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of the current line dropped so far because it is over the limit (0 = not dropping). */
  private dropped = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onTooLarge: (bytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl;
      this.append(chunk.subarray(start, end));
      if (nl < 0) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  /** End of input: a last line without "\n" still counts. */
  end(): void {
    if (this.size > 0 || this.dropped > 0) this.finishLine();
  }

  private append(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.dropped > 0) {
      this.dropped += piece.length;
      return;
    }
    if (this.size + piece.length > this.maxBytes) {
      this.dropped = this.size + piece.length;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
  }

  private finishLine(): void {
    if (this.dropped > 0) {
      const bytes = this.dropped;
      this.dropped = 0;
      this.onTooLarge(bytes);
      return;
    }
    let line = Buffer.concat(this.parts, this.size).toString("utf8");
    this.parts = [];
    this.size = 0;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() !== "") this.onLine(line);
  }
}

/** JSON lines over a pair of streams (stdin/stdout, or PassThrough pairs in tests). */
export class StdioTransport implements Transport {
  onmessage?: (message: string) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private closed = false;
  private readonly splitter: LineSplitter;
  private readonly onData = (chunk: Buffer | string) =>
    this.splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  private readonly onEnd = () => {
    this.splitter.end();
    void this.close();
  };
  private readonly onStreamError = (err: Error) => {
    this.onerror?.(err);
    void this.close();
  };

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {
    this.splitter = new LineSplitter(
      maxBytes,
      (line) => {
        WireLog.frame("app-server", "in", "stdio", line);
        this.onmessage?.(line);
      },
      (bytes) => this.onerror?.(new MessageTooLargeError(bytes, this.maxBytes)),
    );
  }

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.once("end", this.onEnd);
    this.input.once("error", this.onStreamError);
    this.output.on("error", this.onStreamError);
  }

  send(message: string): void {
    if (this.closed || this.output.writableEnded || this.output.destroyed) return;
    WireLog.frame("app-server", "out", "stdio", message);
    this.output.write(`${message}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onStreamError);
    // Stop reading, so an open stdin no longer keeps the process alive.
    this.input.pause();
    this.onclose?.();
  }
}

/** One JSON message per websocket text frame. */
export class WebSocketTransport implements Transport {
  onmessage?: (message: string) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private closed = false;
  private readonly via = WireLog.connectionLabel("ws");

  constructor(
    private readonly socket: WebSocket,
    private readonly maxBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.socket.on("message", (data, isBinary) => {
      const buf = Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.isBuffer(data)
          ? data
          : Buffer.from(data);
      if (buf.length > this.maxBytes) {
        this.onerror?.(new MessageTooLargeError(buf.length, this.maxBytes));
        return;
      }
      if (isBinary) {
        this.onerror?.(
          new FramingError("binary frames are not accepted; send each JSON message as a text frame"),
        );
        return;
      }
      const text = buf.toString("utf8");
      WireLog.frame("app-server", "in", this.via, text);
      this.onmessage?.(text);
    });
    this.socket.on("error", (err) => this.onerror?.(err));
    this.socket.once("close", () => void this.close());
  }

  send(message: string): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    WireLog.frame("app-server", "out", this.via, message);
    this.socket.send(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING)
      this.socket.close(1000);
    this.onclose?.();
  }
}
