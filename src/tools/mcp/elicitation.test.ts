import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayable } from "../../../test/helpers/fc-replay.js";
import type { Question, QuestionAnswer, QuestionOutcome } from "../../protocol/questions.js";
import { validateReply } from "../../questions/reply.js";
import {
  CONFIRM_ID,
  ElicitationSchemaError,
  elicitationRequest,
  elicitationToQuestions,
  outcomeToElicitResult,
} from "./elicitation.js";

// The 12-field form of @modelcontextprotocol/server-everything's trigger-elicitation-request (abridged descriptions).
const EVERYTHING_FORM = {
  type: "object",
  properties: {
    name: { title: "String", type: "string", description: "Your full, legal name" },
    check: { title: "Boolean", type: "boolean", description: "Agree to the terms and conditions" },
    firstLine: { title: "String with default", type: "string", default: "It was a dark and stormy night." },
    email: { title: "String with email format", type: "string", format: "email" },
    homepage: { type: "string", format: "uri", title: "String with uri format" },
    birthdate: { title: "String with date format", type: "string", format: "date" },
    integer: { title: "Integer", type: "integer", minimum: 1, maximum: 100, default: 42 },
    number: { title: "Number in range 1-1000", type: "number", minimum: 0, maximum: 1000, default: 3.14 },
    untitledSingleSelectEnum: {
      type: "string",
      title: "Untitled Single Select Enum",
      enum: ["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"],
      default: "Monica",
    },
    untitledMultipleSelectEnum: {
      type: "array",
      title: "Untitled Multiple Select Enum",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["Guitar", "Piano", "Violin", "Drums", "Bass"] },
      default: ["Guitar"],
    },
    titledSingleSelectEnum: {
      type: "string",
      title: "Titled Single Select Enum",
      oneOf: [
        { const: "hero-1", title: "Superman" },
        { const: "hero-2", title: "Green Lantern" },
        { const: "hero-3", title: "Wonder Woman" },
      ],
      default: "hero-1",
    },
    titledMultipleSelectEnum: {
      type: "array",
      title: "Titled Multiple Select Enum",
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: "fish-1", title: "Tuna" },
          { const: "fish-2", title: "Salmon" },
          { const: "fish-3", title: "Trout" },
        ],
      },
      default: ["fish-1"],
    },
    legacyTitledEnum: {
      type: "string",
      title: "Legacy Titled Single Select Enum",
      enum: ["pet-1", "pet-2", "pet-3", "pet-4", "pet-5"],
      enumNames: ["Cats", "Dogs", "Birds", "Fish", "Reptiles"],
      default: "pet-1",
    },
  },
  required: ["name"],
};

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
const byId = (qs: Question[]) => Object.fromEntries(qs.map((x) => [x.id, x]));
const answered = (answers: Record<string, QuestionAnswer>): QuestionOutcome => ({
  status: "answered",
  answers,
  unanswered: [],
  responder: { kind: "api" },
});

describe("elicitationToQuestions", () => {
  // fails if any field of the reference server's form maps to the wrong kind, label, value, default or requiredness
  it("maps every field of server-everything's form", () => {
    const qs = byId(elicitationToQuestions(EVERYTHING_FORM));
    expect(Object.keys(qs)).toEqual(Object.keys(EVERYTHING_FORM.properties));
    expect(qs.name).toMatchObject({
      kind: "text",
      header: "String",
      prompt: "Your full, legal name",
      required: true,
    });
    expect(qs.check).toMatchObject({
      kind: "boolean",
      required: false,
      options: [{ label: "Yes" }, { label: "No" }],
    });
    expect(qs.firstLine).toMatchObject({ kind: "text", default: "It was a dark and stormy night." });
    expect(qs.email.format).toBe("email");
    expect(qs.homepage.format).toBe("uri");
    expect(qs.birthdate.format).toBe("date");
    expect(qs.integer).toMatchObject({
      kind: "number",
      integer: true,
      minimum: 1,
      maximum: 100,
      default: 42,
    });
    expect(qs.number).toMatchObject({ kind: "number", minimum: 0, maximum: 1000, default: 3.14 });
    expect(qs.number.integer).toBeUndefined();
    expect(qs.untitledSingleSelectEnum).toMatchObject({ kind: "single", default: "Monica" });
    expect(qs.untitledSingleSelectEnum.options[0]).toEqual({ label: "Monica", description: "" });
    expect(qs.untitledMultipleSelectEnum).toMatchObject({
      kind: "multi",
      min_items: 1,
      max_items: 3,
      default: ["Guitar"],
    });
    expect(qs.titledSingleSelectEnum.options[1]).toEqual({
      label: "Green Lantern",
      description: "",
      value: "hero-2",
    });
    expect(qs.titledSingleSelectEnum.default).toBe("Superman");
    expect(qs.titledMultipleSelectEnum).toMatchObject({ kind: "multi", default: ["Tuna"] });
    expect(qs.legacyTitledEnum.options.map((o) => [o.label, o.value])).toContainEqual(["Dogs", "pet-2"]);
    expect(qs.legacyTitledEnum.default).toBe("Cats");
  });

  // fails if an unsupported shape is accepted silently or the error does not name the field
  it("refuses unsupported shapes with an error naming the field", () => {
    const bad = (prop: unknown) => () => elicitationToQuestions({ type: "object", properties: { f: prop } });
    expect(bad({ type: "object", properties: {} })).toThrow(
      /field "f": unsupported schema \(type "object"\)/,
    );
    expect(bad({ type: "array", items: { type: "string" } })).toThrow(/field "f": an array needs "items"/);
    expect(bad({ type: "string", enum: [] })).toThrow(ElicitationSchemaError);
    expect(bad({ type: "string", enum: ["a", "a"] })).toThrow(/listed twice/);
    expect(bad({ type: "number", minimum: 5, maximum: 1 })).toThrow(/minimum 5 is greater than maximum 1/);
    expect(bad({ type: "string", enum: ["a", "b"], enumNames: ["A"] })).toThrow(/enumNames/);
    expect(() => elicitationToQuestions({ type: "object", properties: {}, required: ["x"] })).toThrow(/"x"/);
    expect(() => elicitationToQuestions("nope")).toThrow(ElicitationSchemaError);
  });

  // fails if duplicate titles produce duplicate labels (the answer would be ambiguous)
  it("keeps labels unique when titles repeat", () => {
    const [x] = elicitationToQuestions({
      type: "object",
      properties: {
        x: {
          type: "string",
          oneOf: [
            { const: "a", title: "Same" },
            { const: "b", title: "Same" },
          ],
        },
      },
    });
    expect(x.options.map((o) => o.label)).toEqual(["Same (a)", "Same (b)"]);
  });
});

