/**
 * The known-safe list and prefix-rule matching (README "Sandbox and approvals"), table-driven. Every
 * "unsafe" row is a command that writes, deletes, runs something else or leaks through an
 * expansion; each fails if the check that refuses it is removed.
 */
import { describe, expect, it } from "vitest";
import { plainCommands } from "./plain-script.js";
import { commandWords, isKnownSafe, matchesPrefix, matchesRules } from "./safe-commands.js";

const SAFE = [
  "ls",
  "ls -la",
  "ls -la && git status | head -5",
  "pwd; echo hi",
  "cat README.md | wc -l",
  "grep -rn 'foo|bar' src || true",
  'grep -n "a b" f.txt',
  "rg -n foo -g '*.ts'",
  "rg --pre-glob '*.gz' foo",
  "sed -n 1,5p f.txt",
  "sed -n '10p' a b",
  "sed -n '$p' f.txt",
  "find . -name '*.ts' -type f",
  "find src -executable",
  "sort f.txt | uniq -c",
  "sort -rn -k2 f.txt",
  "uniq -c f.txt",
  "uniq -f 1 f.txt",
  "git status",
  "git --no-pager log -p -1",
  "git diff HEAD~1 -- src",
  "git show HEAD:README.md",
  "git branch",
  "git branch --show-current",
  "git branch --list 'feat/*'",
  "bash -lc 'ls && pwd'",
  'sh -c "cat f.txt"',
  "env ls",
  "nice cat f.txt",
  "timeout 5 ls",
  "command -v git",
  "ls src/*.ts",
  "ls 2>/dev/null",
  "ls 2>&1 | head",
  "echo ok >/dev/null",
  "echo '$HOME is literal'",
  "echo \\$HOME",
  "base64 f.txt",
  "tree -L 2",
  "date -u",
  "head -n 5 f.txt\ntail -n 5 f.txt",
  "cd src && ls",
];

const UNSAFE = [
  // Wrappers that run something else.
  "env bash -c 'touch x'",
  "env",
  "env -i ls",
  "env FOO=1 ls",
  "nice -n 5 ls",
  "nice sh -c 'rm -rf x'",
  "timeout 5 sh -c 'touch x'",
  "timeout -s KILL 5 ls",
  "xargs rm",
  "echo x | xargs touch",
  "nohup ls",
  "stdbuf -o0 ls",
  "sudo ls",
  "command rm x",
  "bash -c 'rm -rf x'",
  "bash -lc 'ls' extra",
  "python3 -c 'print(1)'",
  // Options that write or execute.
  "sed -n '1e touch x' f.txt",
  "sed 'w out' f.txt",
  "sed -n 'w out' f.txt",
  "sed -i 's/a/b/' f.txt",
  "sed -n 1p -i f.txt",
  "sed -n xp f.txt",
  "find . -exec rm {} ;",
  "find . -execdir sh -c x ;",
  "find . -ok rm {} ;",
  "find . -okdir rm {} ;",
  "find . -delete",
  "find . -fls out",
  "find . -fprint out",
  "find . -fprint0 out",
  "find . -fprintf out %p",
  "sort -o out f.txt",
  "sort -uo out f.txt",
  "sort --output=out f.txt",
  "sort --out=out f.txt",
  "sort --compress-program=sh f.txt",
  "uniq f.txt out",
  "uniq -c f.txt out",
  "uniq -- f.txt out",
  "git diff --output=out",
  "git log --output out",
  "git diff --ext-diff",
  "git log --textconv -p",
  "git -c core.pager=sh log",
  "git -C /tmp status",
  "git --exec-path=/x status",
  "git commit -m x",
  "git push",
  "git branch newbranch",
  "git branch -D main",
  "git branch -m a b",
  "git",
  "rg --pre sh foo",
  "rg --pre=sh foo",
  "rg --hostname-bin=sh foo",
  "rg -z foo",
  "rg --search-zip foo",
  "base64 -o out f.txt",
  "base64 --output=out f.txt",
  "tree -o out",
  "tree -R",
  "file -C -m magic",
  "date -s 2020-01-01",
  "printf -v PATH x",
  // Expansions, substitutions, redirections, control operators.
  "echo $OPENAI_API_KEY",
  'echo "$OPENAI_API_KEY"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, on purpose
  "echo ${HOME}",
  "echo $(rm -rf x)",
  "echo `rm -rf x`",
  'echo "`id`"',
  "echo $'\\x41'",
  "cat f.txt > out",
  "cat f.txt >> out",
  "cat f.txt 1> out",
  "cat < f.txt",
  "ls >| out",
  "ls &> /dev/null",
  "ls & rm x",
  "ls |& cat",
  "(ls)",
  "{ ls; }",
  "find . -{fls,true} out",
  "ls # comment",
  "! ls",
  "FOO=1 ls",
  "PATH=. ls",
  "ls; rm x",
  "ls && rm x",
  "ls || rm x",
  "ls | sh",
  "ls\nrm x",
  "&& ls",
  "ls &&",
  "ls | | wc",
  "ls ;; pwd",
  "echo 'unclosed",
  'echo "unclosed',
  "ls *",
  "find . -dele?e",
  "sort ''* f.txt",
  "./ls",
  "/bin/ls",
  "rm -rf x",
  "touch x",
  "",
];

