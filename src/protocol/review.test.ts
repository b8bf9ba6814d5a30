import { describe, expect, it } from "vitest";
import {
  parseReview,
  parseReviewArgs,
  reviewPrompt,
  reviewRequestOf,
  reviewText,
  targetProblem,
} from "./review.js";

describe("review", () => {
  it("reads targets from /review words and refuses names that are no git names", () => {
    expect(parseReviewArgs("")).toEqual({ type: "uncommittedChanges" });
    expect(parseReviewArgs("base main")).toEqual({ type: "baseBranch", branch: "main" });
    expect(parseReviewArgs("--commit abc1234")).toEqual({ type: "commit", sha: "abc1234" });
    expect(parseReviewArgs("look at the parser")).toEqual({
      type: "custom",
      instructions: "look at the parser",
    });
    expect(targetProblem({ type: "baseBranch", branch: "main; rm -rf /" })).toMatch(/not a branch name/);
    expect(targetProblem({ type: "baseBranch", branch: "a..b" })).toMatch(/not a branch name/);
    expect(targetProblem({ type: "commit", sha: "HEAD~1" })).toMatch(/not a commit sha/);
    expect(targetProblem({ type: "baseBranch", branch: "release/1.2" })).toBeUndefined();
  });

  it("the prompt names its target on its first line, which reads back as the request", () => {
    expect(reviewRequestOf(reviewPrompt({ type: "baseBranch", branch: "main" }))).toBe(
      "changes against 'main'",
    );
    expect(reviewRequestOf("Code review requested")).toBeUndefined();
  });

  it("parses fenced or bare JSON findings, sorted by priority, and says why otherwise", () => {
    const json = JSON.stringify({
      findings: [
        {
          title: "Nit",
          body: "b",
          priority: 3,
          code_location: { absolute_file_path: "/w/a.ts", line_range: { start: 4, end: 4 } },
        },
        {
          title: "Bug",
          body: "x\ny",
          priority: 0,
          confidence_score: 0.9,
          code_location: { absolute_file_path: "/w/b.ts", line_range: { start: 1, end: 3 } },
        },
      ],
      overall_correctness: "patch is incorrect",
      overall_explanation: "one bug",
    });
    const r = parseReview(`Here it is:\n\`\`\`json\n${json}\n\`\`\``);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.result.findings.map((f) => f.title)).toEqual(["Bug", "Nit"]);
    expect(reviewText(r.result, "/w")).toBe(
      "[P0] Bug — b.ts:1-3\n  x\n  y\n[P3] Nit — a.ts:4\n  b\n\nOverall: patch is incorrect — one bug",
    );
    expect(parseReview("no json here")).toEqual({
      ok: false,
      error: "the review did not answer with a JSON object",
    });
    expect(parseReview('{"findings": 3}')).toEqual({
      ok: false,
      error: "the review's JSON has no findings list",
    });
  });
});
