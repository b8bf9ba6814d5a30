/**
 * Bracketed paste (xterm `?2004`): with the mode on, a terminal wraps pasted text in
 * `ESC[200~ … ESC[201~`. Ink's input parser would cut that into a start sequence, text chunks and
 * an end sequence, and single characters of the paste (a lone CR, a Tab) would look like keys.
 * So the raw bytes are split here, before Ink sees them:
 *
 * - `PasteParser` (pure): feeds on raw chunks and returns, in order, key data (for Ink) and whole
 *   pastes (for the composer). Markers split across chunks are held back until they resolve; a
 *   paste may span any number of chunks; a stray end marker is dropped.
 * - `PasteStdin`: a stand-in for `process.stdin` given to Ink's `render`. It reads the real
 *   stdin, hands key data to Ink through the same `readable`/`read()` contract Ink uses, and
 *   delivers pastes synchronously to a listener, so order with surrounding keys is kept. A paste
 *   nobody takes (e.g. while the question pane is open) goes to Ink as plain typed text.
 * - `enableBracketedPaste(out)`: turns the mode on and returns an idempotent "off", which also
 *   runs on process exit (crash, signal) so the terminal is never left in the mode.
 */
import { EventEmitter } from "node:events";
import { writeSync } from "node:fs";

export const PASTE_START = "\x1b[200~";
export const PASTE_END = "\x1b[201~";
export const PASTE_MODE_ON = "\x1b[?2004h";
export const PASTE_MODE_OFF = "\x1b[?2004l";

export type InputPart = { type: "keys"; text: string } | { type: "paste"; text: string };

/** Length of the longest suffix of `s` that is a proper prefix of `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--)
    if (marker.startsWith(s.slice(s.length - n))) return n;
  return 0;
}

/**
 * Pasted text as it should be inserted: line breaks normalised to LF, escape sequences and control
 * characters other than LF and Tab removed. Nothing else changes (a trailing `\` stays).
 */
export function cleanPaste(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\x1b[\s\S]?/g, "")
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
}

export class PasteParser {
  private buf = "";
  private inPaste = false;
  private pasted = "";

  /** Whether a paste has started and not yet ended. */
  get pasting(): boolean {
    return this.inPaste;
  }

  /** Whether bytes are held back (a possible marker prefix or an open paste). */
  get holding(): boolean {
    return this.inPaste || this.buf !== "";
  }

  push(chunk: string): InputPart[] {
    this.buf += chunk;
    const out: InputPart[] = [];
    const keys = (text: string) => {
      if (!text) return;
      const last = out[out.length - 1];
      if (last?.type === "keys") last.text += text;
      else out.push({ type: "keys", text });
    };
    for (;;) {
      if (!this.inPaste) {
        const at = this.buf.indexOf(PASTE_START);
        if (at < 0) {
          // Drop stray end markers (e.g. after an unterminated paste was flushed).
          let rest = this.buf.split(PASTE_END).join("");
          const hold = Math.max(partialSuffix(rest, PASTE_START), partialSuffix(rest, PASTE_END));
          keys(rest.slice(0, rest.length - hold));
          rest = rest.slice(rest.length - hold);
          this.buf = rest;
          return out;
        }
        keys(this.buf.slice(0, at).split(PASTE_END).join(""));
        this.buf = this.buf.slice(at + PASTE_START.length);
        this.inPaste = true;
        this.pasted = "";
      }
      const end = this.buf.indexOf(PASTE_END);
      if (end < 0) {
        const hold = partialSuffix(this.buf, PASTE_END);
        this.pasted += this.buf.slice(0, this.buf.length - hold);
        this.buf = this.buf.slice(this.buf.length - hold);
        return out;
      }
      this.pasted += this.buf.slice(0, end);
      this.buf = this.buf.slice(end + PASTE_END.length);
      this.inPaste = false;
      out.push({ type: "paste", text: cleanPaste(this.pasted) });
      this.pasted = "";
    }
  }

