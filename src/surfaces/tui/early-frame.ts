/**
 * The terminal UI's first frame, drawn before the UI's modules load (issue 30 item 3).
 *
 * Loading and compiling the UI (Ink, React, yoga, the runtime) takes a few hundred ms on Node 20;
 * a terminal that stays blank that long feels broken. `drawEarlyFrame()` runs in cli.ts before
 * that load and draws what the UI's first Ink frame will hold at the bottom: the composer's
 * rounded box with its prompt and a "starting" status line. It switches the terminal to raw mode
 * so keys typed meanwhile are neither echoed over the frame nor lost: they wait in the terminal's
 * input queue until Ink reads them, so typing can start at once. It turns bracketed paste on too,
 * so a path pasted (or a file dropped) meanwhile still arrives as one paste (an image chip).
 *
 * Contract: the frame is gone before anyone else writes. `clearEarlyFrame()` erases the frame's
 * lines, leaves the cursor where the frame began and restores the terminal's
 * modes (raw, bracketed paste); every `process.stdout`/`process.stderr` write (a usage error, a
 * warning, the missing-key question) and the process exiting call it first. The UI calls
 * `clearEarlyFrame({ handOver: true })` just before Ink mounts: the modes stay on for Ink (which
 * turns both on itself and off at exit), so nothing typed or pasted in between is cooked. Ink
 * then draws in the same place. Imports nothing: it must cost ~nothing.
 */

interface Shown {
  /** Lines the frame occupies (the cursor ends on the last, at column 0). */
  lines: number;
  /** Raw mode was off before the frame turned it on. */
  restoreRaw: boolean;
  writes: { out: typeof process.stdout.write; err: typeof process.stderr.write };
}

let shown: Shown | null = null;

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

/** The frame's text for a terminal `columns` wide, `color` when the terminal takes SGR colours. */
export function earlyFrameText(columns: number, color: boolean): string[] {
  const sgr = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const inner = columns - 2;
  const placeholder = "ask Tandem to do something — /help for commands";
  const body = ` ${sgr("36", "›")} ${sgr("7", " ")}${sgr("2", placeholder)}`;
  const bodyWidth = 4 + placeholder.length;
  const pad = " ".repeat(Math.max(0, inner - bodyWidth));
  const fits = bodyWidth <= inner;
  const row = fits
    ? `${sgr("36", "│")}${body}${pad}${sgr("36", "│")}`
    : `${sgr("36", "│")} ${sgr("36", "›")} `;
  return [
    sgr("36", `╭${"─".repeat(inner)}╮`),
    row,
    sgr("36", `╰${"─".repeat(inner)}╯`),
    sgr("2", "starting…"),
  ];
}

/**
 * Draws the frame when stdin and stdout are both terminals at least 20 columns wide (the UI
 * refuses anything else, and says so); otherwise does nothing.
 */
export function drawEarlyFrame(): void {
  const out = process.stdout;
  const input = process.stdin;
  if (shown || !out.isTTY || !input.isTTY || (out.columns ?? 0) < 20) return;
  const color = !process.env.NO_COLOR && process.env.TERM !== "dumb";
  const lines = earlyFrameText(out.columns, color);
  const restoreRaw = !input.isRaw;
  try {
    if (restoreRaw) input.setRawMode(true);
  } catch {
    return;
  }
  const writes = { out: out.write, err: process.stderr.write };
  // The cursor is hidden while the frame is up (Ink hides it too once it draws).
  writes.out.call(out, `\x1b[?25l${PASTE_ON}${lines.join("\n")}\r`);
  shown = { lines: lines.length, restoreRaw, writes };
  // A write before the UI's own clear (a usage error, a warning, the missing-key question)
  // erases the frame first.
  out.write = ((...args: Parameters<typeof out.write>) => {
    clearEarlyFrame();
    return out.write(...args);
  }) as typeof out.write;
  process.stderr.write = ((...args: Parameters<typeof out.write>) => {
    clearEarlyFrame();
    return process.stderr.write(...args);
  }) as typeof out.write;
  process.once("exit", exitClear);
}

/**
 * Erases the frame and restores the streams' writes; idempotent. Restores raw mode and turns
 * bracketed paste off unless `handOver` (the UI mounting Ink, which keeps both on).
 */
export function clearEarlyFrame(opts: { handOver?: boolean } = {}): void {
  if (!shown) return;
  const { lines, restoreRaw, writes } = shown;
  shown = null;
  process.stdout.write = writes.out;
  process.stderr.write = writes.err;
  process.removeListener("exit", exitClear);
  // Each of the frame's lines erased (EL 2), bottom to top, leaving the cursor at column 0 of
  // its first. Not "erase to the end of the screen": tmux, for one, answers that at the top-left
  // corner by pushing the screen into its scrollback, where the frame would stay.
  const erase = `\r\x1b[2K${"\x1b[1A\x1b[2K".repeat(lines - 1)}`;
  writes.out.call(process.stdout, `${erase}\x1b[?25h${opts.handOver ? "" : PASTE_OFF}`);
  if (opts.handOver) return;
  try {
    if (restoreRaw && process.stdin.isTTY) process.stdin.setRawMode(false);
  } catch {
    // the terminal went away; nothing to restore
  }
}

const exitClear = () => clearEarlyFrame();
