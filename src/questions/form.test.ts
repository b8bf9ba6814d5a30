/**
 * The mapping of Tandem's questions to MCP forms and back, checked against the real pieces on each
 * side: the SDK's own schemas and validator (what a host accepts), the broker's reply validation
 * (what Tandem accepts), and the MCP client's elicitation mapping (a form relayed from an MCP server
 * through Tandem to the host: "a question asked three agents deep still reaches the human").
 */
import { ElicitRequestFormParamsSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe, expect, it } from "vitest";
import { askFormCases } from "../../test/helpers/form-cases.js";
import { SECRET_NOTE } from "../protocol/form-rules.js";
import type { Question, QuestionRequest } from "../protocol/questions.js";
import { elicitationRequest, outcomeToElicitResult } from "../tools/mcp/elicitation.js";
import { DECISION_FIELD, type Form, type FormResult, formAnswer, formFor, SECRET_META } from "./form.js";
import { validateReply } from "./reply.js";

const elicitationFor = (request: QuestionRequest) => ({
  mode: "form" as const,
  ...formFor(request, { thread: true }),
});
const elicitationReply = (request: QuestionRequest, result: FormResult) => {
  const mapped = formAnswer(request, result);
  if (mapped.kind === "other") throw new Error("unexpected second form");
  return mapped;
};

// The shape of @modelcontextprotocol/server-everything's trigger-elicitation-request form.
const FORM = {
  type: "object" as const,
  properties: {
    name: { title: "String", type: "string", description: "Your full, legal name" },
    check: { title: "Boolean", type: "boolean", description: "Agree to the terms" },
    firstLine: { title: "String with default", type: "string", default: "It was a dark and stormy night." },
    email: { title: "Email", type: "string", format: "email" },
    homepage: { type: "string", format: "uri", title: "Homepage" },
    birthdate: { title: "Birthdate", type: "string", format: "date" },
    integer: { title: "Integer", type: "integer", minimum: 1, maximum: 100, default: 42 },
    number: { title: "Number", type: "number", minimum: 0, maximum: 1000, default: 3.14 },
    untitledSingle: { type: "string", title: "Friend", enum: ["Monica", "Joey"], default: "Monica" },
    untitledMulti: {
      type: "array",
      title: "Instruments",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["Guitar", "Piano", "Drums"] },
      default: ["Guitar"],
    },
    titledSingle: {
      type: "string",
      title: "Hero",
      oneOf: [
        { const: "hero-1", title: "Superman" },
        { const: "hero-3", title: "Wonder Woman" },
      ],
      default: "hero-1",
    },
    titledMulti: {
      type: "array",
      title: "Fish",
      items: {
        anyOf: [
          { const: "fish-1", title: "Tuna" },
          { const: "fish-2", title: "Salmon" },
        ],
      },
    },
    legacy: { type: "string", title: "Pet", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"] },
  },
  required: ["name"],
};

function requestOf(questions: Question[], extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return {
    request_id: "q_1",
    thread_id: "thread-1",
    turn_id: "turn-1",
    call_id: "call-1",
    source: "internal",
    questions,
    policy: { type: "wait" },
    deadline: null,
    created_at: 0,
    ...extra,
  };
}

const validator = new AjvJsonSchemaValidator();

