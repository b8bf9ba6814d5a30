/**
 * Tandem questions and approvals ↔ ACP permission requests (pure mapping; asking is asker.ts, and
 * questions asked as forms use the one question↔form mapping, questions/form.ts).
 *
 * Approvals → `session/request_permission`, options mapped to Tandem's decisions:
 *   allow once → Accept, allow always → Accept for session, reject once → Decline (the model is
 *   told), reject always → Cancel (the command or patch does not run and the turn stops). A
 *   `cancelled` outcome (the client cancelled the prompt) is a cancel (questions/asker.ts: an
 *   approval's Cancel).
 *
 * Without form elicitation, requests whose every question is single choice go out as one
 * `session/request_permission` per question (options as allow_once, plus "Skip" as reject_once →
 * the question is left unanswered; every question skipped → a decline; `cancelled` → a cancel);
 * `permissionAnswerable` says which requests can. A permission request carries no text, so these
 * offer no "Other…" choice.
 */
import type {
  CreateElicitationResponse,
  PermissionOption,
  RequestPermissionOutcome,
} from "@agentclientprotocol/sdk";
import {
  APPROVAL_LABELS,
  type ApprovalDecisionName,
  ELICITATION_URL_LABELS,
  type Question,
  type QuestionAnswer,
  type QuestionRequest,
} from "../../protocol/questions.js";
import type { FormAnswer } from "../../questions/form.js";

export const SKIP_OPTION = "skip";
const CANCELLED = { kind: "cancel", reason: "the client cancelled the request" } as const;

/** ACP permission option id → Tandem approval decision, in the order offered. */
export const APPROVAL_OPTIONS: Array<{ option: PermissionOption; decision: ApprovalDecisionName }> = [
  { option: { optionId: "allow_once", name: "Allow once", kind: "allow_once" }, decision: "accept" },
  {
    option: { optionId: "allow_always", name: "Allow for this session", kind: "allow_always" },
    decision: "accept_for_session",
  },
  { option: { optionId: "reject_once", name: "Reject", kind: "reject_once" }, decision: "decline" },
  {
    option: { optionId: "reject_always", name: "Reject and stop the turn", kind: "reject_always" },
    decision: "cancel",
  },
];

/** The approval's options the request offers (all four are always among Tandem's labels). */
export function approvalOptions(request: QuestionRequest): PermissionOption[] {
  const labels = new Set(request.questions[0]?.options.map((o) => o.label));
  return APPROVAL_OPTIONS.filter((o) => labels.has(APPROVAL_LABELS[o.decision])).map((o) => o.option);
}

export function approvalReply(request: QuestionRequest, outcome: RequestPermissionOutcome): FormAnswer {
  if (outcome.outcome !== "selected") return CANCELLED;
  const picked = APPROVAL_OPTIONS.find((o) => o.option.optionId === outcome.optionId);
  const question = request.questions[0];
  if (!picked || !question)
    return {
      kind: "invalid",
      message: `unknown permission option "${outcome.optionId}"; offered: ${approvalOptions(request)
        .map((o) => o.optionId)
        .join(", ")}`,
    };
  return {
    kind: "reply",
    reply: { answers: { [question.id]: { selected: [APPROVAL_LABELS[picked.decision]] } } },
  };
}

/** True when every question can be asked as a permission request (single choice with options). */
export function permissionAnswerable(
  questions: Array<Pick<Question, "kind" | "options" | "secret">>,
): boolean {
  return questions.every(
    (q) => (q.kind === "single" || q.kind === "boolean") && q.options.length > 0 && !q.secret,
  );
}

export function choiceOptions(q: Question): PermissionOption[] {
  return [
    ...q.options.map(
      (o, i): PermissionOption => ({ optionId: `opt_${i}`, name: o.label, kind: "allow_once" }),
    ),
    { optionId: SKIP_OPTION, name: "Skip (do not answer)", kind: "reject_once" },
  ];
}

/** One question's permission outcome: its answer (none when skipped), a cancel, or an error. */
export function permissionAnswer(
  q: Question,
  outcome: RequestPermissionOutcome,
): { ok: true; answer?: QuestionAnswer } | typeof CANCELLED | { ok: false; message: string } {
  if (outcome.outcome !== "selected") return CANCELLED;
  if (outcome.optionId === SKIP_OPTION) return { ok: true };
  const i = /^opt_(\d+)$/.exec(outcome.optionId);
  const option = i ? q.options[Number(i[1])] : undefined;
  if (!option) return { ok: false, message: `unknown option "${outcome.optionId}" for question ${q.id}` };
  return { ok: true, answer: { selected: [option.label] } };
}

/** An MCP server's URL elicitation (the user visits the URL): accept → Done; decline and cancel as such. */
export function urlReply(request: QuestionRequest, response: CreateElicitationResponse): FormAnswer {
  if (response.action === "decline") return { kind: "decline", reason: "the user declined to open the link" };
  if (response.action === "cancel") return { kind: "cancel", reason: "the user cancelled the link request" };
  if (response.action !== "accept")
    return { kind: "invalid", message: `unknown elicitation action "${response.action}"` };
  const q = request.questions[0];
  if (!q) return { kind: "invalid", message: "the request has no question" };
  return { kind: "reply", reply: { answers: { [q.id]: { selected: [ELICITATION_URL_LABELS.done] } } } };
}
