/**
 * The forms an ACP editor gets (the one question↔form mapping, questions/form.ts; MCP elicitation
 * relayed through Tandem, requirements S6 → S5): the form must be valid on the wire (the SDK's own
 * validating guard) and the client's typed content must come back as a reply the broker accepts,
 * with the values the asker expects. Also ACP's own permission-request mapping.
 */
import { CreateElicitationRequest } from "@agentclientprotocol/sdk";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe, expect, it } from "vitest";
import { askFormCases } from "../../../test/helpers/form-cases.js";
import type { Question, QuestionRequest } from "../../protocol/questions.js";
import { BOOLEAN_OPTIONS } from "../../protocol/questions.js";
import { type Form, type FormResult, formAnswer, formFor } from "../../questions/form.js";
import { validateReply } from "../../questions/reply.js";
import { approvalReply, permissionAnswerable } from "./questions.js";

const elicitationSchema = (r: QuestionRequest) => formFor(r).requestedSchema;
const elicitationReply = (r: QuestionRequest, result: FormResult) => formAnswer(r, result);
/** The form as `elicitation/create` params (asker.ts). */
const asParams = (form: Form) => ({
  mode: "form" as const,
  sessionId: "t1",
  toolCallId: "c1",
  message: form.message,
  requestedSchema: form.requestedSchema,
  ...(form._meta ? { _meta: form._meta } : {}),
});

const q = (over: Partial<Question> & Pick<Question, "id" | "kind">): Question => ({
  header: over.id,
  prompt: `${over.id}?`,
  options: [],
  allow_other: false,
  secret: false,
  ...over,
});

const request = (questions: Question[]): QuestionRequest => ({
  request_id: "q_1",
  thread_id: "t1",
  turn_id: "u1",
  call_id: "c1",
  source: "internal",
  questions,
  policy: { type: "wait" },
  deadline: null,
  created_at: 0,
  elicitation: { server: "everything", mode: "form", message: "Please fill in the form" },
});

const TYPED = [
  q({ id: "agree", kind: "boolean", options: BOOLEAN_OPTIONS, default: true, required: true }),
  q({ id: "count", kind: "number", integer: true, minimum: 1, maximum: 10, default: 3 }),
  q({ id: "ratio", kind: "number", minimum: 0, maximum: 1 }),
  q({ id: "email", kind: "text", format: "email", max_length: 64 }),
  q({
    id: "tags",
    kind: "multi",
    options: [
      { label: "a", description: "" },
      { label: "b", description: "" },
      { label: "c", description: "" },
    ],
    min_items: 1,
    max_items: 2,
  }),
  q({
    id: "color",
    kind: "single",
    options: [
      { label: "red", description: "warm" },
      { label: "blue", description: "" },
    ],
    default: "blue",
  }),
];

