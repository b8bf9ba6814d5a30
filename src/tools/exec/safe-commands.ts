/**
 * Known-safe commands for the `untrusted` approval policy (requirements A1–A3, README "Sandbox and approvals"), and
 * prefix-rule matching for approvals. Modelled on Codex's `is_known_safe_command`.
 *
 * Contract of `isKnownSafe(cmd, shell?)`: true only when `cmd` parses as a plain script
 * (plain-script.ts: no expansions, substitutions, redirections to files, subshells, …) and every
 * simple command in it is a read-only tool invoked without an option that writes, deletes or runs
 * something. Unknown programs, paths to programs (`./ls`) and unknown shells (`shell` other than
 * bash/sh/dash/zsh) are not known-safe: the user is asked.
 * - `bash|sh|dash|zsh -c|-lc SCRIPT` is safe when SCRIPT is; `env`, `nice`, `time`, `command`
 *   and `timeout DURATION` are unwrapped when they have no options or assignments; bare `env`
 *   (it prints the environment, secrets included) and every other wrapper (`xargs`, `nohup`,
 *   `stdbuf`, `sudo`, …) is not safe.
 * - Per-program checks: find (no -exec/-execdir/-ok/-okdir/-delete/-fls/-fprint*), sed (only
 *   `sed -n N[,M]p [files]`), sort (no -o/--output/--compress-program), uniq (no second
 *   positional: the output file), git (status, log, diff, show, branch listing; no global
 *   options but --no-pager; no --output, --ext-diff, --textconv), rg (no --pre, --hostname-bin,
 *   -z/--search-zip), base64 (no -o/--output), tree (no -o, -R), file (no -C), date (no -s),
 *   printf (no -v).
 * Long options are also refused by any abbreviation GNU getopt would accept (`--out=f`).
 */
import { plainCommands } from "./plain-script.js";

const SHELLS = new Set(["bash", "sh", "dash", "zsh"]);

type Check = (args: string[]) => boolean;

const always: Check = () => true;

/** Short-option clusters (`-uo`) that contain any of `letters`. */
const shortHas = (args: string[], letters: string) =>
  args.some((a) => /^-[^-]/.test(a) && [...a.slice(1)].some((c) => letters.includes(c)));

/** An argument that is `full` (a `--long` option) or an abbreviation of it, with or without `=`. */
const isLong = (a: string, full: string) => {
  const name = a.split("=")[0];
  return name.length >= 3 && name.startsWith("--") && full.startsWith(name);
};
const anyLong = (args: string[], ...full: string[]) => args.some((a) => full.some((f) => isLong(a, f)));

const FIND_UNSAFE = /^-(exec|execdir|ok|okdir|delete|fls|fprint|fprint0|fprintf)$/;
const SED_PRINT = /^(\d+|\$)(,(\d+|\$))?p$/;

function uniq(args: string[]): boolean {
  let positional = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      positional += args.length - i - 1;
      break;
    }
    if (
      /^-[fsw]$/.test(a) ||
      (!a.includes("=") && anyLong([a], "--skip-fields", "--skip-chars", "--check-chars"))
    )
      i++;
    else if (!a.startsWith("-") || a === "-") positional++;
  }
  return positional <= 1;
}

const BRANCH_LISTING = new Set([
  "--show-current",
  "-a",
  "--all",
  "-r",
  "--remotes",
  "-v",
  "-vv",
  "--verbose",
  "-l",
  "--list",
  "--no-color",
  "--no-column",
]);

function git(args: string[]): boolean {
  let i = 0;
  while (args[i] === "--no-pager") i++;
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (anyLong(rest, "--output", "--ext-diff", "--textconv", "--exec", "--upload-pack", "--config-env"))
    return false;
  if (sub === "status" || sub === "log" || sub === "diff" || sub === "show") return true;
  if (sub === "branch") {
    const listing = rest.includes("--list") || rest.includes("-l");
    return rest.every((a) => BRANCH_LISTING.has(a) || (listing && !a.startsWith("-")));
  }
  return false;
}

