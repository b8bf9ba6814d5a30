import { describe, expect, it } from "vitest";
import { BOOLEAN_OPTIONS, type Question, type QuestionRequest } from "../protocol/questions.js";
import { timeoutOutcome, validateReply } from "./reply.js";
import { parseTextReply } from "./text-reply.js";
import { parseNumber } from "./typed.js";

const q = (over: Partial<Question> & Pick<Question, "id" | "kind">): Question => ({
  header: over.id,
  prompt: `Prompt ${over.id}`,
  options: [],
  allow_other: false,
  secret: false,
  ...over,
});

const age = q({ id: "age", kind: "number", integer: true, minimum: 0, maximum: 150 });
const ratio = q({ id: "ratio", kind: "number" });
const agree = q({ id: "agree", kind: "boolean", options: BOOLEAN_OPTIONS });
const email = q({ id: "email", kind: "text", format: "email" });
const site = q({ id: "site", kind: "text", format: "uri" });
const born = q({ id: "born", kind: "text", format: "date" });
const at = q({ id: "at", kind: "text", format: "date-time" });
const nick = q({ id: "nick", kind: "text", min_length: 2, max_length: 4 });
const tools = q({
  id: "tools",
  kind: "multi",
  options: ["A", "B", "C"].map((label) => ({ label, description: "" })),
  min_items: 1,
  max_items: 2,
});

const check = (questions: Question[], answers: Record<string, { selected?: string[]; other?: string }>) =>
  validateReply(questions, { answers: answers as never });

