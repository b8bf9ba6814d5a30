/** Question requests for the TUI's tests (unit, component and bench). Not used at run time. */
import type { Question, QuestionPolicy, QuestionRequest } from "../../protocol/questions.js";

export const stackQuestion: Question = {
  id: "stack",
  header: "Stack",
  prompt: "Which stack?",
  kind: "single",
  options: [
    { label: "TypeScript (Recommended)", description: "Node 20, strict ESM" },
    { label: "Rust", description: "cargo binary" },
  ],
  allow_other: true,
  secret: false,
};

export const nameQuestion: Question = {
  id: "name",
  header: "Name",
  prompt: "Project name?",
  kind: "text",
  options: [],
  allow_other: true,
  secret: false,
};

export const featuresQuestion: Question = {
  id: "features",
  header: "Features",
  prompt: "Which features?",
  kind: "multi",
  options: [
    { label: "Tests", description: "vitest" },
    { label: "Lint", description: "biome" },
    { label: "CI", description: "a workflow" },
  ],
  allow_other: true,
  secret: false,
};

export const tokenQuestion: Question = {
  id: "token",
  header: "Token",
  prompt: "Paste the deploy token",
  kind: "text",
  options: [],
  allow_other: true,
  secret: true,
};

export function requestOf(
  questions: Question[],
  opts: { id?: string; thread?: string; policy?: QuestionPolicy; deadline?: number | null } = {},
): QuestionRequest {
  return {
    request_id: opts.id ?? "q_test",
    thread_id: opts.thread ?? "t1",
    turn_id: "turn1",
    call_id: "call1",
    source: "model",
    questions,
    policy: opts.policy ?? { type: "wait" },
    deadline: opts.deadline ?? null,
    created_at: 0,
  };
}
