import { describe, expect, it } from "vitest";
import type { Question } from "../protocol/questions.js";
import {
  expectedInput,
  parseAnswerArg,
  parseRequestText,
  parseTextReply,
  questionText,
} from "./text-reply.js";

const single: Question = {
  id: "db",
  header: "Database",
  prompt: "Which database?",
  kind: "single",
  options: [
    { label: "Postgres (Recommended)", description: "" },
    { label: "SQLite", description: "" },
    { label: "My SQL", description: "" },
  ],
  allow_other: true,
  secret: false,
};
const multi: Question = {
  ...single,
  id: "features",
  kind: "multi",
  options: [...single.options, { label: "Redis, cached", description: "" }],
};
const closed: Question = { ...single, id: "approve", allow_other: false };
const text: Question = { ...single, id: "name", kind: "text", options: [] };
const secret: Question = { ...text, id: "api_key", secret: true };

const ok = (q: Question, input: string) => {
  const r = parseTextReply(q, input);
  if (!r.ok) throw new Error(r.error);
  return r.answer;
};
const err = (q: Question, input: string) => {
  const r = parseTextReply(q, input);
  if (r.ok) throw new Error(`expected an error for ${JSON.stringify(input)}`);
  return r.error;
};

describe("parseTextReply: single choice", () => {
  it.each([
    ["2", ["SQLite"]],
    [" 1 ", ["Postgres (Recommended)"]],
    ["3.", ["My SQL"]],
    ["3)", ["My SQL"]],
    ["SQLite", ["SQLite"]],
    ["sqlite", ["SQLite"]],
    ["Postgres", ["Postgres (Recommended)"]],
    ["postgres (recommended)", ["Postgres (Recommended)"]],
    ["Postgres (Recommended)", ["Postgres (Recommended)"]],
    ["my sql", ["My SQL"]],
  ])("%j selects %j", (input, selected) => {
    expect(ok(single, input)).toEqual({ selected });
  });

  it("takes free text as other when Other is allowed", () => {
    expect(ok(single, "DuckDB please")).toEqual({ selected: [], other: "DuckDB please" });
    expect(ok(single, "other: 2")).toEqual({ selected: [], other: "2" });
    expect(ok(single, "Other:SQLite")).toEqual({ selected: [], other: "SQLite" });
    expect(ok(single, "OTHER :  MariaDB ")).toEqual({ selected: [], other: "MariaDB" });
  });

  it("parses a note after ' -- '", () => {
    expect(ok(single, "2 -- small data set")).toEqual({ selected: ["SQLite"], note: "small data set" });
    expect(ok(single, "sqlite  --  fine")).toEqual({ selected: ["SQLite"], note: "fine" });
    expect(ok(single, "other: DuckDB -- analytics")).toEqual({
      selected: [],
      other: "DuckDB",
      note: "analytics",
    });
    expect(ok(single, "2 --")).toEqual({ selected: ["SQLite"] });
    expect(ok(single, "use --force")).toEqual({ selected: [], other: "use --force" });
  });

  it("rejects several numbers, naming the count", () => {
    expect(err(single, "1,3")).toBe('question "db": takes one option; got 2');
    expect(err(single, "1 2 3")).toBe('question "db": takes one option; got 3');
    expect(ok(single, "2,2")).toEqual({ selected: ["SQLite"] });
  });

  it("rejects out-of-range numbers and empty input with what was expected", () => {
    expect(err(single, "4")).toBe(
      'question "db": there is no option 4; expected a number 1-3, a label, or "other: <text>"',
    );
    expect(err(single, "0")).toContain("there is no option 0");
    expect(err(single, "  ")).toBe(
      'question "db": needs an answer; expected a number 1-3, a label, or "other: <text>"',
    );
    expect(err(single, "-- just a note")).toBe(
      'question "db": the answer before " -- " is empty; expected a number 1-3, a label, or "other: <text>"',
    );
    expect(err(single, "other:")).toBe(
      'question "db": "other:" needs text after it, e.g. "other: use MySQL"',
    );
  });

  it("refuses free text when Other is not allowed", () => {
    expect(ok(closed, "1")).toEqual({ selected: ["Postgres (Recommended)"] });
    expect(err(closed, "DuckDB")).toBe(
      'question "approve": "DuckDB" matches no option; expected a number 1-3 or a label',
    );
    expect(err(closed, "other: DuckDB")).toBe(
      'question "approve": does not accept free text; expected a number 1-3 or a label',
    );
  });
});

