import { describe, expect, it } from "vitest";
import type { QuestionRequest } from "../../protocol/questions.js";
import { parseAnswerFile, replyFromAnswers } from "./answers.js";

const request = {
  questions: [
    {
      id: "api_key",
      header: "Key",
      prompt: "Key?",
      kind: "text",
      options: [],
      allow_other: true,
      secret: true,
    },
    {
      id: "name",
      header: "Name",
      prompt: "Name?",
      kind: "text",
      options: [],
      allow_other: true,
      secret: false,
    },
  ],
} as unknown as QuestionRequest;

describe("--answer-file", () => {
  it("reads ID=VALUE lines verbatim, skipping blanks and comments", () => {
    const r = parseAnswerFile("# keys\n\napi_key= sk=with=equals \r\nname=demo\n");
    expect(r).toEqual({
      ok: true,
      texts: [
        { id: "api_key", text: " sk=with=equals ", fromArgv: false },
        { id: "name", text: "demo", fromArgv: false },
      ],
    });
  });

  it("reads a JSON object of strings or typed answers", () => {
    const r = parseAnswerFile('{"api_key": "sk-1234", "name": {"selected": [], "other": "demo"}}');
    expect(r).toMatchObject({
      ok: true,
      texts: [{ id: "api_key", text: "sk-1234" }],
      typed: { name: { selected: [], other: "demo" } },
    });
  });

  it("never echoes a line it cannot parse (it may be a bare secret)", () => {
    const r = parseAnswerFile("sk-bare-secret-value\n");
    expect(r).toEqual({ ok: false, error: "line 1: expected ID=VALUE (or a JSON object)" });
  });
});

describe("replyFromAnswers", () => {
  it("refuses a secret from argv without echoing it, and accepts it from a file", () => {
    const argv = replyFromAnswers(request, {
      texts: [{ id: "api_key", text: "sk-argv-1234", fromArgv: true }],
      typed: [],
    });
    expect(argv.errors).toHaveLength(1);
    expect(argv.errors[0]).toMatch(/secret question.*--answer api_key=-.*--answer-file/);
    expect(argv.errors[0]).not.toContain("sk-argv");
    const file = replyFromAnswers(request, {
      texts: [
        { id: "api_key", text: "sk-file-1234", fromArgv: false },
        { id: "name", text: "demo", fromArgv: true },
      ],
      typed: [],
    });
    expect(file).toEqual({
      errors: [],
      reply: {
        answers: { api_key: { selected: [], other: "sk-file-1234" }, name: { selected: [], other: "demo" } },
      },
    });
  });
});
