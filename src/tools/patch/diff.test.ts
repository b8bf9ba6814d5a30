import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayable } from "../../../test/helpers/fc-replay.js";
import { diffOps, MAX_EDITS, unifiedDiff } from "./diff.js";

/** Rebuilds `b` from `a` and an edit script, checking the script is consistent. */
function replay(a: string[], b: string[], ops: number[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === 0) {
      expect(a[i]).toBe(b[j]);
      out.push(a[i++]);
      j++;
    } else if (op === 1) i++;
    else out.push(b[j++]);
  }
  expect(i).toBe(a.length);
  return out;
}

/** Length of the longest common subsequence (DP), to check the script is minimal. */
function lcs(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
  return dp[a.length][b.length];
}

describe("diffOps", () => {
  it("produces a minimal, consistent edit script (property)", () => {
    const lines = fc.array(fc.constantFrom("a", "b", "c", "d", ""), { maxLength: 25 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const ops = diffOps(a, b);
        expect(replay(a, b, ops)).toEqual(b);
        expect(ops.filter((o) => o === 0).length).toBe(lcs(a, b));
      }),
      replayable({ numRuns: 300 }),
    );
  });

  it("falls back to remove-all/add-all beyond MAX_EDITS, still consistent", () => {
    const a = Array.from({ length: MAX_EDITS + 10 }, (_, i) => `a${i}`);
    const b = Array.from({ length: MAX_EDITS + 10 }, (_, i) => `b${i}`);
    const ops = diffOps(["same", ...a, "end"], ["same", ...b, "end"]);
    expect(replay(["same", ...a, "end"], ["same", ...b, "end"], ops)).toEqual(["same", ...b, "end"]);
  });
});

describe("unifiedDiff", () => {
  it("writes git-style hunks with 3 lines of context", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
    expect(unifiedDiff(before, after, { oldPath: "n.txt" })).toBe(
      "--- a/n.txt\n+++ b/n.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    );
  });

  it("merges nearby changes into one hunk and splits distant ones", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `${i + 1}`);
    const near = [...lines];
    near[4] = "x";
    near[9] = "y";
    expect(unifiedDiff(`${lines.join("\n")}\n`, `${near.join("\n")}\n`).match(/^@@/gm)).toHaveLength(1);
    const far = [...lines];
    far[2] = "x";
    far[25] = "y";
    const diff = unifiedDiff(`${lines.join("\n")}\n`, `${far.join("\n")}\n`);
    expect(diff.match(/^@@.*$/gm)).toEqual(["@@ -1,6 +1,6 @@", "@@ -23,7 +23,7 @@"]);
  });

  it("uses /dev/null for added and deleted files and omits ,1 counts", () => {
    expect(unifiedDiff(null, "hi\n", { oldPath: "new.txt" })).toBe(
      "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n",
    );
    expect(unifiedDiff("a\nb\n", null, { oldPath: "old.txt" })).toBe(
      "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
    );
    expect(unifiedDiff(null, "", { oldPath: "empty" })).toBe("--- /dev/null\n+++ b/empty\n");
  });

  it("marks a missing final newline and treats a line-ending change as a change", () => {
    expect(unifiedDiff("a\nb", "a\nb\n")).toBe(
      "--- a/file\n+++ b/file\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
    );
    expect(unifiedDiff("a\r\n", "a\n")).toBe("--- a/file\n+++ b/file\n@@ -1 +1 @@\n-a\n+a\n");
  });

  it("is empty for equal texts, but shows a pure rename's headers", () => {
    expect(unifiedDiff("same\n", "same\n", { oldPath: "x" })).toBe("");
    expect(unifiedDiff("same\n", "same\n", { oldPath: "x", newPath: "y" })).toBe("--- a/x\n+++ b/y\n");
  });

  it("reports an insertion into an empty range at the line before it", () => {
    expect(unifiedDiff("a\nb\n", "a\nnew\nb\n", { context: 0 })).toBe(
      "--- a/file\n+++ b/file\n@@ -1,0 +2 @@\n+new\n",
    );
  });
});