describe("parseTextReply: multi choice", () => {
  it.each([
    ["1,3", ["Postgres (Recommended)", "My SQL"]],
    ["3 1", ["Postgres (Recommended)", "My SQL"]],
    ["1, 3, 3", ["Postgres (Recommended)", "My SQL"]],
    ["4", ["Redis, cached"]],
    ["sqlite, my sql", ["SQLite", "My SQL"]],
    ["2, postgres", ["Postgres (Recommended)", "SQLite"]],
    ["Redis, cached", ["Redis, cached"]],
  ])("%j selects %j in option order", (input, selected) => {
    expect(ok(multi, input)).toEqual({ selected });
  });

  it("falls back to free text when a comma list does not resolve", () => {
    expect(ok(multi, "sqlite, duckdb")).toEqual({ selected: [], other: "sqlite, duckdb" });
    expect(ok(multi, "1,3 -- both")).toEqual({
      selected: ["Postgres (Recommended)", "My SQL"],
      note: "both",
    });
  });

  it("states the expected form", () => {
    expect(err(multi, "9")).toBe(
      'question "features": there is no option 9; expected numbers 1-4 (e.g. "1,3"), labels separated by ",", or "other: <text>"',
    );
    expect(expectedInput({ ...multi, allow_other: false })).toBe(
      'numbers 1-4 (e.g. "1,3") or labels separated by ","',
    );
  });
});

describe("parseTextReply: free text and secrets", () => {
  // Fails if a free-text answer loses its " -- note" (README "Use it") or numbers turn into options.
  it("takes any non-empty text (trimmed) for a free-text question, a note after ' -- '", () => {
    expect(ok(text, "  Ada Lovelace  ")).toEqual({ selected: [], other: "Ada Lovelace" });
    expect(ok(text, "2")).toEqual({ selected: [], other: "2" });
    expect(ok(text, "run it -- now")).toEqual({ selected: [], other: "run it", note: "now" });
    expect(ok(text, "a--b")).toEqual({ selected: [], other: "a--b" });
    expect(err(text, " -- only a note")).toBe(
      'question "name": the answer before " -- " is empty; expected any non-empty text',
    );
    expect(ok(text, "other: x")).toEqual({ selected: [], other: "other: x" });
    expect(err(text, "\n")).toBe('question "name": needs an answer; expected any non-empty text');
  });

  it("keeps a secret exactly as typed except the trailing line break, and never echoes it", () => {
    expect(ok(secret, " pa ss -- word \n")).toEqual({ selected: [], other: " pa ss -- word " });
    expect(ok(secret, "tok\r\n")).toEqual({ selected: [], other: "tok" });
    expect(err(secret, "   ")).toBe('question "api_key": needs an answer; expected the secret value');
  });

  it("describes a single option range as 1", () => {
    expect(expectedInput({ ...single, options: [single.options[0]] })).toBe(
      'a number 1, a label, or "other: <text>"',
    );
  });
});

describe("parseAnswerArg", () => {
  it("splits on the first '='", () => {
    expect(parseAnswerArg("db=2")).toEqual({ ok: true, id: "db", text: "2" });
    expect(parseAnswerArg("token=a=b=")).toEqual({ ok: true, id: "token", text: "a=b=" });
    expect(parseAnswerArg(" db = x ")).toEqual({ ok: true, id: "db", text: " x " });
    expect(parseAnswerArg("db=")).toEqual({ ok: true, id: "db", text: "" });
  });

  it("refuses a missing '=' or id without echoing the argument", () => {
    const missing = parseAnswerArg("sk-live-123");
    expect(missing).toEqual({
      ok: false,
      error: 'expected --answer <question_id>=<answer>; the "=" is missing',
    });
    expect(parseAnswerArg("=sk-live-123")).toEqual({
      ok: false,
      error: 'expected --answer <question_id>=<answer>; the id before "=" is empty',
    });
  });
});

describe("parseRequestText and questionText (a whole request in one text)", () => {
  it("one question takes the whole text; several take one line each, in order", () => {
    expect(parseRequestText({ questions: [single] }, "2 -- small")).toEqual({
      ok: true,
      answers: { db: { selected: ["SQLite"], note: "small" } },
    });
    expect(parseRequestText({ questions: [single, multi] }, "1\n\n 2,4 \n")).toEqual({
      ok: true,
      answers: {
        db: { selected: ["Postgres (Recommended)"] },
        features: { selected: ["SQLite", "Redis, cached"] },
      },
    });
    expect(parseRequestText({ questions: [closed] }, "7")).toEqual({
      ok: false,
      error: 'question "approve": there is no option 7; expected a number 1-3 or a label',
    });
    const tooMany = parseRequestText({ questions: [single, closed] }, "1\n2\n3");
    expect(tooMany.ok).toBe(false);
    expect(parseRequestText({ questions: [single, closed] }, " \n ").ok).toBe(false);
  });

  it("renders numbered options, how to reply, and neutralises control characters", () => {
    const shown = questionText({ questions: [{ ...single, prompt: "Which\u202e database?\x1b[2K" }] });
    expect(shown).toBe(
      [
        "Database: Which⟪U+202E⟫ database?␛[2K",
        "  1. Postgres (Recommended)",
        "  2. SQLite",
        "  3. My SQL",
        '  Reply: a number 1-3, a label, or "other: <text>" (add " -- note" for a note)',
        "",
      ].join("\n"),
    );
    const two = questionText({ questions: [single, text] });
    expect(two).toContain("1) Database: Which database?");
    expect(two).toContain("2) Database: Which database?\n  Reply: any non-empty text");
    expect(two.trimEnd().split("\n").at(-1)).toBe("Reply with one line per question, in order.");
  });
});
