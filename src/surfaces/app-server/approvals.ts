/**
 * Tandem approvals ↔ Codex approval server requests (pure mapping; the stateful part is in
 * session.ts, shared with questions).
 *
 * An approval is a broker request with `approval` set, holding one single-choice question whose
 * options are APPROVAL_LABELS (requirements A2/A3). It goes out as
 * - `item/commandExecution/requestApproval` (kind exec), itemId = the exec_command call id;
 * - `item/fileChange/requestApproval` (kind file_change), itemId = the apply_patch call id.
 *
 * Contract of `approvalReply` (the client's result → the label the broker reply selects):
 * - `accept` → Accept; `acceptForSession` → Accept for session; `decline` → Decline (the model is
 *   told); `cancel` → Cancel (the core interrupts the turn);
 * - `{acceptWithExecpolicyAmendment: {execpolicy_amendment}}` → Accept and remember, only with the
 *   rule proposed in `proposedExecpolicyAmendment` (the core remembers exactly that rule); another
 *   rule is refused as invalid;
 * - `{applyNetworkPolicyAmendment}`, a decision the request did not offer, or a malformed result →
 *   invalid (the session reports it and asks again).
 * A JSON-RPC error reply is a decline, as for questions (session.ts).
 */

import {
  type CommandExecutionApprovalDecision,
  type CommandExecutionRequestApprovalParams,
  CommandExecutionRequestApprovalResponse,
  type FileChangeRequestApprovalParams,
  FileChangeRequestApprovalResponse,
} from "../../protocol/app-server.js";
import {
  APPROVAL_LABELS,
  type ApprovalDecisionName,
  type ApprovalInfo,
  type QuestionRequest,
} from "../../protocol/questions.js";
import { commandWords } from "../../tools/exec/safe-commands.js";
import { codexCommand, commandActions } from "./codex-command.js";
import { fileChangeItem } from "./file-change.js";
import type { CodexAnswerResult } from "./questions.js";

export const COMMAND_APPROVAL = "item/commandExecution/requestApproval";
export const FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval";

export type ApprovalServerRequest =
  | { method: typeof COMMAND_APPROVAL; params: CommandExecutionRequestApprovalParams }
  | { method: typeof FILE_CHANGE_APPROVAL; params: FileChangeRequestApprovalParams };

const NAMES = Object.keys(APPROVAL_LABELS) as ApprovalDecisionName[];

/**
 * The rule "Accept and remember" persists for this approval: the model's prefix rule, else the
 * words of a simple command (as runtime/approvals.ts decides); null when there is none to offer.
 */
export function rememberedRule(approval: ApprovalInfo): string[] | null {
  if (approval.kind !== "exec") return null;
  if (approval.prefix_rule?.length) return approval.prefix_rule;
  return approval.command ? commandWords(approval.command) : null;
}

/** Decision names the request offers, in the order of its options. */
function offered(request: QuestionRequest): ApprovalDecisionName[] {
  const labels = new Set(request.questions[0]?.options.map((o) => o.label));
  return NAMES.filter((n) => labels.has(APPROVAL_LABELS[n]));
}

function commandDecision(
  name: ApprovalDecisionName,
  rule: string[] | null,
): CommandExecutionApprovalDecision | null {
  switch (name) {
    case "accept":
      return "accept";
    case "accept_for_session":
      return "acceptForSession";
    case "accept_and_remember":
      return rule ? { acceptWithExecpolicyAmendment: { execpolicy_amendment: rule } } : null;
    case "decline":
      return "decline";
    case "cancel":
      return "cancel";
  }
}

/**
 * For a patch approval that carries the patch's would-be diffs: `item/fileChange/patchUpdated`
 * params, sent just before the approval request so the client shows the diff it is asked about.
 */
export function patchPreview(request: QuestionRequest, approval: ApprovalInfo) {
  if (approval.kind !== "file_change" || !approval.changes?.length) return undefined;
  const item = fileChangeItem({
    id: request.call_id,
    type: "file_change",
    changes: approval.changes,
    status: "in_progress",
  });
  return {
    threadId: request.thread_id,
    turnId: request.turn_id,
    itemId: request.call_id,
    changes: item.changes,
  };
}

