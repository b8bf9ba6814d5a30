import { describe, expect, it } from "vitest";
import type { QuestionRequest } from "../../protocol/questions.js";
import { formatQuestion } from "./human.js";

describe("exec: how a question is printed", () => {
  // Fails if an MCP server's form is attributed to the model or its typed fields print no hint.
  it("names the MCP server that asks and says what a typed answer looks like", () => {
    const request: QuestionRequest = {
      request_id: "q_1",
      thread_id: "t",
      turn_id: "turn",
      call_id: "c",
      source: "internal",
      policy: { type: "wait" },
      deadline: null,
      created_at: 0,
      elicitation: { server: "everything", mode: "form", message: "Tell us about you" },
      questions: [
        {
          id: "age",
          header: "Age",
          prompt: "How old are you?",
          kind: "number",
          options: [],
          allow_other: true,
          secret: false,
          integer: true,
          minimum: 0,
          maximum: 150,
        },
      ],
    };
    const text = formatQuestion(request);
    expect(text).toContain('? MCP server "everything" asks (1 question):');
    expect(text).toContain("Tell us about you");
    expect(text).toMatch(/answer: .*whole number.*0.*150/);
  });
});