describe("MCP server elicitation mapping", () => {
  // fails if a typed question loses its type, format, bounds, default or required flag on the way to
  // the host, if the host's typed content is not turned into a reply the broker accepts, or if the
  // relayed server gets back anything but its own typed values (consts, numbers, booleans).
  it("relays an MCP server's typed form to the host and the host's answer back, typed", () => {
    const inner = elicitationRequest("everything", {
      mode: "form",
      message: "Please provide inputs",
      requestedSchema: FORM,
    } as any);
    const request = requestOf(inner.questions, { elicitation: inner.elicitation });
    const form = elicitationFor(request);
    expect(ElicitRequestFormParamsSchema.safeParse(form).success).toBe(true);
    expect(form.message).toContain('MCP server "everything"');
    expect(form.message).toContain("Please provide inputs");
    const p = form.requestedSchema.properties as Record<string, any>;
    expect(p.email).toMatchObject({ type: "string", format: "email" });
    expect(p.integer).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 42 });
    expect(p.number).toMatchObject({ type: "number", default: 3.14 });
    expect(p.check).toMatchObject({ type: "boolean" });
    expect(p.titledSingle).toMatchObject({
      type: "string",
      oneOf: [
        { const: "Superman", title: "Superman" },
        { const: "Wonder Woman", title: "Wonder Woman" },
      ],
      default: "Superman",
    });
    expect(p.untitledMulti).toMatchObject({ type: "array", minItems: 1, maxItems: 3, default: ["Guitar"] });
    expect(p.legacy.oneOf.map((o: any) => o.title)).toEqual(["Cats", "Dogs"]);
    expect(form.requestedSchema.required).toEqual(["name"]);
    // MCP server questions take no free text: no "Other…" choice, no field beside the server's own.
    expect(Object.keys(p)).toEqual(Object.keys(FORM.properties));
    expect(JSON.stringify(p)).not.toContain("Other…");

    const content = {
      name: "Ada",
      check: true,
      email: "ada@example.com",
      homepage: "https://ada.dev",
      birthdate: "1815-12-10",
      integer: 7,
      number: 2.5,
      untitledSingle: "Joey",
      untitledMulti: ["Piano", "Drums"],
      titledSingle: "Wonder Woman",
      titledMulti: ["Salmon"],
      legacy: "Dogs",
    };
    expect(validator.getValidator(form.requestedSchema as any)(content).valid).toBe(true);
    const mapped = elicitationReply(request, { action: "accept", content });
    if (mapped.kind !== "reply") throw new Error(`expected a reply, got ${JSON.stringify(mapped)}`);
    const checked = validateReply(request.questions, mapped.reply);
    if (!checked.ok) throw new Error(checked.message);
    const back = outcomeToElicitResult(request.questions, {
      status: "answered",
      answers: checked.answers,
      unanswered: checked.unanswered,
      responder: { kind: "mcp-server" },
    });
    expect(back).toEqual({
      action: "accept",
      content: {
        ...content,
        firstLine: "It was a dark and stormy night.",
        titledSingle: "hero-3",
        titledMulti: ["fish-2"],
        legacy: "pet-2",
      },
    });
  });

  // fails if a value of the wrong type is passed on (or silently dropped) instead of refused with
  // a message naming the field, or if decline/cancel are confused.
  it("refuses wrongly typed values with the field named; decline and cancel stay distinct", () => {
    const inner = elicitationRequest("everything", {
      mode: "form",
      message: "m",
      requestedSchema: FORM,
    } as any);
    const request = requestOf(inner.questions);
    expect(elicitationReply(request, { action: "accept", content: { check: "yes" } })).toEqual({
      kind: "invalid",
      message: '"check": expected true or false, got a string',
    });
    expect(
      elicitationReply(request, { action: "accept", content: { untitledMulti: "Piano" } }),
    ).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining('"untitledMulti"'),
    });
    expect(elicitationReply(request, { action: "decline" }).kind).toBe("decline");
    expect(elicitationReply(request, { action: "cancel" }).kind).toBe("cancel");
  });

  // fails if a described option's text is lost (oneOf items carry only const and title), or a
  // secret question is not marked both ways (_meta list and description).
  it("describes options in the field and marks secret questions in _meta and the description", () => {
    const questions: Question[] = [
      {
        id: "stack",
        header: "Stack",
        prompt: "Which stack?",
        kind: "multi",
        options: [
          { label: "Rust", description: "cargo" },
          { label: "Go", description: "" },
        ],
        allow_other: true,
        secret: false,
      },
      {
        id: "token",
        header: "Token",
        prompt: "Your API token",
        kind: "text",
        options: [],
        allow_other: true,
        secret: true,
      },
    ];
    const form = elicitationFor(requestOf(questions, { source: "model" }));
    const p = form.requestedSchema.properties as Record<string, any>;
    expect(p.stack.description).toBe("Which stack?\n- Rust: cargo");
    expect(p.stack.items.anyOf.every((o: object) => Object.keys(o).join() === "const,title")).toBe(true);
    expect(p.token.description).toBe(`Your API token\n${SECRET_NOTE}`);
    expect(form._meta).toEqual({ [SECRET_META]: ["token"] });
    expect(Object.keys(p)).toEqual(["stack", "token"]);
    expect(ElicitRequestFormParamsSchema.safeParse(form).success).toBe(true);
  });

  // fails if an approval is not a required enum of the decisions offered, or a decision outside
  // them is accepted.
  it("asks approvals as an enum of the offered decisions", () => {
    const request = requestOf(
      [
        {
          id: "decision",
          header: "Approve",
          prompt: "Run `rm -rf build`?",
          kind: "single",
          options: [
            { label: "Accept", description: "Run it this once" },
            { label: "Decline", description: "Do not run it" },
          ],
          allow_other: false,
          secret: false,
        },
      ],
      { approval: { kind: "exec", reason: "untrusted", command: "rm -rf build", cwd: "/w" } },
    );
    const form = elicitationFor(request);
    expect(form.requestedSchema).toMatchObject({
      required: [DECISION_FIELD],
      properties: {
        decision: {
          oneOf: [
            { const: "accept", title: "Accept" },
            { const: "decline", title: "Decline" },
          ],
        },
      },
    });
    expect(form.message).toContain("rm -rf build");
    expect(elicitationReply(request, { action: "accept", content: { decision: "decline" } })).toEqual({
      kind: "reply",
      reply: { answers: { decision: { selected: ["Decline"] } } },
    });
    expect(elicitationReply(request, { action: "accept", content: { decision: "cancel" } }).kind).toBe(
      "invalid",
    );
  });
});

// The shared case table (form-cases.ts), through the MCP SDK's own schema and validator: every
// form a case produces is one an MCP host accepts, and every content a case sends fits it.
askFormCases("MCP", (form: Form, content) => {
  const params = { mode: "form" as const, ...form };
  expect(ElicitRequestFormParamsSchema.safeParse(params).success).toBe(true);
  return content === undefined || validator.getValidator(form.requestedSchema as any)(content).valid;
});
