import { describe, expect, it } from "vitest";
import { diffSections, withTurnDiffs } from "./file-change.js";
import { type PlanChunk, PlanSplitter, splitProposedPlan } from "./plan.js";

describe("proposed plans", () => {
  const text = "Intro.\n<proposed_plan>\n# Plan\n- one\n</proposed_plan>\nOutro.";

  // Fails if a tag split across deltas leaks into the message text, or plan text into it.
  it("splits streamed deltas at tags that arrive in pieces", () => {
    for (const size of [1, 2, 3, 7, 100]) {
      const s = new PlanSplitter();
      const chunks: PlanChunk[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(...s.push(text.slice(i, i + size)));
      const of = (kind: string) =>
        chunks
          .filter((c) => c.kind === kind)
          .map((c) => ("text" in c ? c.text : ""))
          .join("");
      expect(of("text")).toBe("Intro.\n\nOutro.");
      expect(of("plan")).toBe("\n# Plan\n- one\n");
      expect(chunks.filter((c) => c.kind === "planStarted")).toHaveLength(1);
    }
  });

  it("splits a complete message; no block or an unclosed one stays text", () => {
    expect(splitProposedPlan(text)).toEqual({ text: "Intro.\n\nOutro.", plan: "# Plan\n- one" });
    expect(splitProposedPlan("just text")).toEqual({ text: "just text" });
    expect(splitProposedPlan("a <proposed_plan> b")).toEqual({ text: "a <proposed_plan> b" });
  });
});

describe("turn diff sections", () => {
  // Fails if history cannot find a file's section (its fileChange would show no diff).
  it("splits a turn diff per file and fills a fileChange's empty diffs", () => {
    const diff =
      "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n";
    const sections = diffSections(diff);
    expect(sections.get("x.txt")).toBe("--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n");
    expect(sections.get("new.txt")).toBe("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n");
    const item = withTurnDiffs(
      {
        type: "fileChange",
        id: "p",
        status: "completed",
        changes: [
          { path: "new.txt", kind: { type: "add" }, diff: "" },
          { path: "gone.txt", kind: { type: "delete" }, diff: "" },
        ],
      },
      sections,
    );
    expect(item.changes.map((c) => c.diff)).toEqual([sections.get("new.txt"), ""]);
  });
});
