import { describe, expect, it } from "vitest";
import { codexValidator } from "../../../test/helpers/codex-schema.js";
import { APPROVAL_LABELS, type ApprovalInfo, type QuestionRequest } from "../../protocol/questions.js";
import { validateReply } from "../../questions/broker.js";
import {
  approvalReply,
  approvalRequest,
  COMMAND_APPROVAL,
  FILE_CHANGE_APPROVAL,
  rememberedRule,
} from "./approvals.js";

const validator = codexValidator();

const exec: ApprovalInfo = {
  kind: "exec",
  reason: "write the shared config",
  command: "touch /etc/x",
  cwd: "/work",
  justification: "write the shared config",
};
const patch: ApprovalInfo = {
  kind: "file_change",
  reason: "The sandbox is read-only; this patch would change files.",
  cwd: "/work",
  paths: ["a.txt", "b.txt"],
};

/** An approval request as runtime/approvals.ts builds it. */
const request = (approval: ApprovalInfo, labels = Object.values(APPROVAL_LABELS)): QuestionRequest => ({
  request_id: "q_1",
  thread_id: "t",
  turn_id: "turn",
  call_id: "call_1",
  source: "internal",
  questions: [
    {
      id: "decision",
      header: "Approve",
      prompt: "Run it?",
      kind: "single",
      options: labels.map((label) => ({ label, description: label })),
      allow_other: false,
      secret: false,
    },
  ],
  policy: { type: "wait" },
  deadline: null,
  created_at: 1_700_000_000_123,
  approval,
});

const selected = (label: string) => ({
  kind: "reply",
  reply: { answers: { decision: { selected: [label] } } },
});

describe("approval → Codex server request", () => {
  it("an exec approval is item/commandExecution/requestApproval with every decision offered", () => {
    const r = approvalRequest(request(exec), exec);
    expect(r.method).toBe(COMMAND_APPROVAL);
    expect(r.params).toEqual({
      threadId: "t",
      turnId: "turn",
      itemId: "call_1",
      approvalId: null,
      startedAtMs: 1_700_000_000_123,
      reason: "write the shared config",
      // Fails if the client gets the raw script (it would re-split it and show quoted operators).
      command: `${process.env.SHELL || "/bin/bash"} -c 'touch /etc/x'`,
      commandActions: [{ type: "unknown", command: "touch /etc/x" }],
      cwd: "/work",
      proposedExecpolicyAmendment: ["touch", "/etc/x"],
      availableDecisions: [
        "accept",
        "acceptForSession",
        { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "/etc/x"] } },
        "decline",
        "cancel",
      ],
    });
    expect(validator.serverRequest({ id: "q_1", ...r })).toEqual([]);
  });

  it("proposes the model's prefix rule; a compound command without one has no rule to remember", () => {
    expect(rememberedRule({ ...exec, prefix_rule: ["npm", "test"] })).toEqual(["npm", "test"]);
    const compound = { ...exec, command: "make && make install" };
    expect(rememberedRule(compound)).toBeNull();
    const r = approvalRequest(request(compound), compound);
    expect(r.params).toMatchObject({
      proposedExecpolicyAmendment: null,
      availableDecisions: ["accept", "acceptForSession", "decline", "cancel"],
    });
    expect(validator.serverRequest({ id: "q_1", ...r })).toEqual([]);
  });

  it("a file-change approval is item/fileChange/requestApproval naming the files", () => {
    const r = approvalRequest(request(patch), patch);
    expect(r).toEqual({
      method: FILE_CHANGE_APPROVAL,
      params: {
        threadId: "t",
        turnId: "turn",
        itemId: "call_1",
        startedAtMs: 1_700_000_000_123,
        reason: "The sandbox is read-only; this patch would change files.\nFiles: a.txt, b.txt",
        grantRoot: null,
      },
    });
    expect(validator.serverRequest({ id: "q_1", ...r })).toEqual([]);
  });
});

describe("Codex decision → approval reply", () => {
  it("maps each Codex decision name to its label, and the reply is valid for the broker", () => {
    const cases: Array<[unknown, string]> = [
      ["accept", APPROVAL_LABELS.accept],
      ["acceptForSession", APPROVAL_LABELS.accept_for_session],
      [
        { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "/etc/x"] } },
        APPROVAL_LABELS.accept_and_remember,
      ],
      ["decline", APPROVAL_LABELS.decline],
      ["cancel", APPROVAL_LABELS.cancel],
    ];
    const req = request(exec);
    for (const [decision, label] of cases) {
      const result = { decision };
      expect(validator.clientResponse(COMMAND_APPROVAL, { id: "q_1", result })).toEqual([]);
      const r = approvalReply(req, exec, result);
      expect(r).toEqual(selected(label));
      if (r.kind === "reply") expect(validateReply(req.questions, r.reply).ok).toBe(true);
    }
    for (const decision of ["accept", "acceptForSession", "decline", "cancel"]) {
      const result = { decision };
      expect(validator.clientResponse(FILE_CHANGE_APPROVAL, { id: "q_1", result })).toEqual([]);
      expect(approvalReply(request(patch), patch, result)).toMatchObject({ kind: "reply" });
    }
  });

  it("refuses a rule other than the proposed one, network amendments, and malformed results", () => {
    const req = request(exec);
    const other = approvalReply(req, exec, {
      decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch"] } },
    });
    expect(other).toMatchObject({ kind: "invalid", message: expect.stringContaining('["touch","/etc/x"]') });
    const network = approvalReply(req, exec, {
      decision: { applyNetworkPolicyAmendment: { network_policy_amendment: { host: "x", action: "allow" } } },
    });
    expect(network).toMatchObject({ kind: "invalid", message: expect.stringMatching(/network/) });
    expect(approvalReply(req, exec, { decision: "approve" })).toMatchObject({
      kind: "invalid",
      message: expect.stringMatching(/malformed.*acceptForSession/),
    });
    expect(approvalReply(req, exec, {})).toMatchObject({ kind: "invalid" });
    // A file change has no execpolicy amendment.
    const amend = { decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["x"] } } };
    expect(approvalReply(request(patch), patch, amend)).toMatchObject({ kind: "invalid" });
    const compound = { ...exec, command: "a && b" };
    expect(approvalReply(request(compound), compound, amend)).toMatchObject({
      kind: "invalid",
      message: expect.stringMatching(/no rule to remember/),
    });
  });

  it("refuses a decision the request does not offer", () => {
    const labels = [APPROVAL_LABELS.accept, APPROVAL_LABELS.decline];
    const req = request(exec, labels);
    expect(approvalRequest(req, exec).params).toMatchObject({ availableDecisions: ["accept", "decline"] });
    expect(approvalReply(req, exec, { decision: "acceptForSession" })).toMatchObject({
      kind: "invalid",
      message: expect.stringMatching(/not offered/),
    });
    expect(approvalReply(req, exec, { decision: "decline" })).toEqual(selected("Decline"));
  });
});