describe("isKnownSafe", () => {
  it("has at least 60 cases", () => expect(SAFE.length + UNSAFE.length).toBeGreaterThanOrEqual(60));
  // fails if a read-only command (the legitimate use) starts asking.
  it.each(SAFE)("safe: %j", (cmd) => expect(isKnownSafe(cmd)).toBe(true));
  // fails if the command can write, delete, execute or expand without asking.
  it.each(UNSAFE)("unsafe: %j", (cmd) => expect(isKnownSafe(cmd)).toBe(false));

  // fails if a non-POSIX `shell` (python, node, …) running a "safe-looking" string counts as safe.
  it("only POSIX shells make a command known-safe", () => {
    expect(isKnownSafe("ls", "/bin/bash")).toBe(true);
    expect(isKnownSafe("ls", "zsh")).toBe(true);
    expect(isKnownSafe("ls", "python3")).toBe(false);
    expect(isKnownSafe("ls", "/usr/bin/env")).toBe(false);
  });
});

describe("plainCommands", () => {
  it("splits on operators and unquotes words", () => {
    expect(plainCommands(`ls -1 && echo 'hi there' | wc -l; grep "a\\"b" x`)).toEqual([
      ["ls", "-1"],
      ["echo", "hi there"],
      ["wc", "-l"],
      ["grep", 'a"b', "x"],
    ]);
    expect(plainCommands(`echo "/usr"'/'local/bin a\\ b`)).toEqual([["echo", "/usr/local/bin", "a b"]]);
    expect(plainCommands("ls 2>&1 >/dev/null")).toEqual([["ls"]]);
    expect(plainCommands("\nls;\n\npwd\n")).toEqual([["ls"], ["pwd"]]);
  });

  // fails if words split on Unicode spaces bash does not split on (a rule could then match a
  // different argv than bash runs).
  it("splits words on space and tab only", () => {
    expect(plainCommands("git\u00a0status")).toEqual([["git\u00a0status"]]);
  });
});

describe("prefix rules", () => {
  // fails if a rule approves a compound command in which some part is not covered.
  it("every simple command must be covered", () => {
    expect(matchesPrefix("git status", ["git"])).toBe(true);
    expect(matchesPrefix("git status && git diff", ["git"])).toBe(true);
    expect(matchesPrefix("git status; rm -rf x", ["git"])).toBe(false);
    expect(matchesPrefix("git status | sh", ["git"])).toBe(false);
    expect(matchesPrefix("git status && bash -c 'rm x'", ["git"])).toBe(false);
    expect(matchesRules("git status && npm test", [["git"], ["npm", "test"]])).toBe(true);
    expect(matchesRules("git status && npm install", [["git"], ["npm", "test"]])).toBe(false);
  });

  // fails if substitutions, expansions or redirections to files ride along a matching prefix.
  it("nothing rides along a matching prefix", () => {
    for (const cmd of [
      "git status $(rm x)",
      "git status `rm x`",
      "git log > out",
      "git status\nrm x",
      "git status & rm x",
      "FOO=1 git status",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, on purpose
      "git ${X}",
      "(git status)",
    ])
      expect(matchesPrefix(cmd, ["git"]), cmd).toBe(false);
  });

  it("rules need whole words and are never empty", () => {
    expect(matchesPrefix("gitx status", ["git"])).toBe(false);
    expect(matchesPrefix("git", ["git", "status"])).toBe(false);
    expect(matchesPrefix("ls", [])).toBe(false);
    expect(commandWords("npm test -- --watch")).toEqual(["npm", "test", "--", "--watch"]);
    expect(commandWords("ls && pwd")).toBeNull();
  });
});
