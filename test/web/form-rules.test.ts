/**
 * The web sheet answers by the same rule as every form Tandem sends a client (test/helpers/form-cases.ts,
 * also run by src/questions/form.test.ts and src/surfaces/acp/questions.test.ts): what a person chooses
 * and types in the sheet (web/src/lib/answer.ts, the sheet's own code) becomes the answer the table
 * says, so "Other…" text never counts unless "Other…" is chosen.
 */
import { describe, expect, it } from "vitest";
import { BOOLEAN_LABELS } from "../../src/protocol/questions.js";
import { type Draft, needsText, toAnswer } from "../../web/src/lib/answer.js";
import { FORM_CASES } from "../helpers/form-cases.js";

/** The sheet's draft for a case's value (what the person clicked and typed). */
function draftFor(kind: string, value: unknown, text?: string): Draft {
  if (kind === "text" || kind === "number") return { selected: [], other: String(value), note: "" };
  if (kind === "boolean")
    return { selected: [value ? BOOLEAN_LABELS.yes : BOOLEAN_LABELS.no], other: text ?? "", note: "" };
  return { selected: [value].flat() as string[], other: text ?? "", note: "" };
}

describe("web sheet: the shared form cases", () => {
  for (const c of FORM_CASES) {
    it(c.name, () => {
      for (const a of c.answers) {
        // A wrongly typed value cannot come out of the sheet's inputs.
        if (a.expect === "invalid") continue;
        const draft = draftFor(c.question.kind, a.value, a.text);
        const got = toAnswer(c.question, draft);
        if (a.expect === "no-text") {
          expect(got, JSON.stringify(a)).toBeNull();
          expect(needsText(c.question, draft)).toBe(true);
        } else {
          expect(got, JSON.stringify(a)).toEqual(a.expect);
          expect(needsText(c.question, draft)).toBe(false);
        }
      }
    });
  }
});
