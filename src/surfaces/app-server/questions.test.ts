import { describe, expect, it } from "vitest";
import type { Question, QuestionRequest } from "../../protocol/questions.js";
import { validateReply } from "../../questions/broker.js";
import { codexQuestion, replyFromCodex, requestUserInputParams } from "./questions.js";

const stack: Question = {
  id: "stack",
  header: "Stack",
  prompt: "Which stack?",
  kind: "multi",
  options: [
    { label: "TypeScript (Recommended)", description: "fast" },
    { label: "Rust", description: "safe" },
  ],
  allow_other: true,
  secret: false,
};
const name: Question = { ...stack, id: "name", kind: "text", options: [], prompt: "Name?" };
const token: Question = { ...name, id: "token", secret: true };

const request = (over: Partial<QuestionRequest> = {}): QuestionRequest => ({
  request_id: "q_1",
  thread_id: "t",
  turn_id: "turn",
  call_id: "call_1",
  source: "model",
  questions: [stack, name, token],
  policy: { type: "wait" },
  deadline: null,
  created_at: 0,
  ...over,
});

describe("Codex answers → typed reply", () => {
  it("labels become selected, user_note: becomes the note, anything else is other", () => {
    const r = replyFromCodex(request(), {
      answers: {
        stack: { answers: ["Rust", "TypeScript (Recommended)", "user_note: both, please"] },
        name: { answers: ["demo", "user_note: short"] },
      },
    });
    expect(r).toEqual({
      kind: "reply",
      reply: {
        answers: {
          stack: { selected: ["Rust", "TypeScript (Recommended)"], note: "both, please" },
          name: { selected: [], other: "demo", note: "short" },
        },
      },
    });
    if (r.kind === "reply") expect(validateReply(request().questions, r.reply).ok).toBe(true);
  });

  it("a string that is not exactly a label is free text", () => {
    const r = replyFromCodex(request(), { answers: { stack: { answers: ["rust", "Go"] } } });
    expect(r).toEqual({ kind: "reply", reply: { answers: { stack: { selected: [], other: "rust\nGo" } } } });
  });

  // Fails if the Codex TUI's "None of the above" is sent to the model as the answer text.
  it('"None of the above" with a note answers with the note as free text, selecting nothing', () => {
    const r = replyFromCodex(request(), {
      answers: { stack: { answers: ["None of the above", "user_note: MySQL 8 please"] } },
    });
    expect(r).toEqual({
      kind: "reply",
      reply: { answers: { stack: { selected: [], other: "MySQL 8 please" } } },
    });
    if (r.kind === "reply") expect(validateReply(request().questions, r.reply).ok).toBe(true);
    const bare = replyFromCodex(request(), { answers: { stack: { answers: ["None of the above"] } } });
    expect(bare).toEqual({
      kind: "reply",
      reply: { answers: { stack: { selected: [], other: "None of the above" } } },
    });
    // A real option that happens to be called that stays a selection.
    const labelled = request({
      questions: [{ ...stack, options: [...stack.options, { label: "None of the above", description: "" }] }],
    });
    expect(
      replyFromCodex(labelled, { answers: { stack: { answers: ["None of the above", "user_note: x"] } } }),
    ).toEqual({
      kind: "reply",
      reply: { answers: { stack: { selected: ["None of the above"], note: "x" } } },
    });
  });

  it("secret answers are taken verbatim, even when they look like a note", () => {
    const r = replyFromCodex(request(), { answers: { token: { answers: ["user_note: sk-123"] } } });
    expect(r).toEqual({
      kind: "reply",
      reply: { answers: { token: { selected: [], other: "user_note: sk-123" } } },
    });
  });

  it("nothing answered is a decline, never an empty answer", () => {
    expect(replyFromCodex(request(), { answers: {} }).kind).toBe("decline");
    expect(
      replyFromCodex(request(), { answers: { stack: { answers: [] }, name: { answers: [""] } } }).kind,
    ).toBe("decline");
  });

  it("unknown question ids pass through for the broker to refuse", () => {
    const r = replyFromCodex(request(), { answers: { nope: { answers: ["x"] } } });
    expect(r.kind === "reply" && validateReply(request().questions, r.reply)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/unknown question "nope"/),
    });
  });
});

describe("Tandem question → requestUserInput params", () => {
  it("maps questions and reports blocking and time left", () => {
    expect(codexQuestion(name)).toEqual({
      id: "name",
      header: "Stack",
      question: "Name?",
      isOther: true,
      isSecret: false,
      options: null,
    });
    expect(requestUserInputParams(request(), "plan")).toMatchObject({
      threadId: "t",
      turnId: "turn",
      itemId: "call_1",
      isBlocking: true,
      autoResolutionMs: null,
    });
    const timed = request({ policy: { type: "timeout", ms: 5000, on_timeout: "decline" }, deadline: 10_000 });
    expect(requestUserInputParams(timed, "default", 7_500)).toMatchObject({
      isBlocking: false,
      autoResolutionMs: 2500,
    });
    expect(requestUserInputParams(timed, "plan", 20_000)).toMatchObject({
      isBlocking: true,
      autoResolutionMs: 0,
    });
    expect(requestUserInputParams(request(), "default").isBlocking).toBe(true);
  });
});
