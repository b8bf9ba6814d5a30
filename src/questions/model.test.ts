import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { Question, QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import { QuestionRequest as QuestionRequestSchema } from "../protocol/questions.js";
import { jsonSchemaOf } from "../tools/registry.js";
import { requestIdFor } from "./broker.js";
import {
  fromInternal,
  fromModelTool,
  isRecommended,
  type ModelQuestion,
  RequestUserInputArgs,
  stripRecommended,
  toModelResult,
  UNAVAILABLE_MESSAGE,
  unavailableModelResult,
  validateModelQuestions,
  withheldModelResult,
} from "./model.js";

const q = (over: Partial<ModelQuestion> = {}): ModelQuestion => ({
  id: "db_engine",
  header: "Database",
  question: "Which database should the service use?",
  options: [
    { label: "Postgres (Recommended)", description: "Mature, already in the stack" },
    { label: "SQLite", description: "Embedded, zero ops" },
  ],
  ...over,
});

function errorOf(questions: ModelQuestion[]): string {
  const v = validateModelQuestions({ questions });
  if (v.ok) throw new Error("expected a validation error");
  return v.error;
}

describe("validateModelQuestions", () => {
  it("maps a valid single-choice question to a protocol question with Other allowed", () => {
    const v = validateModelQuestions({ questions: [q()] });
    expect(v).toEqual({
      ok: true,
      questions: [
        {
          id: "db_engine",
          header: "Database",
          prompt: "Which database should the service use?",
          kind: "single",
          options: [
            { label: "Postgres (Recommended)", description: "Mature, already in the stack" },
            { label: "SQLite", description: "Embedded, zero ops" },
          ],
          allow_other: true,
          secret: false,
        },
      ],
    });
  });

  it("maps multi_select to multi and no options to text; secret passes through", () => {
    const v = validateModelQuestions({
      questions: [
        q({ id: "features", multi_select: true }),
        q({ id: "api_key", header: "API key", options: undefined, secret: true }),
        q({ id: "notes", header: "Notes", options: undefined, multi_select: false }),
      ],
    });
    if (!v.ok) throw new Error(v.error);
    expect(v.questions.map((x) => [x.kind, x.secret, x.allow_other, x.options.length])).toEqual([
      ["multi", false, true, 2],
      ["text", true, true, 0],
      ["text", false, true, 0],
    ]);
  });

  it("trims text fields", () => {
    const v = validateModelQuestions({
      questions: [q({ id: " db ", header: " DB ", question: "  Which?  ", options: undefined })],
    });
    if (!v.ok) throw new Error(v.error);
    expect(v.questions[0]).toMatchObject({ id: "db", header: "DB", prompt: "Which?" });
  });

  it.each([
    [0, "questions: expected 1 to 3 questions; got 0"],
    [4, "questions: expected 1 to 3 questions; got 4"],
  ])("rejects %i questions", (n, message) => {
    const questions = Array.from({ length: n }, (_, i) => q({ id: `q_${i}` }));
    expect(errorOf(questions)).toContain(message);
  });

  it("accepts 1 to 3 questions", () => {
    for (const n of [1, 2, 3]) {
      const questions = Array.from({ length: n }, (_, i) => q({ id: `q_${i}` }));
      expect(validateModelQuestions({ questions }).ok).toBe(true);
    }
  });

  it.each(["DbEngine", "db-engine", "1st", "_db", "", "db engine", "é"])("rejects id %j", (id) => {
    expect(errorOf([q({ id })])).toContain(
      `questions[0]: id must be snake_case (lowercase letters, digits and "_", starting with a letter); got "${id}"`,
    );
  });

  it("accepts snake_case ids with digits", () => {
    expect(validateModelQuestions({ questions: [q({ id: "step2_db_v3" })] }).ok).toBe(true);
  });

  it("rejects duplicate ids", () => {
    expect(errorOf([q(), q({ header: "Other" })])).toContain(
      'questions[1] ("db_engine"): id "db_engine" is already used by questions[0]; ids must be unique',
    );
  });

  it("rejects an empty or long header, counting characters not bytes", () => {
    expect(errorOf([q({ header: "   " })])).toContain('questions[0] ("db_engine"): header must not be empty');
    expect(errorOf([q({ header: "Database type" })])).toContain(
      'questions[0] ("db_engine"): header "Database type" is 13 characters; the limit is 12',
    );
    expect(validateModelQuestions({ questions: [q({ header: "Datenbank-Wä" })] }).ok).toBe(true);
    expect(validateModelQuestions({ questions: [q({ header: "🙂".repeat(12) })] }).ok).toBe(true);
  });

  it("rejects an empty question", () => {
    expect(errorOf([q({ question: " \n" })])).toContain(
      'questions[0] ("db_engine"): question must not be empty',
    );
  });

  it.each([0, 1, 5])("rejects %i options", (n) => {
    const options = Array.from({ length: n }, (_, i) => ({ label: `Option ${i}`, description: "d" }));
    expect(errorOf([q({ options })])).toContain(
      `questions[0] ("db_engine"): options must have 2 to 4 entries; got ${n} (omit options entirely for a free-text question)`,
    );
  });

  it("accepts 2 to 4 options", () => {
    for (const n of [2, 3, 4]) {
      const options = Array.from({ length: n }, (_, i) => ({ label: `Option ${i}`, description: "" }));
      expect(validateModelQuestions({ questions: [q({ options })] }).ok).toBe(true);
    }
  });

  it("rejects empty option labels", () => {
    const options = [
      { label: "A", description: "" },
      { label: "  ", description: "" },
    ];
    expect(errorOf([q({ options })])).toContain(
      'questions[0] ("db_engine"): options[1].label must not be empty',
    );
  });

  it("rejects labels that repeat, ignoring case and the (Recommended) marker", () => {
    const caseOnly = [
      { label: "Postgres", description: "" },
      { label: "postgres", description: "" },
    ];
    expect(errorOf([q({ options: caseOnly })])).toContain(
      'questions[0] ("db_engine"): options[1].label "postgres" repeats options[0]; labels must be unique',
    );
    const marker = [
      { label: "Postgres (Recommended)", description: "" },
      { label: "Postgres", description: "" },
    ];
    expect(errorOf([q({ options: marker })])).toContain("options[1].label");
  });

  it("rejects secret on a question with options and multi_select without options", () => {
    expect(errorOf([q({ secret: true })])).toContain(
      'questions[0] ("db_engine"): secret is only allowed on a free-text question (one without options)',
    );
    expect(errorOf([q({ options: undefined, multi_select: true })])).toContain(
      'questions[0] ("db_engine"): multi_select needs options; a free-text question cannot use it',
    );
  });

  it("reports every problem at once, one per line", () => {
    const error = errorOf([q({ id: "Bad", header: "" }), q({ id: "ok", question: "" })]);
    expect(error.split("\n")).toEqual([
      "Invalid request_user_input arguments:",
      '- questions[0]: id must be snake_case (lowercase letters, digits and "_", starting with a letter); got "Bad"',
      "- questions[0]: header must not be empty",
      '- questions[1] ("ok"): question must not be empty',
    ]);
  });
});

describe("the (Recommended) rule", () => {
  const opts = (...labels: string[]) => labels.map((label) => ({ label, description: "" }));

  it("allows it on the first option only", () => {
    expect(
      validateModelQuestions({ questions: [q({ options: opts("A (Recommended)", "B", "C") })] }).ok,
    ).toBe(true);
    expect(validateModelQuestions({ questions: [q({ options: opts("A", "B") })] }).ok).toBe(true);
  });

  it("rejects it on a later option", () => {
    expect(errorOf([q({ options: opts("A", "B (Recommended)") })])).toContain(
      'questions[0] ("db_engine"): options[1] is marked "(Recommended)" but only the first option may be; move it to the front',
    );
  });

  it("rejects it on more than one option", () => {
    expect(errorOf([q({ options: opts("A (Recommended)", "B", "C (Recommended)") })])).toContain(
      'questions[0] ("db_engine"): "(Recommended)" appears on 2 options (options[0], options[2]); only one option may carry it, and it must be the first',
    );
  });

  it("detects the marker in any case and spacing", () => {
    expect(isRecommended("A (Recommended)")).toBe(true);
    expect(isRecommended("A(recommended)")).toBe(true);
    expect(isRecommended("A (RECOMMENDED) ")).toBe(true);
    expect(isRecommended("Recommended setup")).toBe(false);
    expect(stripRecommended("A (Recommended)")).toBe("A");
    expect(errorOf([q({ options: opts("A", "B (recommended)") })])).toContain("move it to the front");
  });
});

describe("RequestUserInputArgs schema", () => {
  const wire = jsonSchemaOf(RequestUserInputArgs) as any;
  const question = wire.properties.questions.items;
  const option = question.properties.options.items;

  it("closes every object with additionalProperties:false (input and output JSON Schema)", () => {
    for (const s of [wire, question, option]) expect(s.additionalProperties).toBe(false);
    const out = z.toJSONSchema(RequestUserInputArgs) as any;
    expect(out.additionalProperties).toBe(false);
    expect(out.properties.questions.items.additionalProperties).toBe(false);
    expect(out.properties.questions.items.properties.options.items.additionalProperties).toBe(false);
  });

  it("describes every field and teaches the limits and the (Recommended) rule", () => {
    expect(wire.properties.questions.description).toContain("Prefer 1 and do not exceed 3");
    expect(wire.properties.questions).toMatchObject({ minItems: 1, maxItems: 3 });
    for (const key of ["id", "header", "question", "options", "multi_select", "secret"])
      expect(question.properties[key].description, key).toBeTruthy();
    expect(question.properties.id.description).toContain("snake_case");
    expect(question.properties.header.description).toContain("12 or fewer");
    expect(question.properties.header.maxLength).toBe(12);
    expect(question.properties.options).toMatchObject({ minItems: 2, maxItems: 4 });
    expect(question.properties.options.description).toContain(
      'If you recommend an option, make it the first option and end its label with " (Recommended)"; only one option may carry it.',
    );
    expect(question.properties.options.description).toContain('Do not add an "Other" option');
    expect(question.properties.secret.description).toContain("only on a free-text question");
    expect(option.properties.label.description).toContain("(Recommended)");
    expect(option.properties.description.description).toBeTruthy();
    expect(question.required).toEqual(["id", "header", "question"]);
    expect(option.required).toEqual(["label", "description"]);
  });

  it("checks types only, leaving limits to validateModelQuestions", () => {
    expect(RequestUserInputArgs.safeParse({ questions: [] }).success).toBe(true);
    const many = Array.from({ length: 5 }, () => q({ header: "far too long a header", options: [] }));
    expect(RequestUserInputArgs.safeParse({ questions: many }).success).toBe(true);
    expect(RequestUserInputArgs.safeParse({ questions: [{ ...q(), multiSelect: true }] }).success).toBe(
      false,
    );
    expect(RequestUserInputArgs.safeParse({ questions: [{ ...q(), id: 3 }] }).success).toBe(false);
  });
});

describe("constructors", () => {
  const ids = { threadId: "thread_1", turnId: "turn_1", callId: "call_1" };

  it("fromModelTool builds a model request with a deadline from a timeout policy", () => {
    const r = fromModelTool(
      { questions: [q()] },
      ids,
      { type: "timeout", ms: 5000, on_timeout: "empty" },
      1000,
    );
    if (!r.ok) throw new Error(r.error);
    expect(QuestionRequestSchema.parse(r.request)).toEqual(r.request);
    expect(r.request).toMatchObject({
      request_id: requestIdFor("thread_1", "call_1"),
      thread_id: "thread_1",
      turn_id: "turn_1",
      call_id: "call_1",
      source: "model",
      deadline: 6000,
      created_at: 1000,
    });
    expect(r.request.questions[0].allow_other).toBe(true);
  });

  it("fromModelTool has no deadline under wait, and returns validation errors", () => {
    const r = fromModelTool({ questions: [q()] }, ids, { type: "wait" }, 1000);
    expect(r.ok && r.request.deadline).toBe(null);
    const bad = fromModelTool({ questions: [] }, ids, { type: "wait" });
    expect(bad).toEqual({ ok: false, error: expect.stringContaining("expected 1 to 3 questions; got 0") });
  });

  it("fromInternal keeps questions as given, secret and free-text included", () => {
    const questions: Question[] = [
      {
        id: "token",
        header: "",
        prompt: "GitHub token",
        kind: "text",
        options: [],
        allow_other: false,
        secret: true,
      },
      {
        id: "Approve-Tool",
        header: "A header longer than twelve",
        prompt: "Allow?",
        kind: "single",
        options: [{ label: "Yes", description: "" }],
        allow_other: false,
        secret: false,
      },
    ];
    const r = fromInternal({ ...ids, questions, policy: { type: "wait" }, now: 5 });
    expect(r).toMatchObject({
      source: "internal",
      questions,
      request_id: requestIdFor("thread_1", "call_1"),
    });
    expect(r.created_at).toBe(5);
  });

  it("fromInternal makes a synthetic call id when none is given, and refuses bad input", () => {
    const questions: Question[] = [
      { id: "x", header: "X", prompt: "X?", kind: "text", options: [], allow_other: true, secret: false },
    ];
    const r = fromInternal({ threadId: "t", turnId: "u", questions, policy: { type: "wait" } });
    expect(r.call_id).toMatch(/^internal_[0-9a-f]+$/);
    expect(r.request_id).toBe(requestIdFor("t", r.call_id));
    expect(() =>
      fromInternal({ threadId: "t", turnId: "u", questions: [], policy: { type: "wait" } }),
    ).toThrow(/at least one question/);
    expect(() =>
      fromInternal({
        threadId: "t",
        turnId: "u",
        questions: [questions[0], questions[0]],
        policy: { type: "wait" },
      }),
    ).toThrow(/unique/);
  });
});

describe("toModelResult", () => {
  const request = (() => {
    const r = fromModelTool(
      {
        questions: [
          q(),
          q({ id: "features", header: "Features", multi_select: true }),
          q({
            id: "api_key",
            header: "API key",
            question: "Your API key?",
            options: undefined,
            secret: true,
          }),
        ],
      },
      { threadId: "t", turnId: "u", callId: "c" },
      { type: "wait" },
      0,
    );
    if (!r.ok) throw new Error(r.error);
    return r.request as QuestionRequest;
  })();
  const handle = (id: string) => `$TANDEM_SECRET_${id.toUpperCase()}`;
  const parse = (outcome: Parameters<typeof toModelResult>[0]) =>
    JSON.parse(toModelResult(outcome, request, handle));
  const responder = { kind: "tui" };

  it("answered: selected, other and note per id; unanswered in question order; no policy", () => {
    const outcome: QuestionOutcome = {
      status: "answered",
      answers: {
        db_engine: { selected: ["SQLite"], note: "small data" },
        features: { selected: [], other: "none of these" },
      },
      unanswered: ["api_key"],
      responder,
    };
    const r = parse(outcome);
    expect(r).toEqual({
      status: "answered",
      answers: {
        db_engine: { selected: ["SQLite"], note: "small data" },
        features: { selected: [], other: "none of these" },
      },
      unanswered: ["api_key"],
      message: "The user left a question unanswered: api_key.",
    });
    expect(Object.keys(r)).toEqual(["status", "answers", "unanswered", "message"]);
  });

  it("answered in full has no message; unknown ids and empty answers are not answers", () => {
    const r = parse({
      status: "answered",
      answers: {
        db_engine: { selected: ["Postgres (Recommended)"] },
        features: { selected: ["SQLite", "Postgres (Recommended)"] },
        api_key: { selected: [], other: "sk-live-123" },
        stray: { selected: ["x"] },
      },
      unanswered: [],
      responder,
    });
    expect(r).toEqual({
      status: "answered",
      answers: {
        db_engine: { selected: ["Postgres (Recommended)"] },
        features: { selected: ["SQLite", "Postgres (Recommended)"] },
        api_key: { selected: [], other: "$TANDEM_SECRET_API_KEY" },
      },
      unanswered: [],
    });
    const empty = parse({
      status: "answered",
      answers: { db_engine: { selected: [], other: "" } },
      unanswered: [],
      responder,
    });
    expect(empty.unanswered).toEqual(["db_engine", "features", "api_key"]);
  });

  it("masks a secret the user also typed into another answer of the same reply", () => {
    // fails if only the secret question's own answer is replaced (the re-ask path after a
    // restart has no secret store to mask with, so toModelResult must do it itself).
    const r = parse({
      status: "answered",
      answers: {
        api_key: { selected: [], other: " sk-live-123 " },
        db_engine: { selected: ["SQLite"], note: "key sk-live-123" },
        features: { selected: [], other: "with  sk-live-123  twice sk-live-123" },
      },
      unanswered: [],
      responder,
    });
    expect(JSON.stringify(r)).not.toContain("sk-live");
    expect(r.answers.db_engine).toEqual({ selected: ["SQLite"], note: "key [redacted secret]" });
    expect(r.answers.features.other).toBe("with [redacted secret] twice [redacted secret]");
    expect(r.answers.api_key.other).toBe("$TANDEM_SECRET_API_KEY");
  });

  it("never puts a secret value or its note in the result", () => {
    const text = toModelResult(
      {
        status: "answered",
        answers: { api_key: { selected: [], other: "sk-live-123", note: "it is sk-live-123" } },
        unanswered: [],
        responder,
      },
      request,
      handle,
    );
    expect(text).not.toContain("sk-live");
    expect(JSON.parse(text).answers.api_key).toEqual({ selected: [], other: "$TANDEM_SECRET_API_KEY" });
    const noteOnly = parse({
      status: "answered",
      answers: { api_key: { selected: [], note: "later" } },
      unanswered: [],
      responder,
    });
    expect(noteOnly.answers).toEqual({});
    expect(noteOnly.unanswered).toContain("api_key");
  });

  it("declined: no answers, every id unanswered, reason in the message", () => {
    const r = parse({ status: "declined", responder, reason: "not now" });
    expect(r).toMatchObject({
      status: "declined",
      answers: {},
      unanswered: ["db_engine", "features", "api_key"],
    });
    expect(r.message).toContain("declined");
    expect(r.message).toContain("not now");
    expect(r.policy).toBeUndefined();
  });

  it("timed_out: carries the policy that fired and any answers (secrets replaced)", () => {
    const policy = { type: "timeout" as const, ms: 60_000, on_timeout: "recommended" as const };
    const r = parse({
      status: "timed_out",
      policy,
      answers: {
        db_engine: { selected: ["Postgres (Recommended)"] },
        api_key: { selected: [], other: "hunter2" },
      },
      unanswered: ["features"],
    });
    expect(r).toMatchObject({
      status: "timed_out",
      policy,
      answers: {
        db_engine: { selected: ["Postgres (Recommended)"] },
        api_key: { other: "$TANDEM_SECRET_API_KEY" },
      },
      unanswered: ["features"],
    });
    expect(r.message).toContain("timeout");
    for (const on_timeout of ["empty", "decline"] as const)
      expect(
        parse({ status: "timed_out", policy: { ...policy, on_timeout }, answers: {}, unanswered: [] }).policy,
      ).toEqual({ ...policy, on_timeout });
  });

  it("unavailable: every id unanswered, a message telling the model to proceed", () => {
    const r = parse({ status: "unavailable", reason: "no responder attached" });
    expect(r).toEqual({
      status: "unavailable",
      answers: {},
      unanswered: ["db_engine", "features", "api_key"],
      message: `${UNAVAILABLE_MESSAGE} Reason: no responder attached`,
    });
    expect(JSON.parse(unavailableModelResult(["a"])).message).toBe(UNAVAILABLE_MESSAGE);
  });

  it("withheld: every id unanswered and a message that the user did answer", () => {
    const r = parse({ status: "withheld" });
    expect(r).toMatchObject({
      status: "withheld",
      answers: {},
      unanswered: ["db_engine", "features", "api_key"],
    });
    expect(r.message).toContain("The user answered, but the answer was withheld from you by policy");
    expect(JSON.parse(withheldModelResult(["x"], "compliance")).message).toContain("Reason: compliance");
  });

  it("cancelled is never mapped: it throws an AbortError", () => {
    expect(() => toModelResult({ status: "cancelled", reason: "interrupted" }, request, handle)).toThrow(
      expect.objectContaining({ name: "AbortError" }),
    );
  });
});
