/**
 * Plain shell scripts (README "Sandbox and approvals"): the part of POSIX shell syntax whose meaning can be read
 * without running anything — the way Codex's `parse_plain_shell_script` reads `bash -lc` scripts.
 *
 * Contract of `plainCommands(script)`: the simple commands of `script` as argv word lists, in
 * order, when the script is only plain words (bare, 'single-' or "double-quoted", backslash
 * escapes) joined by `&&`, `||`, `;`, `|` or newlines; `null` for anything else, so callers treat
 * it as unknown. Refused (null): any `$` outside single quotes (variables, `$(…)`, `$((…))`,
 * `$'…'`), backticks, `(`, `)`, `{`, `}` (subshells, groups, brace expansion), `<` and any `>`
 * except the harmless `2>&1`, `>/dev/null`, `1>/dev/null`, `2>/dev/null` (dropped from the
 * words), `&` (background, `&>`), `|&`, `;;`, a comment, a leading `!`, a variable assignment
 * before the command (`FOO=1 ls`), an empty command (`&& ls`, `ls | | wc`, `ls &&`), an unclosed
 * quote, and a glob (`*`, `?`, `[`) that could expand to an option: a word with an unquoted glob
 * must start with a literal character other than `-` (`src/*.ts` is fine, `*.ts` and `-dele?e`
 * are not, since a file named `-delete` would turn into an option).
 * Words split on space and tab only, as bash does (other Unicode spaces stay inside a word).
 */

const GLOB = new Set(["*", "?", "["]);
const REFUSED = new Set(["$", "`", "(", ")", "{", "}", "<"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** See the module contract. */
export function plainCommands(script: string): string[][] | null {
  const commands: string[][] = [];
  let words: string[] = [];
  let cur = "";
  let inWord = false; // a word has started (it may be empty: `''`)
  let quotedStart = false; // the first character of the word came from quotes or an escape
  let glob = false; // an unquoted glob character appeared in the word
  let globFirst = false; // the word's first character is an unquoted glob character
  let assignment = false; // the word started as NAME= unquoted
  let lastOp: string | null = null; // the separator that ended the previous command

  const endWord = (): boolean => {
    if (!inWord) return true;
    if (glob && (cur.startsWith("-") || globFirst)) return false;
    if (words.length === 0 && assignment) return false;
    words.push(cur);
    cur = "";
    inWord = false;
    quotedStart = false;
    glob = false;
    globFirst = false;
    assignment = false;
    return true;
  };
  const startWord = (quoted: boolean) => {
    if (!inWord) {
      inWord = true;
      quotedStart = quoted;
    }
  };
  const endCommand = (op: string): boolean => {
    if (!endWord()) return false;
    if (words.length === 0) {
      // Blank lines and a trailing `;` are fine; an empty command between operators is not.
      if (op === "\n" && (lastOp === null || lastOp === "\n" || lastOp === ";")) return true;
      return false;
    }
    commands.push(words);
    words = [];
    lastOp = op;
    return true;
  };

  for (let i = 0; i < script.length; i++) {
    const c = script[i];
    if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) return null;
      startWord(true);
      cur += script.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      startWord(true);
      let j = i + 1;
      for (; j < script.length && script[j] !== '"'; j++) {
        const d = script[j];
        if (d === "$" || d === "`") return null;
        if (d === "\\" && j + 1 < script.length && '$`"\\\n'.includes(script[j + 1])) {
          if (script[j + 1] !== "\n") cur += script[j + 1];
          j++;
        } else cur += d;
      }
      if (j >= script.length) return null;
      i = j;
    } else if (c === "\\") {
      if (i + 1 >= script.length) return null;
      if (script[i + 1] !== "\n") {
        startWord(true);
        cur += script[i + 1];
      }
      i++;
    } else if (c === " " || c === "\t") {
      if (!endWord()) return null;
    } else if (c === "\n" || c === ";") {
      if (c === ";" && script[i + 1] === ";") return null;
      if (!endCommand(c)) return null;
    } else if (c === "&") {
      if (script[i + 1] !== "&") return null;
      if (!endCommand("&&")) return null;
      i++;
    } else if (c === "|") {
      if (script[i + 1] === "&") return null;
      const op = script[i + 1] === "|" ? "||" : "|";
      if (!endCommand(op)) return null;
      i += op.length - 1;
    } else if (c === ">") {
      const skip = harmlessRedirect(script, i, inWord ? cur : "", quotedStart);
      if (skip < 0) return null;
      cur = "";
      inWord = false;
      quotedStart = false;
      i = skip - 1;
    } else if (REFUSED.has(c)) {
      return null;
    } else if ((c === "#" || c === "!") && !inWord) {
      return null;
    } else {
      if (!inWord && words.length === 0 && ASSIGNMENT.test(script.slice(i))) assignment = true;
      startWord(false);
      if (GLOB.has(c)) {
        glob = true;
        if (cur === "") globFirst = true;
      }
      cur += c;
    }
  }
  if (!endWord()) return null;
  if (words.length) commands.push(words);
  else if (lastOp !== null && lastOp !== ";" && lastOp !== "\n") return null; // `ls &&`
  return commands;
}

/**
 * At `script[i] === ">"` with `fd` the word just before it: the index after an allowed redirect
 * (`2>&1`, `[12]>/dev/null`, spaces allowed before the target), or -1.
 */
function harmlessRedirect(script: string, i: number, fd: string, fdQuoted: boolean): number {
  if (fdQuoted || !["", "1", "2"].includes(fd)) return -1;
  const end = (k: number) => k >= script.length || " \t\n;&|".includes(script[k]);
  if (fd === "2" && script.startsWith(">&1", i) && end(i + 3)) return i + 3;
  let k = i + 1;
  while (script[k] === " " || script[k] === "\t") k++;
  if (script.startsWith("/dev/null", k) && end(k + 9)) return k + 9;
  return -1;
}
