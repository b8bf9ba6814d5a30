/**
 * A timed-out MCP elicitation form is never sent back as a filled-in `accept` (README "MCP
 * elicitation"). Two guards, each tested on its own so that removing either fails a test:
 *   1. the broker's timeout policy (questions/reply.ts timeoutOutcome, with typed.ts
 *      defaultAnswer): only a recommended option or a valid default answers a question, and only
 *      under on_timeout = "recommended"; everything else stays unanswered;
 *   2. the elicitation mapping (elicitation.ts outcomeToElicitResult): a required field without
 *      a value, or a timeout that filled in nothing, is a `cancel`.
 * Then both together through the real broker and its timer.
 */
import { describe, expect, it } from "vitest";
import type { QuestionOutcome, QuestionPolicy, QuestionRequest } from "../../protocol/questions.js";
import { createBroker } from "../../questions/broker.js";
import { timeoutOutcome } from "../../questions/reply.js";
import { createBus } from "../../util/bus.js";
import { elicitationToQuestions, outcomeToElicitResult } from "./elicitation.js";

/** A server's form: a required token with no default, and fields whose defaults are bad or good. */
const FORM = {
  type: "object",
  properties: {
    token: { type: "string", title: "Token" },
    blank: { type: "string", title: "Blank default", default: "   " },
    far: { type: "integer", title: "Out of range default", minimum: 1, maximum: 5, default: 99 },
    short: { type: "string", title: "Too short default", minLength: 5, default: "ab" },
    note: { type: "string", title: "Note", default: "hello" },
  },
  required: ["token", "blank", "far", "short"],
};
const questions = elicitationToQuestions(FORM);
const timed = (on_timeout: "recommended" | "empty" | "decline", ms = 5): QuestionPolicy => ({
  type: "timeout",
  ms,
  on_timeout,
});
const request = (policy: QuestionPolicy): QuestionRequest => ({
  request_id: "q_el",
  thread_id: "t",
  turn_id: "u",
  call_id: "c",
  source: "internal",
  questions,
  policy,
  deadline: null,
  created_at: Date.now(),
  elicitation: { server: "hostile", mode: "form", message: "fill in" },
});
const timedOut = (answers: Record<string, { selected: string[]; other?: string }>): QuestionOutcome => ({
  status: "timed_out",
  policy: timed("recommended"),
  answers,
  unanswered: [],
});

describe("guard 1: the broker's timeout policy fills in only what it may", () => {
  // Fails if a missing default, a blank one, one out of range or one the field's rules refuse is
  // used at timeout (the server would get values nobody chose or that break its own schema).
  it("recommended: valid defaults only; the rest stays unanswered", () => {
    const out = timeoutOutcome(request(timed("recommended")));
    expect(out).toEqual({
      status: "timed_out",
      policy: timed("recommended"),
      answers: { note: { selected: [], other: "hello" } },
      unanswered: ["token", "blank", "far", "short"],
    });
  });

  // Fails if "empty" or "decline" take defaults anyway.
  it("empty and decline answer nothing", () => {
    for (const on of ["empty", "decline"] as const)
      expect(timeoutOutcome(request(timed(on)))).toMatchObject({
        answers: {},
        unanswered: ["token", "blank", "far", "short", "note"],
      });
  });
});

describe("guard 2: the mapping cancels a form without its required values", () => {
  // Fails if a timed-out (or answered) outcome missing a required field, or carrying it empty,
  // is sent as accept.
  it("a required field absent or empty → cancel", () => {
    const allButToken = {
      blank: { selected: [], other: "x" },
      far: { selected: [], other: "3" },
      short: { selected: [], other: "abcdef" },
      note: { selected: [], other: "hello" },
    };
    expect(outcomeToElicitResult(questions, timedOut(allButToken))).toEqual({ action: "cancel" });
    expect(
      outcomeToElicitResult(questions, timedOut({ ...allButToken, token: { selected: [], other: "" } })),
    ).toEqual({ action: "cancel" });
    expect(outcomeToElicitResult(questions, timedOut({ ...allButToken, token: { selected: [] } }))).toEqual({
      action: "cancel",
    });
    // The same answers with the token are an accept: the guard is about the missing value.
    expect(
      outcomeToElicitResult(questions, timedOut({ ...allButToken, token: { selected: [], other: "t0k" } })),
    ).toMatchObject({ action: "accept", content: { token: "t0k", far: 3 } });
  });

  // Fails if a timeout that filled in nothing of an all-optional form is sent as an empty accept.
  it("an all-optional form that timed out with nothing filled in → cancel", () => {
    const optional = elicitationToQuestions({ type: "object", properties: { a: { type: "string" } } });
    expect(outcomeToElicitResult(optional, timedOut({}))).toEqual({ action: "cancel" });
    expect(outcomeToElicitResult(optional, timedOut({ a: { selected: [], other: "x" } }))).toEqual({
      action: "accept",
      content: { a: "x" },
    });
  });
});

describe("both guards through the real broker's timer", () => {
  // Fails if the broker's timeout and the mapping together send anything but cancel for a form
  // whose required fields nobody answered.
  it("a form timing out under every policy is cancelled", async () => {
    for (const on of ["recommended", "empty", "decline"] as const) {
      const broker = createBroker({ bus: createBus() });
      const outcome = await broker.ask(request(timed(on, 20)), new AbortController().signal);
      expect(outcome.status).toBe("timed_out");
      expect(outcomeToElicitResult(questions, outcome)).toEqual({ action: "cancel" });
    }
  });
});