describe("outcomeToElicitResult", () => {
  // fails if content is not typed (numbers, booleans, arrays) or carries titles instead of const values
  it("accepts with typed content, defaults filled, option values not titles", () => {
    const qs = elicitationToQuestions(EVERYTHING_FORM);
    const checked = validateReply(qs, {
      answers: {
        name: { selected: [], other: "Ada" },
        check: { selected: ["Yes"] },
        integer: { selected: [], other: "7" },
        titledMultipleSelectEnum: { selected: ["Salmon", "Trout"] },
        legacyTitledEnum: { selected: ["Dogs"] },
      },
    });
    if (!checked.ok) throw new Error(checked.message);
    const result = outcomeToElicitResult(qs, answered(checked.answers));
    expect(result).toEqual({
      action: "accept",
      content: {
        name: "Ada",
        check: true,
        firstLine: "It was a dark and stormy night.",
        integer: 7,
        number: 3.14,
        untitledSingleSelectEnum: "Monica",
        untitledMultipleSelectEnum: ["Guitar"],
        titledSingleSelectEnum: "hero-1",
        titledMultipleSelectEnum: ["fish-2", "fish-3"],
        legacyTitledEnum: "pet-2",
      },
    });
    expect(ajv.validate(EVERYTHING_FORM, result.content)).toBe(true);
  });

  // fails if decline/cancel/timeout/unavailable are mapped to anything but the MCP actions
  it("maps the other outcomes to decline and cancel", () => {
    const qs = elicitationToQuestions(EVERYTHING_FORM);
    expect(outcomeToElicitResult(qs, { status: "declined", responder: { kind: "tui" } })).toEqual({
      action: "decline",
    });
    expect(outcomeToElicitResult(qs, { status: "cancelled", reason: "interrupted" })).toEqual({
      action: "cancel",
    });
    expect(outcomeToElicitResult(qs, { status: "unavailable", reason: "x" })).toEqual({ action: "cancel" });
    const policy = { type: "timeout", ms: 5, on_timeout: "empty" } as const;
    expect(outcomeToElicitResult(qs, { status: "timed_out", policy, answers: {}, unanswered: [] })).toEqual({
      action: "cancel",
    });
    // a timeout whose answers cover every required field is an accept
    const opt = elicitationToQuestions({ type: "object", properties: { n: { type: "number", default: 2 } } });
    const answers = { n: { selected: [], other: "2" } };
    expect(outcomeToElicitResult(opt, { status: "timed_out", policy, answers, unanswered: [] })).toEqual({
      action: "accept",
      content: { n: 2 },
    });
  });

  // fails if URL mode is not one Done/Decline question or Done/Decline map wrongly
  it("URL mode: Done accepts, Decline declines", () => {
    const { questions, elicitation } = elicitationRequest("auth", {
      mode: "url",
      message: "Sign in",
      url: "https://example.com/login",
      elicitationId: "e1",
    });
    expect(elicitation).toEqual({
      server: "auth",
      mode: "url",
      message: "Sign in",
      url: "https://example.com/login",
      elicitation_id: "e1",
    });
    expect(questions).toHaveLength(1);
    expect(questions[0].prompt).toContain("https://example.com/login");
    expect(questions[0].options.map((o) => o.label)).toEqual(["Done", "Decline"]);
    expect(outcomeToElicitResult(questions, answered({ url: { selected: ["Done"] } }), "url")).toEqual({
      action: "accept",
    });
    expect(outcomeToElicitResult(questions, answered({ url: { selected: ["Decline"] } }), "url")).toEqual({
      action: "decline",
    });
  });

  // fails if an empty form cannot be answered or answers with anything but an empty accept
  it("an empty form is a confirm question", () => {
    const qs = elicitationToQuestions({ type: "object", properties: {} });
    expect(qs.map((x) => x.id)).toEqual([CONFIRM_ID]);
    expect(outcomeToElicitResult(qs, answered({ confirm: { selected: ["Submit"] } }))).toEqual({
      action: "accept",
      content: {},
    });
    expect(outcomeToElicitResult(qs, answered({ confirm: { selected: ["Decline"] } }))).toEqual({
      action: "decline",
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Property: schema → questions → a valid reply → content that validates against the schema (ajv)
// ---------------------------------------------------------------------------------------------

const SAMPLES = {
  email: ["a@b.co", "first.last+tag@example.org"],
  uri: ["https://example.com/a?b=c", "mailto:x@y.z", "urn:isbn:0451450523"],
  date: ["2024-02-29", "1999-12-31"],
  "date-time": ["2026-07-14T09:30:00Z", "2026-07-14T09:30:00.123+02:00"],
} as const;

const title = fc.string({ minLength: 1, maxLength: 8 });
const values = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 });

const field: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ type: fc.constant("string"), title }, { requiredKeys: ["type"] }),
  fc.record({
    type: fc.constant("string"),
    format: fc.constantFrom("email", "uri", "date", "date-time"),
  }),
  fc.record(
    { type: fc.constant("string"), minLength: fc.nat(3), maxLength: fc.integer({ min: 3, max: 9 }) },
    { requiredKeys: ["type"] },
  ),
  fc
    .tuple(fc.constantFrom("number", "integer"), fc.integer({ min: -50, max: 50 }), fc.nat(100))
    .map(([type, minimum, span]) => ({ type, minimum, maximum: minimum + span })),
  fc.record({ type: fc.constant("boolean"), default: fc.boolean() }, { requiredKeys: ["type"] }),
  values.map((v) => ({ type: "string", enum: v })),
  values.map((v) => ({ type: "string", oneOf: v.map((c, i) => ({ const: c, title: `T${i % 2}` })) })),
  values.map((v) => ({ type: "string", enum: v, enumNames: v.map((x) => x.toUpperCase()) })),
  fc.tuple(values, fc.boolean()).map(([v, titled]) => ({
    type: "array",
    minItems: 1,
    maxItems: v.length,
    items: titled ? { anyOf: v.map((c) => ({ const: c, title: `#${c}` })) } : { type: "string", enum: v },
  })),
);

const schemaArb = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 6 }), field, { minKeys: 1, maxKeys: 6 })
  .chain((properties) =>
    fc.subarray(Object.keys(properties)).map((required) => ({ type: "object", properties, required })),
  );

