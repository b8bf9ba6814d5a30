/**
 * Code review (README "Review: `/review`"): a turn whose prompt is Tandem's own review prompt for
 * a target (the uncommitted changes, a base branch, a commit, or free instructions), run with a
 * read-only sandbox and no approvals, so nothing in the workspace can change; the model reads the
 * changes with git inside the sandbox (never git on the host) and answers with JSON findings
 * in the shape of Codex's review output (`REVIEW_SCHEMA`).
 *
 * Contract: pure. `reviewPrompt(target)` is the turn's prompt; `REVIEW_TURN` its options;
 * `parseReview(text)` reads the final message (a JSON object, possibly inside a ```json fence)
 * into findings, or says why it could not; `reviewText(result)` is the list people read.
 * Branch names and shas are checked (`targetProblem`) before they reach a prompt.
 */
import type { TurnOptions } from "./ops.js";

export type ReviewTarget =
  | { type: "uncommittedChanges" }
  | { type: "baseBranch"; branch: string }
  | { type: "commit"; sha: string; title?: string | null }
  | { type: "custom"; instructions: string };

export interface ReviewFinding {
  title: string;
  body: string;
  /** 0 (must fix) … 3 (nit), as Codex's reviewer grades them. */
  priority: number;
  file: string | null;
  lines: { start: number; end: number } | null;
  confidence: number | null;
}

export interface ReviewResult {
  findings: ReviewFinding[];
  overall_correctness: string;
  overall_explanation: string;
}

/** The JSON schema of the review's final message (Codex's review output, code locations included). */
export const REVIEW_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["findings", "overall_correctness", "overall_explanation"],
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["title", "body", "priority", "confidence_score", "code_location"],
        properties: {
          title: { type: "string", description: "At most 80 characters, imperative" },
          body: { type: "string", description: "Why it is a problem and when it happens (Markdown)" },
          priority: { type: "integer", minimum: 0, maximum: 3 },
          confidence_score: { type: "number", minimum: 0, maximum: 1 },
          code_location: {
            type: "object",
            additionalProperties: false,
            required: ["absolute_file_path", "line_range"],
            properties: {
              absolute_file_path: { type: "string" },
              line_range: {
                type: "object",
                additionalProperties: false,
                required: ["start", "end"],
                properties: { start: { type: "integer" }, end: { type: "integer" } },
              },
            },
          },
        },
      },
    },
    overall_correctness: { type: "string", enum: ["patch is correct", "patch is incorrect"] },
    overall_explanation: { type: "string" },
  },
} as const;

/**
 * A review turn changes nothing: read-only sandbox without network (runtime/thread.ts `sandbox`),
 * no approvals (a write is refused, not asked),
 * and only tools that cannot write (tools/types.ts `readOnlyTools`: no MCP tools, sub-agents,
 * write_stdin or patches).
 */
export const REVIEW_TURN: TurnOptions = {
  mode: "default",
  sandbox: "read-only",
  approval_policy: "never",
  read_only_tools: true,
  output_schema: REVIEW_SCHEMA as unknown as Record<string, unknown>,
};

const REF = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;

/** Why `target` cannot be reviewed (a branch or sha that is no plain git name), or undefined. */
export function targetProblem(target: ReviewTarget): string | undefined {
  if (target.type === "baseBranch" && (!REF.test(target.branch) || target.branch.includes("..")))
    return `"${target.branch}" is not a branch name`;
  if (target.type === "commit" && !/^[0-9a-fA-F]{4,64}$/.test(target.sha))
    return `"${target.sha}" is not a commit sha`;
  if (target.type === "custom" && !target.instructions.trim()) return "the review instructions are empty";
  return undefined;
}

/** What is reviewed, in a few words (Codex's `enteredReviewMode.review`, the TUI's header). */
export function reviewLabel(target: ReviewTarget): string {
  switch (target.type) {
    case "uncommittedChanges":
      return "current changes";
    case "baseBranch":
      return `changes against '${target.branch}'`;
    case "commit":
      return `commit ${target.sha.slice(0, 7)}${target.title ? `: ${target.title}` : ""}`;
    case "custom":
      return target.instructions.trim().split("\n")[0].slice(0, 80);
  }
}

const HOW = `You are reviewing code changes as a careful senior engineer. You only read: the sandbox is
read-only and nothing may be changed — do not edit files, do not run formatters or installs.

Find the problems that matter: bugs, wrong behaviour on edge cases, security holes (injection,
path traversal, secrets), races, resource leaks, broken error handling, missing tests for risky
code, and API or schema breaks. Do not report style preferences, and do not report what the
change did not touch. Each finding must point at the changed lines that cause it.

For each finding give: a short imperative title (at most 80 characters), a body that says why it
is wrong and when it happens (Markdown, a few sentences, code in backticks), a priority (0: must
fix before merging, 1: should fix, 2: worth fixing, 3: nit), your confidence (0 to 1), and the
file's absolute path with the line range in the new version.

Answer with one JSON object only, matching the output schema: {"findings": [...],
"overall_correctness": "patch is correct" | "patch is incorrect", "overall_explanation": "..."}.
No findings is a valid answer when the change is sound.`;