describe("typed validation (validateReply)", () => {
  // fails if numbers are not parsed, integer/min/max not enforced, or the canonical form is not stored
  it("numbers travel as text, are range-checked and normalised", () => {
    expect(check([age], { age: { other: " 042 " } })).toMatchObject({
      ok: true,
      answers: { age: { other: "42" } },
    });
    expect(check([ratio], { ratio: { other: "-1.50" } })).toMatchObject({
      answers: { ratio: { other: "-1.5" } },
    });
    expect(check([age], { age: { other: "abc" } })).toEqual({
      ok: false,
      message: 'question "age": "abc" is not a number; expected a whole number from 0 to 150',
    });
    expect(check([age], { age: { other: "4.5" } })).toMatchObject({
      message: 'question "age": "4.5" is not a whole number; expected a whole number from 0 to 150',
    });
    expect(check([age], { age: { other: "151" } })).toMatchObject({
      message: 'question "age": "151" is out of range; expected a whole number from 0 to 150',
    });
    expect(check([age], { age: { selected: ["42"] } })).toMatchObject({ ok: false });
    for (const bad of ["0x10", "1e999", "NaN", "Infinity", "1,5"]) expect(parseNumber(bad)).toBeUndefined();
  });

  // fails if a boolean accepts anything but exactly one of Yes / No in `selected`
  it("booleans take Yes or No", () => {
    expect(check([agree], { agree: { selected: ["No"] } })).toMatchObject({ ok: true });
    expect(check([agree], { agree: { selected: ["Yes", "No"] } })).toMatchObject({
      message: 'question "agree": expected exactly one of "Yes" or "No"',
    });
    expect(check([agree], { agree: { other: "true" } })).toMatchObject({
      message: 'question "agree": takes "Yes" or "No" in "selected", not free text',
    });
    expect(check([agree], { agree: { selected: ["Maybe"] } })).toMatchObject({ ok: false });
  });

  // fails if any of the four formats accepts a wrong value or refuses a right one
  it("text formats", () => {
    const ok = (question: Question, v: string) => check([question], { [question.id]: { other: v } }).ok;
    expect(ok(email, "ada@example.com")).toBe(true);
    expect(ok(email, "ada@")).toBe(false);
    expect(ok(email, "ada example@x.org")).toBe(false);
    expect(ok(site, "https://example.com/x?y=1")).toBe(true);
    expect(ok(site, "example.com")).toBe(false);
    expect(ok(born, "2024-02-29")).toBe(true);
    expect(ok(born, "2023-02-29")).toBe(false);
    expect(ok(born, "2024-13-01")).toBe(false);
    expect(ok(at, "2026-07-14T09:30:00Z")).toBe(true);
    expect(ok(at, "2026-07-14T09:30:00.5+02:00")).toBe(true);
    expect(ok(at, "2026-07-14 09:30")).toBe(false);
    expect(ok(at, "2026-07-14T25:00:00Z")).toBe(false);
    expect(check([email], { email: { other: "nope" } })).toEqual({
      ok: false,
      message: 'question "email": "nope" is not an email address (e.g. name@example.com)',
    });
    // the stored value is trimmed, so the asker gets the address itself
    expect(check([email], { email: { other: " a@b.co " } })).toMatchObject({
      answers: { email: { other: "a@b.co" } },
    });
  });

  // fails if a secret question's value is echoed in a format error
  it("never echoes a secret value", () => {
    const token = q({ id: "token", kind: "text", format: "uri", secret: true });
    const r = check([token], { token: { other: "hunter2-secret" } });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain("hunter2");
  });

  // fails if lengths (code points) or multi item counts are not enforced
  it("text lengths and multi item counts", () => {
    expect(check([nick], { nick: { other: "a" } })).toMatchObject({
      message: 'question "nick": too short: 1 characters; expected at least 2',
    });
    expect(check([nick], { nick: { other: "🙂🙂🙂🙂" } }).ok).toBe(true);
    expect(check([nick], { nick: { other: "abcde" } }).ok).toBe(false);
    expect(check([tools], { tools: { selected: ["A", "B", "C"] } })).toMatchObject({
      message: 'question "tools": choose at most 2 options; got 3',
    });
    const atLeastTwo = { ...tools, min_items: 2 };
    expect(check([atLeastTwo], { tools: { selected: ["A"] } })).toMatchObject({
      message: 'question "tools": choose at least 2 options; got 1',
    });
  });

  // fails if `required` is not enforced, if defaults do not fill left-out questions, or if an
  // all-optional form cannot be submitted empty
  it("required and defaults", () => {
    const name = q({ id: "name", kind: "text", required: true });
    const count = q({ id: "count", kind: "number", default: 3, required: false });
    const pick = { ...tools, default: ["B"], required: false };
    expect(check([name, count], { count: { other: "1" } })).toEqual({
      ok: false,
      message: 'question "name" is required; expected a non-empty "other" text',
    });
    expect(check([name, count, pick, agree], { name: { other: "Ada" } })).toEqual({
      ok: true,
      answers: {
        name: { selected: [], other: "Ada" },
        count: { selected: [], other: "3" },
        tools: { selected: ["B"] },
      },
      unanswered: ["agree"],
    });
    // a default that breaks the question's own rules is no default
    const bad = q({ id: "n", kind: "number", maximum: 5, default: 9, required: true });
    expect(check([bad], {})).toMatchObject({
      ok: false,
      message: 'question "n" is required; expected a number of at most 5',
    });
    const optional = [{ ...agree, required: false }];
    expect(check(optional, {})).toEqual({ ok: true, answers: {}, unanswered: ["agree"] });
    // without explicit required:false the old rule stands: a reply must answer something
    expect(check([agree], {})).toMatchObject({ ok: false });
  });

  // fails if a `recommended` timeout ignores defaults
  it("a recommended timeout takes defaults", () => {
    const request = {
      questions: [q({ id: "n", kind: "number", default: 7 }), agree],
      policy: { type: "timeout", ms: 10, on_timeout: "recommended" },
    } as QuestionRequest;
    expect(timeoutOutcome(request)).toMatchObject({ answers: { n: { other: "7" } }, unanswered: ["agree"] });
  });
});

describe("typed text replies (parseTextReply)", () => {
  // fails if yes/no words or option numbers do not map to Yes/No, or garbage is accepted
  it("booleans", () => {
    for (const [text, label] of [
      ["yes", "Yes"],
      ["TRUE", "Yes"],
      ["y", "Yes"],
      ["1", "Yes"],
      ["no", "No"],
      ["false", "No"],
      ["2", "No"],
    ])
      expect(parseTextReply(agree, text)).toEqual({ ok: true, answer: { selected: [label] } });
    expect(parseTextReply(agree, "maybe")).toEqual({
      ok: false,
      error: 'question "agree": "maybe" is neither yes nor no; expected "yes" or "no"',
    });
  });

  // fails if a number reply is read as an option number or not range-checked with validateReply's text
  it("numbers and formats use the same messages as validateReply", () => {
    expect(parseTextReply(age, "42")).toEqual({ ok: true, answer: { selected: [], other: "42" } });
    const bad = parseTextReply(age, "200");
    const viaReply = check([age], { age: { other: "200" } });
    expect(bad).toEqual({ ok: false, error: (viaReply as { message: string }).message });
    expect(parseTextReply(email, "x")).toMatchObject({
      ok: false,
      error: expect.stringContaining("email address"),
    });
    expect(parseTextReply(tools, "1,2,3")).toMatchObject({
      ok: false,
      error: expect.stringContaining("at most 2"),
    });
  });
});
