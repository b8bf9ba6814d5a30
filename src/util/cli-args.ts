/**
 * One wording for command-line mistakes across subcommands. node:util's parseArgs messages
 * are long and, with positionals allowed, end in an unbalanced quote; this turns them into
 * `unknown option '--frobnicate'` / `option '--port' needs a value`; any other error's message
 * is returned as is. Callers add the usage text and exit 2.
 */
export function argError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = String(e?.message ?? err);
  const quoted = /'([^']*)'/.exec(message)?.[1];
  if (e?.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted) return `unknown option '${quoted}'`;
  if (e?.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted) return `unexpected argument '${quoted}'`;
  if (e?.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted) {
    const option = quoted.replace(/ <value>$/, "");
    if (/argument missing|ambiguous/.test(message)) return `option '${option}' needs a value`;
    if (/does not take an argument/.test(message)) return `option '${option}' does not take a value`;
  }
  return message;
}

/** True when `argv` asks for help before any `--` (after which words are arguments). */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}