describe("ACP form mapping of typed questions", () => {
  // fails if a kind maps to the wrong JSON Schema type, loses its bounds, format, default or
  // required, or if the form is not a valid ACP elicitation (the SDK's validating guard).
  it("maps every kind to a wire-valid form with bounds, formats, defaults and required", () => {
    const schema = elicitationSchema(request(TYPED));
    expect(schema.properties).toMatchObject({
      agree: { type: "boolean", default: true },
      count: { type: "integer", minimum: 1, maximum: 10, default: 3 },
      ratio: { type: "number", minimum: 0, maximum: 1 },
      email: { type: "string", format: "email", maxLength: 64 },
      tags: {
        type: "array",
        minItems: 1,
        maxItems: 2,
        items: { anyOf: [{ const: "a", title: "a" }, {}, {}] },
      },
      color: {
        type: "string",
        default: "blue",
        // Option descriptions go in the field's description (one rule for MCP and ACP forms).
        description: "color?\n- red: warm",
        oneOf: [{ const: "red", title: "red" }, {}],
      },
    });
    expect(schema.required).toEqual(["agree"]);
    const wire = {
      mode: "form" as const,
      sessionId: "t1",
      toolCallId: "c1",
      message: "m",
      requestedSchema: schema,
    };
    expect(CreateElicitationRequest.isForm(wire)).toBe(true);
  });

  // fails if booleans or numbers come back as anything but the typed answers the broker accepts
  // (Yes/No labels, the number as text), or if an accepted form is not a valid reply.
  it("maps typed content back to a reply the broker validates", () => {
    const r = request(TYPED);
    const mapped = elicitationReply(r, {
      action: "accept",
      content: {
        agree: false,
        count: 7,
        ratio: 0.5,
        email: "dev@example.com",
        tags: ["a", "c"],
        color: "red",
      },
    });
    expect(mapped).toEqual({
      kind: "reply",
      reply: {
        answers: {
          agree: { selected: ["No"] },
          count: { selected: [], other: "7" },
          ratio: { selected: [], other: "0.5" },
          email: { selected: [], other: "dev@example.com" },
          tags: { selected: ["a", "c"] },
          color: { selected: ["red"] },
        },
      },
    });
    if (mapped.kind !== "reply") throw new Error("unreachable");
    expect(validateReply(r.questions, mapped.reply)).toMatchObject({ ok: true });
    // Out of range: mapped faithfully, the broker says why (the asker re-asks with that reason).
    const bad = elicitationReply(r, { action: "accept", content: { agree: true, count: 42 } });
    if (bad.kind !== "reply") throw new Error("expected a reply");
    const checked = validateReply(r.questions, bad.reply);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.message).toContain("count");
  });

  // fails if decline/cancel become answers or merge, if an empty optional form is refused, or an
  // unknown option is passed on as free text (it goes on as a label, which the broker refuses).
  it("declines, cancels, empty optional forms and unknown options", () => {
    const r = request([q({ id: "x", kind: "single", options: [{ label: "a", description: "" }] })]);
    expect(elicitationReply(r, { action: "decline" }).kind).toBe("decline");
    expect(elicitationReply(r, { action: "cancel" }).kind).toBe("cancel");
    expect(elicitationReply(r, { action: "accept", content: {} }).kind).toBe("decline");
    const unknown = elicitationReply(r, { action: "accept", content: { x: "zzz" } });
    expect(unknown).toEqual({ kind: "reply", reply: { answers: { x: { selected: ["zzz"] } } } });
    if (unknown.kind !== "reply") throw new Error("unreachable");
    expect(validateReply(r.questions, unknown.reply)).toMatchObject({
      ok: false,
      message: expect.stringContaining('"zzz" is not an option'),
    });
    const optional = request([q({ id: "y", kind: "text", required: false })]);
    expect(elicitationReply(optional, { action: "accept", content: {} })).toEqual({
      kind: "reply",
      reply: { answers: {} },
    });
  });

  // fails if booleans (Yes/No) cannot go out as permission options, or free text / secrets can.
  it("permission requests only for single-choice questions", () => {
    expect(permissionAnswerable([TYPED[0], TYPED[5]])).toBe(true);
    expect(permissionAnswerable([TYPED[3]])).toBe(false);
    expect(permissionAnswerable([{ ...TYPED[5], secret: true }])).toBe(false);
  });

  // fails if the documented mapping of permission options to Tandem's decisions changes.
  it("maps permission options to approval decisions", () => {
    const approval = request([
      q({
        id: "decision",
        kind: "single",
        options: ["Accept", "Accept for session", "Accept and remember", "Decline", "Cancel"].map(
          (label) => ({
            label,
            description: "",
          }),
        ),
      }),
    ]);
    const pick = (optionId: string) =>
      approvalReply(approval, { outcome: "selected", optionId }) as {
        reply: { answers: Record<string, any> };
      };
    expect(pick("allow_once").reply.answers.decision.selected).toEqual(["Accept"]);
    expect(pick("allow_always").reply.answers.decision.selected).toEqual(["Accept for session"]);
    expect(pick("reject_once").reply.answers.decision.selected).toEqual(["Decline"]);
    expect(pick("reject_always").reply.answers.decision.selected).toEqual(["Cancel"]);
    // The client cancelled the prompt: a cancel (an approval's Cancel, questions/asker.ts).
    expect(approvalReply(approval, { outcome: "cancelled" }).kind).toBe("cancel");
    expect(approvalReply(approval, { outcome: "selected", optionId: "maybe" }).kind).toBe("invalid");
  });
});

const validator = new AjvJsonSchemaValidator();
askFormCases("ACP", (form, content) => {
  expect(CreateElicitationRequest.isForm(asParams(form))).toBe(true);
  return content === undefined || validator.getValidator(form.requestedSchema as any)(content).valid;
});