/** The server request for an approval: method and params. */
export function approvalRequest(request: QuestionRequest, approval: ApprovalInfo): ApprovalServerRequest {
  const base = {
    threadId: request.thread_id,
    turnId: request.turn_id,
    itemId: request.call_id,
    startedAtMs: Math.round(request.created_at),
  };
  if (approval.kind === "file_change") {
    const files = approval.paths?.length ? `\nFiles: ${approval.paths.join(", ")}` : "";
    return {
      method: FILE_CHANGE_APPROVAL,
      params: { ...base, reason: `${approval.reason}${files}`, grantRoot: null },
    };
  }
  const rule = rememberedRule(approval);
  const decisions = offered(request)
    .map((n) => commandDecision(n, rule))
    .filter((d): d is CommandExecutionApprovalDecision => d !== null);
  return {
    method: COMMAND_APPROVAL,
    params: {
      ...base,
      approvalId: null,
      reason: approval.reason,
      command: approval.command === undefined ? null : codexCommand(approval.command),
      commandActions: approval.command === undefined ? null : commandActions(approval.command, approval.cwd),
      cwd: approval.cwd,
      proposedExecpolicyAmendment: rule,
      availableDecisions: decisions,
    },
  };
}

const invalid = (message: string): CodexAnswerResult => ({ kind: "invalid", message });

const SIMPLE: Record<string, ApprovalDecisionName> = {
  accept: "accept",
  acceptForSession: "accept_for_session",
  decline: "decline",
  cancel: "cancel",
};

/** The Tandem decision a Codex decision stands for, or why it stands for none. */
function decisionName(
  approval: ApprovalInfo,
  decision: CommandExecutionApprovalDecision,
): { ok: true; name: ApprovalDecisionName } | { ok: false; message: string } {
  if (typeof decision === "string") return { ok: true, name: SIMPLE[decision] };
  if ("applyNetworkPolicyAmendment" in decision)
    return {
      ok: false,
      message:
        "applyNetworkPolicyAmendment is not supported: Tandem has no network policy rules; reply accept, acceptForSession, decline or cancel",
    };
  const rule = rememberedRule(approval);
  const asked = decision.acceptWithExecpolicyAmendment.execpolicy_amendment;
  if (!rule)
    return {
      ok: false,
      message: "acceptWithExecpolicyAmendment is not offered: this command has no rule to remember",
    };
  if (asked.length !== rule.length || asked.some((w, i) => w !== rule[i]))
    return {
      ok: false,
      message: `acceptWithExecpolicyAmendment must carry the proposed rule ${JSON.stringify(rule)}; Tandem remembers only that rule`,
    };
  return { ok: true, name: "accept_and_remember" };
}

/** Maps the client's result for an approval request to a reply selecting one decision label. */
export function approvalReply(
  request: QuestionRequest,
  approval: ApprovalInfo,
  result: unknown,
): CodexAnswerResult {
  const method = approval.kind === "exec" ? COMMAND_APPROVAL : FILE_CHANGE_APPROVAL;
  const schema =
    approval.kind === "exec" ? CommandExecutionRequestApprovalResponse : FileChangeRequestApprovalResponse;
  const parsed = schema.safeParse(result);
  if (!parsed.success) {
    const expected =
      approval.kind === "exec"
        ? '"accept", "acceptForSession", {"acceptWithExecpolicyAmendment": …}, "decline" or "cancel"'
        : '"accept", "acceptForSession", "decline" or "cancel"';
    return invalid(`the ${method} result is malformed; expected {decision: ${expected}}`);
  }
  const named = decisionName(approval, parsed.data.decision);
  if (!named.ok) return invalid(named.message);
  const decision = named.name;
  const question = request.questions[0];
  if (!question || !offered(request).includes(decision))
    return invalid(`the decision "${APPROVAL_LABELS[decision]}" is not offered for this approval`);
  return { kind: "reply", reply: { answers: { [question.id]: { selected: [APPROVAL_LABELS[decision]] } } } };
}