const REQUEST = /^Code review requested: (.+)\.\n/;

/** The label of a review prompt (its first line), or undefined for any other message. */
export function reviewRequestOf(text: string): string | undefined {
  return REQUEST.exec(text)?.[1];
}

/** What a surface shows for the review prompt instead of its text. */
export const reviewRequestLine = (label: string) => `Review: ${label}`;

/** The review turn's prompt for `target` (check it with targetProblem first). */
export function reviewPrompt(target: ReviewTarget): string {
  const what = (() => {
    switch (target.type) {
      case "uncommittedChanges":
        return "Review the uncommitted changes of this repository: the staged and unstaged changes (`git diff HEAD`) and the untracked files (`git status --porcelain`, then read them).";
      case "baseBranch":
        return `Review the changes of the current branch against the base branch '${target.branch}': find the merge base (\`git merge-base HEAD ${target.branch}\`) and read \`git diff <merge-base>\`.`;
      case "commit":
        return `Review the changes introduced by commit ${target.sha}${target.title ? ` ("${target.title}")` : ""}: read \`git show ${target.sha}\`.`;
      case "custom":
        return `Review the code as these instructions ask:\n\n${target.instructions.trim()}`;
    }
  })();
  return `Code review requested: ${reviewLabel(target).replace(/\n/g, " ")}.\n\n${HOW}\n\n${what}`;
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** The findings of a review's final message (see the contract). */
export function parseReview(text: string): { ok: true; result: ReviewResult } | { ok: false; error: string } {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end < start) return { ok: false, error: "the review did not answer with a JSON object" };
  let raw: any;
  try {
    raw = JSON.parse(body.slice(start, end + 1));
  } catch (err) {
    return { ok: false, error: `the review's JSON does not parse: ${(err as Error).message}` };
  }
  if (!raw || typeof raw !== "object" || !Array.isArray(raw.findings))
    return { ok: false, error: "the review's JSON has no findings list" };
  const findings: ReviewFinding[] = raw.findings
    .filter((f: any) => f && typeof f === "object" && typeof f.title === "string")
    .map((f: any) => {
      const loc = f.code_location ?? {};
      const range = loc.line_range ?? {};
      const start = num(range.start);
      return {
        title: f.title.slice(0, 200),
        body: typeof f.body === "string" ? f.body : "",
        priority: Math.min(3, Math.max(0, Math.round(num(f.priority) ?? 2))),
        file: typeof loc.absolute_file_path === "string" ? loc.absolute_file_path : null,
        lines: start === null ? null : { start, end: num(range.end) ?? start },
        confidence: num(f.confidence_score),
      };
    })
    .sort((a: ReviewFinding, b: ReviewFinding) => a.priority - b.priority);
  return {
    ok: true,
    result: {
      findings,
      overall_correctness: typeof raw.overall_correctness === "string" ? raw.overall_correctness : "",
      overall_explanation: typeof raw.overall_explanation === "string" ? raw.overall_explanation : "",
    },
  };
}

/** Where a finding points: `path:10-12` (relative to `cwd` when under it). */
export function findingPlace(f: ReviewFinding, cwd?: string): string {
  if (!f.file) return "";
  const path =
    cwd && f.file.startsWith(`${cwd.replace(/\/$/, "")}/`)
      ? f.file.slice(cwd.replace(/\/$/, "").length + 1)
      : f.file;
  if (!f.lines) return path;
  return f.lines.end > f.lines.start ? `${path}:${f.lines.start}-${f.lines.end}` : `${path}:${f.lines.start}`;
}

/** The review as text people read: each finding `[P1] title — file:lines` and its body. */
export function reviewText(r: ReviewResult, cwd?: string): string {
  const lines: string[] = [];
  if (!r.findings.length) lines.push("No findings.");
  for (const f of r.findings) {
    const place = findingPlace(f, cwd);
    lines.push(`[P${f.priority}] ${f.title}${place ? ` — ${place}` : ""}`);
    for (const l of f.body.split("\n")) lines.push(l ? `  ${l}` : "");
  }
  if (r.overall_correctness || r.overall_explanation)
    lines.push("", `Overall: ${[r.overall_correctness, r.overall_explanation].filter(Boolean).join(" — ")}`);
  return lines.join("\n");
}

/** `/review` and `tandem review` words as a target: none, `base BRANCH`, `commit SHA`, or instructions. */
export function parseReviewArgs(arg: string): ReviewTarget {
  const words = arg.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return { type: "uncommittedChanges" };
  if ((words[0] === "base" || words[0] === "--base") && words.length === 2)
    return { type: "baseBranch", branch: words[1] };
  if ((words[0] === "commit" || words[0] === "--commit") && words.length === 2)
    return { type: "commit", sha: words[1] };
  return { type: "custom", instructions: arg.trim() };
}
