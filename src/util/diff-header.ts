/**
 * The path on a unified diff's `---`/`+++` line, git style: quoted with C escapes when it holds a
 * control character, a quote or a backslash. Shared by apply_patch's diff (tools/patch/diff.ts)
 * and undo's (checkpoints/restore.ts), so both name a file the same way.
 */
const C_ESCAPES: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\t": "\\t",
  "\n": "\\n",
  "\v": "\\v",
  "\f": "\\f",
  "\r": "\\r",
  '"': '\\"',
  "\\": "\\\\",
};

/**
 * `prefix + path` for a `---`/`+++` line, quoted as git quotes it (C escapes inside double
 * quotes) when the path holds a control character, a double quote or a backslash: a file name
 * with a newline must not read as the next line of the diff (a forged header or hunk).
 */
export function headerPath(prefix: string, path: string): string {
  const full = prefix + path;
  if (!/[\u0000-\u001f\u007f"\\]/.test(full)) return full;
  const body = full.replace(
    /[\u0000-\u001f\u007f"\\]/g,
    (c) => C_ESCAPES[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`,
  );
  return `"${body}"`;
}
