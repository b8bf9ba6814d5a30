/**
 * Makes text from a model (or any untrusted source) safe to show on a terminal: control
 * characters become visible symbols instead of acting. Without this a command such as
 * `rm -rf ~ #\r\x1b[2Kls` would show in an approval prompt as `ls` — the user would approve
 * what they did not see. Bidirectional overrides ("Trojan Source") are shown too.
 *
 * Contract: `\n` is kept (multi-line commands are legitimate), a tab becomes two spaces, every
 * other C0 control, DEL and C1 control becomes a visible stand-in (U+2400 block: `␍`, `␛`, …;
 * `␡` for DEL; `�` for C1), and bidi controls become `⟪U+202E⟫`. Pure.
 *
 * This is the strict form, for what a user decides on (commands, approvals, questions): every
 * character shows as it is. Transcript text goes through terminal-text.ts, which shares
 * `controlSymbol` and keeps command output's SGR colours.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\t]/g;
const CONTROL_ONE = new RegExp(CONTROL.source);

/**
 * The visible stand-in for one character `printable` replaces; any other character (`\n`
 * included) is returned as it is.
 */
export function controlSymbol(c: string): string {
  if (c.length !== 1 || !CONTROL_ONE.test(c)) return c;
  const code = c.charCodeAt(0);
  if (c === "\t") return "  ";
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  if (code <= 0x9f) return "\ufffd";
  return `⟪U+${code.toString(16).toUpperCase().padStart(4, "0")}⟫`;
}

export function printable(text: string): string {
  return text.replace(CONTROL, controlSymbol);
}
