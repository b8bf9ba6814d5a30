import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attachmentLine } from "../protocol/attachment.js";
import { messageText } from "../protocol/items.js";
import { attachMentions, MAX_FILE_BYTES, mentionedPaths, mentionToken } from "./file-mentions.js";

const dir = () => mkdtempSync(join(tmpdir(), "tandem-mentions-"));
const opts = (root: string, exclude: string[] = []) => ({ root, exclude, mask: (t: string) => t });

describe("mentionedPaths", () => {
  it('reads @path, @"quoted path", trims trailing punctuation, skips e-mail addresses', () => {
    expect(mentionedPaths('see @README.md. and (@src/a.ts), @"my notes.txt" me@example.com @a @a')).toEqual([
      "README.md",
      "src/a.ts",
      "my notes.txt",
      "a",
    ]);
    expect(mentionedPaths("@")).toEqual([]);
  });
  it("mentionToken quotes what the reader would cut", () => {
    expect(mentionToken("a/b.ts")).toBe("@a/b.ts");
    expect(mentionToken("my notes.txt")).toBe('@"my notes.txt"');
    expect(mentionToken("odd.")).toBe('@"odd."');
    for (const p of ["a/b.ts", "my notes.txt", "odd.", "x (1).md"])
      expect(mentionedPaths(`look at ${mentionToken(p)} now`)).toEqual([p]);
  });
});

describe("attachMentions", () => {
  it("cuts a long file, names a binary one, refuses a FIFO and paths outside the root", () => {
    const root = dir();
    writeFileSync(join(root, "big.txt"), "x".repeat(MAX_FILE_BYTES + 10));
    writeFileSync(join(root, "bin.dat"), Buffer.from([1, 0, 2]));
    execFileSync("mkfifo", [join(root, "pipe")]);
    const other = dir();
    writeFileSync(join(other, "o.txt"), "OTHER");
    const got = attachMentions(
      `@big.txt @bin.dat @pipe @../${other.split("/").pop()}/o.txt @/etc/passwd`,
      opts(root),
    );
    expect(got.map((a) => a.display)).toEqual([
      `[file big.txt attached (first ${MAX_FILE_BYTES} of ${MAX_FILE_BYTES + 10} bytes)]`,
      "[file bin.dat attached (binary, not attached)]",
      "[file pipe attached (not read)]",
    ]);
    expect(messageText(got[0].item)).toContain("(cut here: the file is longer)");
  });

  it("never reads an excluded path under the root (Tandem's home inside the workspace)", () => {
    const root = dir();
    mkdirSync(join(root, ".tandem-home"));
    writeFileSync(join(root, ".tandem-home", "credentials.json"), "SECRET");
    symlinkSync(join(root, ".tandem-home"), join(root, "link-dir"));
    const got = attachMentions(
      "@.tandem-home/credentials.json @link-dir",
      opts(root, [join(root, ".tandem-home")]),
    );
    expect(got.map((a) => a.display)).toEqual([
      "[file .tandem-home/credentials.json attached (not read)]",
      "[directory link-dir attached (not read)]",
    ]);
    expect(got.map((a) => messageText(a.item)).join("")).not.toContain("SECRET");
  });

  it("masks the thread's secrets and reads back as the same line (attachmentLine)", () => {
    const root = dir();
    writeFileSync(join(root, "env.txt"), "TOKEN=hunter2\n");
    mkdirSync(join(root, "d"));
    for (const n of ["a", "b", "c"]) writeFileSync(join(root, "d", n), "");
    const got = attachMentions("@env.txt @d", {
      ...opts(root),
      mask: (t) => t.replaceAll("hunter2", "••••"),
    });
    expect(messageText(got[0].item)).toContain("TOKEN=••••");
    for (const a of got) expect(attachmentLine(messageText(a.item))).toBe(a.display);
    expect(got[1].display).toBe("[directory d attached (3 entries)]");
  });
});
