import { describe, expect, it } from "vitest";
import { codexValidator } from "../../../test/helpers/codex-schema.js";
import { elicitationLabel, type QuestionRequest } from "../../protocol/questions.js";
import { validateReply } from "../../questions/reply.js";
import { elicitationRequest, outcomeToElicitResult } from "../../tools/mcp/elicitation.js";
import { ELICITATION_REQUEST, elicitationAnswer, elicitationParams } from "./elicitation.js";

// The shape of @modelcontextprotocol/server-everything's trigger-elicitation-request form (part).
const FORM = {
  type: "object" as const,
  properties: {
    name: { title: "String", type: "string", description: "Your full, legal name" },
    check: { title: "Boolean", type: "boolean" },
    email: { title: "Email", type: "string", format: "email" },
    integer: { title: "Integer", type: "integer", minimum: 1, maximum: 100, default: 42 },
    untitledMulti: {
      type: "array",
      title: "Instruments",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["Guitar", "Piano", "Drums"] },
    },
    titledSingle: {
      type: "string",
      title: "Hero",
      oneOf: [
        { const: "hero-1", title: "Superman" },
        { const: "hero-3", title: "Wonder Woman" },
      ],
    },
  },
  required: ["name"],
};

const requestFor = (params: Parameters<typeof elicitationRequest>[1]): QuestionRequest => {
  const { questions, elicitation } = elicitationRequest("everything", params);
  return {
    request_id: "q_1",
    thread_id: "t",
    turn_id: "turn",
    call_id: "call_1",
    source: "internal",
    questions,
    policy: { type: "wait" },
    deadline: null,
    created_at: 0,
    elicitation,
  };
};

describe("MCP elicitation → Codex mcpServer/elicitation/request", () => {
  const validator = codexValidator();

  // Fails if the form is not a valid Codex server request, or loses types on the way back.
  it("sends a typed form and maps the client's typed content back to the server's values", () => {
    const request = requestFor({ mode: "form", message: "Please fill in", requestedSchema: FORM as never });
    const params = elicitationParams(request);
    expect(params).toMatchObject({ threadId: "t", turnId: "turn", serverName: "everything", mode: "form" });
    // The one label (who asks, who sees the answer), then the server's own message.
    expect(params.message).toBe(
      `${elicitationLabel({ server: "everything", mode: "form" })}\n\nPlease fill in`,
    );
    expect(validator.serverRequest({ id: "q_1", method: ELICITATION_REQUEST, params })).toEqual([]);
    const schema = params.requestedSchema as any;
    expect(schema.properties.integer).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 42,
    });

    const result = {
      action: "accept",
      content: {
        name: "Ada",
        check: true,
        email: "ada@example.com",
        integer: 7,
        untitledMulti: ["Piano"],
        // The rebuilt form's choices are the option labels (the server's titles).
        titledSingle: "Wonder Woman",
      },
    };
    expect(validator.clientResponse(ELICITATION_REQUEST, { id: "q_1", result })).toEqual([]);
    const mapped = elicitationAnswer(request, result);
    expect(mapped.kind).toBe("reply");
    if (mapped.kind !== "reply") return;
    const checked = validateReply(request.questions, mapped.reply);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    const back = outcomeToElicitResult(request.questions, {
      status: "answered",
      answers: checked.answers,
      unanswered: checked.unanswered,
      responder: { kind: "app-server" },
    });
    expect(back).toMatchObject({
      action: "accept",
      content: { name: "Ada", check: true, email: "ada@example.com", integer: 7, untitledMulti: ["Piano"] },
    });
    // …and the server gets its own value back.
    expect((back as any).content.titledSingle).toBe("hero-3");
  });

  // Fails if decline/cancel become answers or merge, or a wrongly typed value is accepted.
  it("decline and cancel stay apart; wrong types are invalid", () => {
    const request = requestFor({ mode: "form", message: "m", requestedSchema: FORM as never });
    expect(elicitationAnswer(request, { action: "decline" }).kind).toBe("decline");
    expect(elicitationAnswer(request, { action: "cancel" })).toMatchObject({
      kind: "cancel",
      reason: expect.stringContaining("cancelled"),
    });
    expect(elicitationAnswer(request, { action: "accept", content: { check: "yes" } }).kind).toBe("invalid");
    expect(elicitationAnswer(request, { nope: 1 }).kind).toBe("invalid");
  });

  // Fails if URL mode is not sent as Codex's url elicitation or "accept" does not mean Done.
  it("URL mode goes out as a url request; accept means Done", () => {
    const request = requestFor({
      mode: "url",
      message: "Sign in",
      url: "https://example.com/auth",
      elicitationId: "el-1",
    } as never);
    const params = elicitationParams(request);
    expect(params).toMatchObject({ mode: "url", url: "https://example.com/auth", elicitationId: "el-1" });
    expect(validator.serverRequest({ id: "q_1", method: ELICITATION_REQUEST, params })).toEqual([]);
    const mapped = elicitationAnswer(request, { action: "accept" });
    expect(mapped).toEqual({ kind: "reply", reply: { answers: { url: { selected: ["Done"] } } } });
  });
});

describe("an accepted form without content", () => {
  // Fails if `accept` with `content: null` on a form with required fields is asked again (a client
  // that cannot render the form answers the same way every time: an endless loop) instead of one
  // decline that says why.
  it("is one decline with the reason, never a re-ask", () => {
    const request = requestFor({ mode: "form", message: "Who are you?", requestedSchema: FORM as never });
    for (const content of [null, undefined, {}])
      expect(elicitationAnswer(request, { action: "accept", content })).toEqual({
        kind: "decline",
        reason: "the user submitted the form without an answer",
      });
  });
});
