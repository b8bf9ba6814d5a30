import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codexCommand, commandActions, shellQuote } from "./codex-command.js";

describe("commands as Codex clients show them", () => {
  // Fails if quoting changes what the shell runs: the quoted argv must split back to the same words.
  it("shell-quotes any word so that sh reads it back unchanged", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 0, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        (words) => {
          const clean = words.map((w) => w.replaceAll("\0", ""));
          const line = clean.map(shellQuote).join(" ");
          const out = execFileSync("/bin/sh", ["-c", `printf '%s\\0' ${line}`]).toString();
          expect(out.split("\0").slice(0, -1)).toEqual(clean);
        },
      ),
      { numRuns: 40 },
    );
  });

  // Fails if the script is not kept whole after `-c` (a client would show '&&' and '>' as words).
  it("wraps the script as <shell> -c '<script>'", () => {
    expect(codexCommand("echo hi > a.txt && cat a.txt", "/bin/bash")).toBe(
      "/bin/bash -c 'echo hi > a.txt && cat a.txt'",
    );
    expect(codexCommand("echo 'it'\"s\"", "/bin/zsh")).toBe(`/bin/zsh -c 'echo '\\''it'\\''"s"'`);
  });

  // Fails if reads, listings and searches are not recognised, or a non-plain script is guessed at.
  it("reads actions from plain scripts only", () => {
    expect(commandActions("cat src/a.ts && ls -la src | rg -n TODO src", "/w")).toEqual([
      { type: "read", command: "cat src/a.ts", name: "a.ts", path: "/w/src/a.ts" },
      { type: "listFiles", command: "ls -la src", path: "src" },
      { type: "search", command: "rg -n TODO src", query: "TODO", path: "src" },
    ]);
    expect(commandActions("sed -n 1,20p README.md", "/w")).toEqual([
      { type: "read", command: "sed -n 1,20p README.md", name: "README.md", path: "/w/README.md" },
    ]);
    expect(commandActions("echo $HOME > out", "/w")).toEqual([
      { type: "unknown", command: "echo $HOME > out" },
    ]);
    expect(commandActions("npm test", "/w")).toEqual([{ type: "unknown", command: "npm test" }]);
  });
});