const CHECKS: Record<string, Check> = {
  basename: always,
  cat: always,
  cd: always,
  cmp: always,
  cut: always,
  df: always,
  diff: always,
  dirname: always,
  du: always,
  echo: always,
  expr: always,
  false: always,
  grep: always,
  head: always,
  id: always,
  ls: always,
  nl: always,
  numfmt: always,
  paste: always,
  pwd: always,
  readlink: always,
  realpath: always,
  rev: always,
  seq: always,
  stat: always,
  tac: always,
  tail: always,
  tr: always,
  true: always,
  uname: always,
  wc: always,
  which: always,
  whoami: always,
  base64: (a) => !shortHas(a, "o") && !anyLong(a, "--output"),
  date: (a) => !shortHas(a, "s") && !anyLong(a, "--set"),
  file: (a) => !shortHas(a, "C") && !anyLong(a, "--compile"),
  find: (a) => !a.some((x) => FIND_UNSAFE.test(x)),
  git,
  printf: (a) => !a[0]?.startsWith("-v"),
  rg: (a) => !shortHas(a, "z") && !anyLong(a, "--pre", "--hostname-bin", "--search-zip"),
  sed: (a) => a[0] === "-n" && SED_PRINT.test(a[1] ?? "") && a.slice(2).every((f) => !f.startsWith("-")),
  sort: (a) => !shortHas(a, "o") && !anyLong(a, "--output", "--compress-program"),
  tree: (a) => !shortHas(a, "oR") && !anyLong(a, "--output"),
  uniq,
};

const MAX_DEPTH = 4;

function safeCommand(words: string[], depth: number): boolean {
  const [prog, ...args] = words;
  if (!prog || depth > MAX_DEPTH) return false;
  if (SHELLS.has(prog))
    return args.length === 2 && (args[0] === "-c" || args[0] === "-lc") && safeScript(args[1], depth + 1);
  const plain = args.length > 0 && !args[0].startsWith("-");
  switch (prog) {
    case "env":
      return plain && !args[0].includes("=") && safeCommand(args, depth + 1);
    case "nice":
    case "time":
      return plain && safeCommand(args, depth + 1);
    case "command":
      return (
        (args.length === 2 && (args[0] === "-v" || args[0] === "-V")) ||
        (plain && safeCommand(args, depth + 1))
      );
    case "timeout":
      return /^\d+(\.\d+)?[smhd]?$/.test(args[0] ?? "") && safeCommand(args.slice(1), depth + 1);
  }
  const check = Object.hasOwn(CHECKS, prog) ? CHECKS[prog] : undefined;
  return !!check && check(args);
}

function safeScript(script: string, depth: number): boolean {
  const commands = plainCommands(script);
  return !!commands && commands.length > 0 && commands.every((c) => safeCommand(c, depth));
}

/** See the module contract. */
export function isKnownSafe(cmd: string, shell?: string): boolean {
  if (shell !== undefined && !SHELLS.has(shell.split("/").pop() ?? "")) return false;
  return safeScript(cmd, 0);
}

/** Words of a plain simple command (for prefix rules); null for anything else. */
export function commandWords(cmd: string): string[] | null {
  const commands = plainCommands(cmd);
  return commands?.length === 1 ? commands[0] : null;
}

/** True when `rule` (non-empty) is a prefix of `words`. */
export function isPrefix(rule: readonly string[], words: readonly string[]): boolean {
  return rule.length > 0 && rule.length <= words.length && rule.every((w, i) => words[i] === w);
}

/**
 * True when `cmd` is a plain script (see plain-script.ts) and every simple command in it starts
 * with one of `rules`: `git status && git diff` matches [["git"]], `git status; rm x` does not,
 * and neither does anything with substitutions, redirections or expansions.
 */
export function matchesRules(cmd: string, rules: readonly (readonly string[])[]): boolean {
  const commands = plainCommands(cmd);
  return !!commands && commands.length > 0 && commands.every((c) => rules.some((r) => isPrefix(r, c)));
}

/** True when every simple command of `cmd` starts with `prefix` (see matchesRules). */
export function matchesPrefix(cmd: string, prefix: string[]): boolean {
  return matchesRules(cmd, [prefix]);
}
