/**
 * Turns smol-toml's parse errors into messages a person can act on: `line L, column C: what,
 * and what to do`. smol-toml reports a string left open at the end of its line as "control
 * characters are not allowed in strings" (the newline is the control character); that case is
 * recognised and named as an unclosed string, with the column of its opening quote.
 */

interface TomlErrorLike {
  message: string;
  line?: number;
  column?: number;
}

/**
 * The 1-based column of a single-line string that `line` opens and never closes, or undefined.
 * Comments end the scan; `\"` does not close a basic string; `"""`/`'''` (multi-line) are skipped
 * over when closed on the same line and otherwise left to smol-toml's own message.
 */
export function unclosedStringColumn(line: string): number | undefined {
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === "#") return undefined;
    if (c !== '"' && c !== "'") {
      i += 1;
      continue;
    }
    const triple = line.startsWith(c.repeat(3), i);
    const close = triple ? c.repeat(3) : c;
    let j = i + close.length;
    let closed = false;
    while (j < line.length) {
      if (c === '"' && line[j] === "\\") j += 2;
      else if (line.startsWith(close, j)) {
        closed = true;
        break;
      } else j += 1;
    }
    if (!closed) return triple ? undefined : i + 1;
    i = j + close.length;
  }
  return undefined;
}

/** `file`'s parse error as one message: where, what, and (for an unclosed string) the fix. */
export function describeTomlError(file: string, text: string, err: unknown): string {
  const e = err as TomlErrorLike;
  const raw = String(e?.message ?? err);
  const what = raw.replace(/^Invalid TOML document: /, "").split("\n\n")[0];
  if (typeof e?.line !== "number") return `cannot parse ${file}: ${what}`;
  const lines = text.split(/\r?\n/);
  const source = lines[e.line - 1] ?? "";
  if (/control characters are not allowed in strings|unfinished string/.test(what)) {
    const col = unclosedStringColumn(source);
    if (col !== undefined) {
      const quote = source[col - 1];
      return (
        `cannot parse ${file}: line ${e.line}, column ${col}: unclosed string — the ${quote} opened here ` +
        `has no closing ${quote} before the end of the line. Add the closing ${quote} ` +
        `(a string that spans lines needs ${quote.repeat(3)}).\n  ${e.line} | ${source}`
      );
    }
    if (what === "unfinished string")
      return (
        `cannot parse ${file}: line ${e.line}, column ${e.column}: unclosed string — the string that ` +
        `starts here is never closed. Add its closing quote.\n  ${e.line} | ${source}`
      );
  }
  return `cannot parse ${file}: line ${e.line}, column ${e.column}: ${what}\n  ${e.line} | ${source}`;
}
