import { describe, expect, it } from "vitest";
import type { FileChange } from "./changes.js";
import { TurnDiffTracker } from "./tracker.js";

const abs = (p: string) => `/ws/${p}`;
const add = (path: string, after: string): FileChange => ({
  kind: "add",
  path,
  absPath: abs(path),
  before: null,
  after,
});
const update = (path: string, before: string, after: string): FileChange => ({
  kind: "update",
  path,
  absPath: abs(path),
  before,
  after,
});
const del = (path: string, before: string): FileChange => ({
  kind: "delete",
  path,
  absPath: abs(path),
  before,
  after: null,
});
const move = (path: string, to: string, before: string, after: string): FileChange => ({
  kind: "move",
  path,
  movePath: to,
  absPath: abs(path),
  absMovePath: abs(to),
  before,
  after,
});

describe("TurnDiffTracker", () => {
  it("is empty before anything is tracked", () => {
    expect(new TurnDiffTracker().diff()).toBe("");
  });

  it("shows one net diff per file across calls, from the turn's baseline", () => {
    const t = new TurnDiffTracker();
    t.track([update("a.txt", "1\n", "2\n")]);
    t.track([update("a.txt", "2\n", "3\n"), add("b.txt", "new\n")]);
    expect(t.diff()).toBe(
      "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+3\n" + "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n",
    );
  });

  it("drops a file added then deleted, and one edited back to its baseline", () => {
    const t = new TurnDiffTracker();
    t.track([add("tmp.txt", "x\n"), update("c.txt", "c\n", "C\n")]);
    t.track([del("tmp.txt", "x\n"), update("c.txt", "C\n", "c\n")]);
    expect(t.diff()).toBe("");
  });

  it("follows moves: a moved-then-edited file is one rename with its edits", () => {
    const t = new TurnDiffTracker();
    t.track([move("old.py", "new.py", "a\nb\n", "a\nb\n")]);
    t.track([update("new.py", "a\nb\n", "a\nB\n")]);
    expect(t.diff()).toBe("--- a/old.py\n+++ b/new.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n");
  });

  it("keeps a deleted file's diff when another file is moved onto its path", () => {
    const t = new TurnDiffTracker();
    t.track([del("x.txt", "x\n")]);
    t.track([move("y.txt", "x.txt", "y\n", "y\n")]);
    expect(t.diff()).toBe("--- a/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" + "--- a/y.txt\n+++ b/x.txt\n");
  });

  it("replacing a file (delete then add) shows the change from its baseline", () => {
    const t = new TurnDiffTracker();
    t.track([del("s.sql", "old\n"), add("s.sql", "new\n")]);
    expect(t.diff()).toBe("--- a/s.sql\n+++ b/s.sql\n@@ -1 +1 @@\n-old\n+new\n");
  });

  it("reset starts a new turn", () => {
    const t = new TurnDiffTracker();
    t.track([update("a.txt", "1\n", "2\n")]);
    t.reset();
    expect(t.diff()).toBe("");
    t.track([update("a.txt", "2\n", "3\n")]);
    expect(t.diff()).toContain("-2\n+3\n");
  });
});
