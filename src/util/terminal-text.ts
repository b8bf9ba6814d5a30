/**
 * The one sanitiser for untrusted text on a terminal (README, "What reaches your terminal").
 * Every renderer of model-, tool- or server-sourced text — the TUI's transcript, live area,
 * pickers and status line, `tandem exec`'s human output — passes it through `terminalText`, or,
 * for what the user decides on (commands, approvals, questions), the stricter `printable`
 * (./printable.ts), whose symbols it shares. Machine output (`--json`, JSON-RPC, HTTP bodies)
 * never goes through it: it stays byte-exact and its clients sanitise.
 *
 * Contract of `terminalText(text, { sgr })`:
 * - `\n` and `\t` are kept; `\r\n` becomes `\n` (it overwrites nothing, and PTY output is full of it).
 * - With `sgr: true` (command output), a complete SGR sequence `ESC [ params m` (params only
 *   digits, `;` and `:`, at most 64 of them) is kept as is: colours and text attributes.
 * - Every other control character shows as its symbol: ESC as `␛`, so OSC (clipboard, title,
 *   hyperlinks), DCS, APC, PM, SOS, any other CSI (cursor moves, erase, scroll, modes) and a lone
 *   ESC print as text and cannot act; a lone `\r` as `␍` (it would overwrite the line), BEL `␇`,
 *   DEL `␡`, C1 controls (8-bit CSI 0x9B, OSC 0x9D, …) `�`, bidi overrides and isolates
 *   `⟪U+202E⟫`.
 * - Idempotent; text without control or bidi characters is returned unchanged.
 * Pure.
 */
import { controlSymbol } from "./printable.js";

export interface TerminalTextOptions {
  /** Keep SGR colour sequences (command output only: model text never keeps any). */
  sgr?: boolean;
}

const SGR_PARAMS = 64;
/** What terminalText changes: CRLF, an SGR sequence, or one control / bidi character (not \n, \t). */
const MATCH = new RegExp(
  `\\r\\n|\\x1b\\[[0-9;:]{0,${SGR_PARAMS}}m|[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]`,
  "g",
);
const ANY = new RegExp(MATCH.source);

const symbols = (s: string) => Array.from(s, controlSymbol).join("");

export function terminalText(text: string, opts: TerminalTextOptions = {}): string {
  if (!ANY.test(text)) return text;
  return text.replace(MATCH, (m) => {
    if (m === "\r\n") return "\n";
    if (m.length > 1) return opts.sgr ? m : symbols(m);
    return controlSymbol(m);
  });
}

/** The start of something `terminalText` treats as a whole, cut off at the end of a chunk. */
const PARTIAL_SGR = new RegExp(`\\x1b(?:\\[[0-9;:]{0,${SGR_PARAMS}})?$`);

/**
 * `terminalText` over a stream of chunks (live deltas), so that a sequence split across chunks
 * comes out as it would whole: the concatenated results equal `terminalText` of the
 * concatenated chunks. A trailing `\r`, and with `sgr` a trailing partial SGR sequence, is
 * held back (at most 66 characters) until the next chunk or `end()`.
 */
export class TerminalTextStream {
  private held = "";
  private styled = false;

  constructor(private readonly opts: TerminalTextOptions = {}) {}

  /** The safe text for `chunk` (may be shorter: see the class comment). */
  write(chunk: string): string {
    const text = this.held + chunk;
    let cut = text.length;
    if (text.endsWith("\r")) cut -= 1;
    else if (this.opts.sgr) {
      const m = PARTIAL_SGR.exec(text);
      if (m) cut = m.index;
    }
    this.held = text.slice(cut);
    return this.safe(text.slice(0, cut));
  }

  /**
   * What was held back, and, when SGR sequences were passed, a reset (`ESC[0m`, Tandem's own) so
   * a colour the program left on does not leak into what follows. The stream may be reused.
   */
  end(): string {
    const rest = this.safe(this.held);
    const reset = this.styled ? "\x1b[0m" : "";
    this.held = "";
    this.styled = false;
    return rest + reset;
  }

  private safe(text: string): string {
    const out = terminalText(text, this.opts);
    if (this.opts.sgr && !this.styled && out.includes("\x1b[")) this.styled = true;
    return out;
  }
}