/** A valid answer for `q`, built from a random seed. */
function answerFor(q: Question, seed: number): QuestionAnswer {
  const pick = <T>(xs: readonly T[]) => xs[seed % xs.length];
  switch (q.kind) {
    case "boolean":
      return { selected: [pick(["Yes", "No"])] };
    case "number": {
      const lo = q.minimum ?? -1000;
      const hi = q.maximum ?? 1000;
      const n = q.integer ? lo + (seed % (hi - lo + 1)) : lo + ((seed % 1000) / 1000) * (hi - lo);
      return { selected: [], other: String(n) };
    }
    case "text": {
      if (q.format) return { selected: [], other: pick(SAMPLES[q.format]) };
      const len = Math.max(q.min_length ?? 1, 1) + (seed % 3);
      return { selected: [], other: "x".repeat(Math.min(len, q.max_length ?? len)) || "x" };
    }
    case "single":
      return { selected: [pick(q.options).label] };
    case "multi": {
      const n = Math.max(q.min_items ?? 1, 1) + (seed % q.options.length);
      return { selected: q.options.slice(0, Math.min(n, q.max_items ?? n)).map((o) => o.label) };
    }
  }
}

describe("elicitation round trip (property)", () => {
  // fails if any mapped question refuses a valid answer, or the content does not satisfy the
  // server's own schema (wrong type, a title instead of a const, a missing required field)
  it("a valid reply always yields content the schema accepts", () => {
    fc.assert(
      fc.property(
        schemaArb,
        fc.array(fc.nat(10_000), { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        (schema, seeds, all) => {
          const qs = elicitationToQuestions(schema);
          const answers: Record<string, QuestionAnswer> = {};
          qs.forEach((q, i) => {
            if (all || q.required || i === 0) answers[q.id] = answerFor(q, seeds[i]);
          });
          const checked = validateReply(qs, { answers });
          if (!checked.ok) throw new Error(checked.message);
          const result = outcomeToElicitResult(qs, answered(checked.answers));
          expect(result.action).toBe("accept");
          if (!ajv.validate(schema, result.content)) throw new Error(ajv.errorsText());
        },
      ),
      replayable({ numRuns: 300 }),
    );
  });
});