  /**
   * Gives up waiting: held-back marker prefixes become keys (a lone Esc), an open paste is
   * delivered as it stands.
   */
  flush(): InputPart[] {
    const out: InputPart[] = [];
    if (this.inPaste) {
      this.inPaste = false;
      out.push({ type: "paste", text: cleanPaste(this.pasted + this.buf) });
    } else if (this.buf) out.push({ type: "keys", text: this.buf });
    this.buf = "";
    this.pasted = "";
    return out;
  }
}

/** Returns true when the paste was taken. */
export type PasteListener = (text: string) => boolean;

/** The part of a TTY read stream that Ink's `render` uses. */
export interface SourceStdin extends NodeJS.EventEmitter {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  setEncoding(enc: BufferEncoding): unknown;
  read(): string | Buffer | null;
  ref?(): unknown;
  unref?(): unknown;
}

/**
 * Ink's stdin stand-in. `marker` ms: how long a possible marker prefix (e.g. a lone Esc) is held
 * before it counts as keys; `idle` ms: how long an open paste waits for its end marker.
 */
export class PasteStdin extends EventEmitter {
  readonly isTTY: boolean;
  private readonly parser = new PasteParser();
  private readonly queue: string[] = [];
  private listener: PasteListener | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attached = false;

  constructor(
    private readonly source: SourceStdin,
    private readonly timing: { marker: number; idle: number } = { marker: 15, idle: 1000 },
  ) {
    super();
    this.isTTY = !!source.isTTY;
    this.on("newListener", (event: string) => {
      if (event === "readable") queueMicrotask(() => this.sync());
    });
    this.on("removeListener", (event: string) => {
      if (event === "readable") queueMicrotask(() => this.sync());
    });
  }

  /** Who takes pastes (the composer while it is active); returns an unsubscribe. */
  onPaste(listener: PasteListener): () => void {
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = undefined;
    };
  }

  setEncoding(_enc: BufferEncoding): this {
    this.source.setEncoding("utf8");
    return this;
  }

  setRawMode(mode: boolean): this {
    this.source.setRawMode?.(mode);
    return this;
  }

  ref(): this {
    this.source.ref?.();
    return this;
  }

  unref(): this {
    this.source.unref?.();
    return this;
  }

  read(): string | null {
    if (!this.queue.length) return null;
    return this.queue.splice(0).join("");
  }

  /** Feeds raw data (also used by tests). */
  write(chunk: string): void {
    clearTimeout(this.timer);
    this.deliver(this.parser.push(chunk));
    if (this.parser.holding)
      this.timer = setTimeout(
        () => this.deliver(this.parser.flush()),
        this.parser.pasting ? this.timing.idle : this.timing.marker,
      );
  }

  private deliver(parts: InputPart[]): void {
    for (const part of parts) {
      if (part.type === "paste" && this.listener?.(part.text)) continue;
      this.queue.push(part.text);
      this.emit("readable");
    }
  }

  private readonly onSourceReadable = () => {
    let chunk: string | Buffer | null;
    // biome-ignore lint/suspicious/noAssignInExpressions: the stream read loop
    while ((chunk = this.source.read()) !== null) this.write(String(chunk));
  };

  /** Reads the real stdin while Ink listens, and lets it go when Ink stops. */
  private sync(): void {
    const want = this.listenerCount("readable") > 0;
    if (want && !this.attached) {
      this.attached = true;
      this.source.setEncoding("utf8");
      this.source.on("readable", this.onSourceReadable);
    } else if (!want && this.attached) {
      this.attached = false;
      this.source.removeListener("readable", this.onSourceReadable);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.listener = undefined;
    if (this.attached) this.source.removeListener("readable", this.onSourceReadable);
    this.attached = false;
  }
}

/**
 * Turns bracketed paste on for `fd` (a TTY) and returns an idempotent function that turns it off;
 * the same runs on process exit, so a crash or signal does not leave the terminal in the mode.
 */
export function enableBracketedPaste(fd = 1): () => void {
  const write = (s: string) => {
    try {
      writeSync(fd, s);
    } catch {
      // the terminal is gone
    }
  };
  let on = true;
  const off = () => {
    if (!on) return;
    on = false;
    process.off("exit", off);
    write(PASTE_MODE_OFF);
  };
  process.on("exit", off);
  write(PASTE_MODE_ON);
  return off;
}
