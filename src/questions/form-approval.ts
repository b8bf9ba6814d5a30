/**
 * An approval (a broker request with `approval`, requirements A2/A3) as a form, for clients that answer
 * forms but have no approval request of their own (a host of `tandem mcp-server`). Part of the one
 * question↔form mapping (form.ts).
 *
 * Contract:
 * - The form has one required field `decision`: a titled `oneOf` of the decisions the request
 *   offers, in its order (const = the decision name: accept, accept_for_session, …; title = the
 *   label); its description lists each decision's consequence.
 * - An accepted `decision` naming an offered decision → that decision's label as the answer;
 *   anything else → invalid, the message naming what is expected.
 */
import { APPROVAL_LABELS, type ApprovalDecisionName, type QuestionRequest } from "../protocol/questions.js";
import type { FormField } from "./form.js";

export const DECISION_FIELD = "decision";

const DECISIONS = Object.keys(APPROVAL_LABELS) as ApprovalDecisionName[];

/** Decision names an approval request offers, in the order of its options. */
export function offeredDecisions(request: QuestionRequest): ApprovalDecisionName[] {
  const labels = new Set(request.questions[0]?.options.map((o) => o.label));
  return DECISIONS.filter((d) => labels.has(APPROVAL_LABELS[d]));
}

/** The decision field of an approval's form. */
export function decisionField(request: QuestionRequest): FormField {
  const q = request.questions[0];
  const offered = offeredDecisions(request);
  const options = new Map(q?.options.map((o) => [o.label, o.description]));
  return {
    type: "string",
    title: "Decision",
    description: offered
      .map((d) => `- ${APPROVAL_LABELS[d]}: ${options.get(APPROVAL_LABELS[d]) ?? ""}`)
      .join("\n"),
    oneOf: offered.map((d) => ({ const: d, title: APPROVAL_LABELS[d] })),
  };
}

/** The approval's body for the form's message: what would run, and where. */
export function approvalText(request: QuestionRequest): string {
  return `Tandem asks for approval\n${request.questions[0]?.prompt ?? request.approval?.reason}\nin ${request.approval?.cwd}`;
}

/** The accepted content's decision → the reply's label, or why it is not one of the offered ones. */
export function decisionAnswer(
  request: QuestionRequest,
  content: Record<string, unknown>,
): { ok: true; label: string } | { ok: false; message: string } {
  const offered = offeredDecisions(request);
  const decision = content[DECISION_FIELD];
  const name = offered.find((d) => d === decision);
  if (!name)
    return {
      ok: false,
      message: `"${DECISION_FIELD}" must be one of ${offered.map((d) => `"${d}"`).join(", ")}; got ${JSON.stringify(decision ?? null)}`,
    };
  return { ok: true, label: APPROVAL_LABELS[name] };
}
