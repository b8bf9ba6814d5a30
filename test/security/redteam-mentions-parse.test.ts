/**
 * Red team: `@path` parsing (runtime/file-mentions.ts) on text nobody bounded — a pasted log, or
 * a sub-agent's task message, which the (hostile) parent model writes. Parsing runs on the host's
 * event loop before the turn starts, so it must stay linear in the text and try a bounded number
 * of paths; odd mentions (NUL, very long) are plain text, never a throw.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageText } from "../../src/protocol/items.js";
import { attachMentions, mentionedPaths } from "../../src/runtime/file-mentions.js";

const opts = (root: string) => ({ root, exclude: [], mask: (t: string) => t });
const ms = (f: () => unknown) => {
  const t = performance.now();
  f();
  return performance.now() - t;
};

describe("red team: @ mention parsing stays cheap on hostile text", () => {
  // Fails if the trailing-punctuation trim backtracks (quadratic: ~10 s for 100k dots).
  it("a mention of 100k dots then a letter parses in well under a second", () => {
    const text = `@a${".".repeat(100_000)}x`;
    let got: string[] = [];
    expect(ms(() => (got = mentionedPaths(text)))).toBeLessThan(1000);
    expect(got).toEqual([]); // longer than any path: plain text
  });

  // Fails if repeats are found by a linear scan of those seen (quadratic in mentions) or every
  // mention is looked up on disk.
  it("50k distinct mentions parse fast and only the first few are tried", () => {
    const root = mkdtempSync(join(tmpdir(), "tandem-rt-mentions-"));
    writeFileSync(join(root, "f49999"), "LAST-ONE");
    const text = Array.from({ length: 50_000 }, (_, i) => `@f${i}`).join(" ");
    let got: ReturnType<typeof attachMentions> = [];
    expect(ms(() => (got = attachMentions(text, opts(root))))).toBeLessThan(1000);
    expect(got).toEqual([]); // f49999 is far past the paths tried
  });

  it("NUL, newline, huge and dotted mentions are plain text, never a throw", () => {
    const root = mkdtempSync(join(tmpdir(), "tandem-rt-mentions-"));
    writeFileSync(join(root, "a"), "A-BODY");
    const text = `@a\0b @"x\ny" @${"d/".repeat(5000)}e @${"../".repeat(50)}etc/passwd @~/.ssh/id_rsa @/etc/passwd`;
    const got = attachMentions(text, opts(root));
    expect(got.map((a) => messageText(a.item)).join("")).not.toMatch(/root:|A-BODY/);
  });
});
