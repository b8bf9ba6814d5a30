/**
 * Known-safe commands for the `untrusted` approval policy (SPEC A1–A3): read-only tools whose
 * every invocation in the command line is harmless. Anything with redirects, substitutions,
 * or an unknown program is not known-safe and asks the user.
 */

const SAFE = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "pwd",
  "echo",
  "printf",
  "grep",
  "rg",
  "true",
  "false",
  "which",
  "whoami",
  "date",
  "uname",
  "stat",
  "file",
  "tree",
  "du",
  "df",
  "env",
  "nl",
  "sort",
  "uniq",
  "cut",
  "tr",
  "diff",
  "cmp",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "id",
]);

const SAFE_GIT = new Set([
  "status",
  "log",
  "diff",
  "show",
  "branch",
  "rev-parse",
  "ls-files",
  "blame",
  "remote",
]);

/** Splits on `&&`, `||`, `;`, `|` outside quotes; returns null for constructs we refuse to judge. */
function segments(cmd: string): string[][] | null {
  if (/[<>`]|\$\(|\$\{|\n/.test(cmd.replace(/'[^']*'/g, "''"))) return null;
  const out: string[][] = [];
  let words: string[] = [];
  let cur = "";
  let quote: string | null = null;
  const endWord = () => {
    if (cur) words.push(cur);
    cur = "";
  };
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i];
    if (quote) {
      if (c === quote) quote = null;
      else cur += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (/\s/.test(c)) endWord();
    else if (c === ";" || c === "|" || c === "&") {
      endWord();
      if (c === "&" && cmd[i + 1] !== "&") return null; // background job
      if (cmd[i + 1] === c) i++;
      if (words.length) out.push(words);
      words = [];
    } else cur += c;
  }
  if (quote) return null;
  endWord();
  if (words.length) out.push(words);
  return out;
}

export function isKnownSafe(cmd: string): boolean {
  const segs = segments(cmd.trim());
  if (!segs || segs.length === 0) return false;
  return segs.every(([prog, ...args]) => {
    if (prog === "git") return SAFE_GIT.has(args[0] ?? "") && !args.includes("--output");
    if (prog === "find") return !args.some((a) => /^-(exec|execdir|delete|ok|fprint)/.test(a));
    if (prog === "sed") return args[0] === "-n" && !args.some((a) => a.startsWith("-i"));
    return SAFE.has(prog);
  });
}

/** Words of a simple command (for prefix rules); null when it is not a simple command. */
export function commandWords(cmd: string): string[] | null {
  const segs = segments(cmd.trim());
  return segs && segs.length === 1 ? segs[0] : null;
}

/** True when `cmd` is a simple command starting with `prefix`. */
export function matchesPrefix(cmd: string, prefix: string[]): boolean {
  const words = commandWords(cmd);
  return !!words && prefix.length > 0 && prefix.every((p, i) => words[i] === p);
}
