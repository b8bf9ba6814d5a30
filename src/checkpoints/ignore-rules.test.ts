/**
 * `entryIgnored` (the walk's fast path) gives the same verdict as `ignored` for every entry of
 * a directory the walk entered, over generated rule files, and skips files only when no rule
 * can match one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { IgnoreRules, matchesFiles } from "./ignore-rules.js";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const PATTERNS = [
  "*.log",
  "build/",
  "dist",
  "!keep.log",
  "/root-only.txt",
  "a/**/deep",
  "# comment",
  "",
  "src/*.gen.ts",
  "node_modules/",
  "!node_modules/",
  "tmp*/",
  "\\#hash",
  "x/ ",
];
const NAMES = [
  "a",
  "b",
  "src",
  "build",
  "dist",
  "keep.log",
  "x.log",
  "root-only.txt",
  "deep",
  "tmp1",
  "f.gen.ts",
  "node_modules",
  "x",
];

describe("IgnoreRules.entryIgnored", () => {
  it("agrees with ignored() for entries of directories that are not ignored", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PATTERNS), { maxLength: 6 }),
        fc.array(fc.constantFrom(...PATTERNS), { maxLength: 4 }),
        fc.array(fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 30,
        }),
        (rootRules, subRules, paths) => {
          const root = mkdtempSync(join(tmpdir(), "tandem-ignore-"));
          roots.push(root);
          writeFileSync(join(root, ".gitignore"), rootRules.join("\n"));
          mkdirSync(join(root, "src"));
          writeFileSync(join(root, "src", ".gitignore"), subRules.join("\n"));
          const rules = new IgnoreRules(root, { globalExcludes: null });
          const fast = new IgnoreRules(root, { globalExcludes: null });
          for (const parts of paths) {
            const dir = parts.slice(0, -1).join("/");
            if (dir && rules.ignored(dir, true)) continue; // a walk never enters it
            for (const isDir of [false, true]) {
              const rel = parts.join("/");
              expect(fast.entryIgnored(dir, parts.at(-1) as string, isDir), `${rel} dir=${isDir}`).toBe(
                rules.ignored(rel, isDir),
              );
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("tests a nested rule file's patterns relative to its own directory", () => {
    const root = mkdtempSync(join(tmpdir(), "tandem-ignore-"));
    roots.push(root);
    mkdirSync(join(root, "src", "a"), { recursive: true });
    writeFileSync(join(root, "src", ".gitignore"), "/top.txt\na/*.gen.ts\n");
    const rules = new IgnoreRules(root, { globalExcludes: null });
    expect(rules.entryIgnored("src", "top.txt", false)).toBe(true);
    expect(rules.entryIgnored("src/a", "top.txt", false)).toBe(false);
    expect(rules.entryIgnored("src/a", "x.gen.ts", false)).toBe(true);
    expect(rules.entryIgnored("", "top.txt", false)).toBe(false);
  });

  it("matchesFiles is false only for directory patterns, comments and blanks", () => {
    expect(matchesFiles("node_modules/\n# x\n\nbuild/\r\n")).toBe(false);
    expect(matchesFiles("build/\n*.log")).toBe(true);
    expect(matchesFiles("!keep/")).toBe(true);
    expect(matchesFiles("a\\ /")).toBe(true);
  });
});
