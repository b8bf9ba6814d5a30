/**
 * How an `exec_command` script is shown to Codex clients: `command` is the argv Tandem actually
 * runs, shell-quoted (`/bin/bash -c 'ls > out.txt && cat out.txt'`), and `commandActions` says what
 * the script does when that can be read without running it.
 *
 * Contract:
 * - `codexCommand(script)` quotes each argv word POSIX-style: words made only of safe characters
 *   stay bare, anything else goes in single quotes (a `'` inside becomes `'\''`). A Codex client
 *   splits it back with shlex and recognises `<shell> -c <script>`, so the script displays exactly
 *   as the model wrote it (before, the client re-split the raw script and showed `'&&'`, `'>'`).
 * - The shell is the one exec_command uses when the call names none: `$SHELL`, else /bin/bash.
 * - `commandActions(script)`: for a plain script (tools/exec/plain-script.ts), one action per
 *   simple command: `cat`/`head`/`tail`/`less`/`sed -n` of one file → `read`; `ls`/`find`/`tree` →
 *   `listFiles`; `rg`/`grep`/`ag` → `search`; anything else → `unknown` with that command's text.
 *   A script that is not plain (redirects, variables, subshells) is one `unknown` action.
 */
import { basename, resolve } from "node:path";
import { plainCommands } from "../../tools/exec/plain-script.js";

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(word: string): string {
  if (word !== "" && SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** The shell exec_command runs a script with when the call does not name one. */
export function defaultShell(): string {
  return process.env.SHELL || "/bin/bash";
}

export function codexCommand(script: string, shell = defaultShell()): string {
  return [shell, "-c", script].map(shellQuote).join(" ");
}

export type CommandAction =
  | { type: "read"; command: string; name: string; path: string }
  | { type: "listFiles"; command: string; path: string | null }
  | { type: "search"; command: string; query: string | null; path: string | null }
  | { type: "unknown"; command: string };

const READERS = new Set(["cat", "head", "tail", "less", "more", "bat", "nl"]);
const LISTERS = new Set(["ls", "find", "tree", "fd"]);
const SEARCHERS = new Set(["rg", "grep", "ag", "ack", "git-grep"]);

/** Arguments that are not options (a lone `-` or words after `--` count as operands). */
function operands(args: string[]): string[] {
  const out: string[] = [];
  let rest = false;
  for (const a of args) {
    if (rest || !a.startsWith("-") || a === "-") out.push(a);
    else if (a === "--") rest = true;
  }
  return out;
}

function action(words: string[], cwd: string): CommandAction {
  const command = words.map(shellQuote).join(" ");
  const [name, ...args] = words;
  const ops = operands(args);
  if ((READERS.has(name) || (name === "sed" && args.includes("-n"))) && ops.length >= 1) {
    const file = ops[ops.length - 1];
    if (name !== "sed" && ops.length !== 1) return { type: "unknown", command };
    return { type: "read", command, name: basename(file), path: resolve(cwd, file) };
  }
  if (LISTERS.has(name)) return { type: "listFiles", command, path: ops[0] ?? null };
  if (SEARCHERS.has(name)) return { type: "search", command, query: ops[0] ?? null, path: ops[1] ?? null };
  return { type: "unknown", command };
}

export function commandActions(script: string, cwd: string): CommandAction[] {
  const commands = plainCommands(script);
  if (!commands?.length) return [{ type: "unknown", command: script }];
  return commands.map((words) => action(words, cwd));
}
