/**
 * The cases every form surface is tested against: the question↔form mapping (src/questions/form.ts,
 * run through the MCP SDK's checks in src/questions/form.test.ts and the ACP SDK's in
 * src/surfaces/acp/questions.test.ts) and the web sheet's answer rule (test/web/form-rules.test.ts).
 * One table, so the surfaces cannot drift apart on free text ("Other…"), secrets or typed values
 * (src/protocol/form-rules.ts).
 */
import { describe, expect, it } from "vitest";
import { OTHER_LABEL, otherChoice, SECRET_META, SECRET_NOTE } from "../../src/protocol/form-rules.js";
import {
  BOOLEAN_OPTIONS,
  type Question,
  type QuestionAnswer,
  type QuestionRequest,
} from "../../src/protocol/questions.js";
import { askByForm, type Form, type FormResult } from "../../src/questions/form.js";

export interface FormCase {
  name: string;
  question: Question;
  /** What the question's field in the first form must hold (a subset). */
  field: Record<string, unknown>;
  /** The form lists it under `_meta["tandem/secret"]`. */
  secret: boolean;
  answers: Array<{
    /** The field's value in the first form (for a choice: the chosen label or labels). */
    value: unknown;
    /** The text typed for "Other…" (the second form's field; the web's text input). */
    text?: string;
    /**
     * The answer taken; `"no-text"` when "Other…" alone was chosen and nothing typed (a form asks
     * again, the web sheet leaves the question unanswered); `"invalid"` for a value a form refuses.
     */
    expect: QuestionAnswer | "no-text" | "invalid";
  }>;
}

const q = (over: Partial<Question> & Pick<Question, "id" | "kind">): Question => ({
  header: over.id,
  prompt: `${over.id}?`,
  options: [],
  allow_other: false,
  secret: false,
  ...over,
});
const opts = (...labels: string[]) => labels.map((label) => ({ label, description: `${label} it is` }));

export const FORM_CASES: FormCase[] = [
  {
    name: "a model's single choice: the options, then Other…",
    question: q({ id: "stack", kind: "single", options: opts("Rust", "Go"), allow_other: true }),
    field: {
      type: "string",
      oneOf: [
        { const: "Rust", title: "Rust" },
        { const: "Go", title: "Go" },
        { const: OTHER_LABEL, title: OTHER_LABEL },
      ],
    },
    secret: false,
    answers: [
      { value: "Rust", expect: { selected: ["Rust"] } },
      // Text typed without choosing Other… never overrides the option (the form never asks it).
      { value: "Go", text: "Zig", expect: { selected: ["Go"] } },
      { value: OTHER_LABEL, text: "Zig", expect: { selected: [], other: "Zig" } },
      { value: OTHER_LABEL, text: "  Zig  ", expect: { selected: [], other: "Zig" } },
      { value: OTHER_LABEL, text: "   ", expect: "no-text" },
      { value: ["Rust"], expect: "invalid" },
    ],
  },
  {
    name: "a model's multi choice: Other… adds the text to the options chosen with it",
    question: q({ id: "extras", kind: "multi", options: opts("Lint", "Docs"), allow_other: true }),
    field: {
      type: "array",
      items: {
        anyOf: [
          { const: "Lint", title: "Lint" },
          { const: "Docs", title: "Docs" },
          { const: OTHER_LABEL, title: OTHER_LABEL },
        ],
      },
    },
    secret: false,
    answers: [
      { value: ["Lint", "Docs"], expect: { selected: ["Lint", "Docs"] } },
      { value: ["Lint"], text: "CI", expect: { selected: ["Lint"] } },
      { value: ["Lint", OTHER_LABEL], text: "CI", expect: { selected: ["Lint"], other: "CI" } },
      { value: [OTHER_LABEL], text: "CI", expect: { selected: [], other: "CI" } },
      { value: "Lint", expect: "invalid" },
    ],
  },
  {
    name: "an option already called Other…: the free-text choice takes another label",
    question: q({ id: "pick", kind: "single", options: opts("Other…", "None"), allow_other: true }),
    field: {
      oneOf: [
        { const: "Other…", title: "Other…" },
        { const: "None", title: "None" },
        { const: "Other… (2)", title: "Other… (2)" },
      ],
    },
    secret: false,
    answers: [
      { value: "Other…", expect: { selected: ["Other…"] } },
      { value: "Other… (2)", text: "mine", expect: { selected: [], other: "mine" } },
    ],
  },
  {
    name: "an MCP server's choice (no free text): no Other…",
    question: q({ id: "hero", kind: "single", options: opts("Superman", "Batman") }),
    field: {
      type: "string",
      oneOf: [
        { const: "Superman", title: "Superman" },
        { const: "Batman", title: "Batman" },
      ],
    },
    secret: false,
    answers: [{ value: "Batman", expect: { selected: ["Batman"] } }],
  },
  {
    name: "free text: the field is the answer",
    question: q({ id: "name", kind: "text", allow_other: true, max_length: 20 }),
    field: { type: "string", maxLength: 20 },
    secret: false,
    answers: [
      { value: "demo-app", expect: { selected: [], other: "demo-app" } },
      { value: 42, expect: "invalid" },
    ],
  },
  {
    name: "a secret: marked in _meta and its description, kept as typed",
    question: q({ id: "token", kind: "text", allow_other: true, secret: true }),
    field: { type: "string", description: `token?\n${SECRET_NOTE}` },
    secret: true,
    answers: [{ value: " s3cr3t ", expect: { selected: [], other: " s3cr3t " } }],
  },
  {
    name: "a boolean: true and false are Yes and No",
    question: q({ id: "agree", kind: "boolean", options: BOOLEAN_OPTIONS, required: true }),
    field: { type: "boolean" },
    secret: false,
    answers: [
      { value: true, expect: { selected: ["Yes"] } },
      { value: false, expect: { selected: ["No"] } },
      { value: "yes", expect: "invalid" },
    ],
  },
  {
    name: "a number: its text in other",
    question: q({ id: "count", kind: "number", integer: true, minimum: 1, maximum: 10 }),
    field: { type: "integer", minimum: 1, maximum: 10 },
    secret: false,
    answers: [{ value: 7, expect: { selected: [], other: "7" } }],
  },
];

export function caseRequest(question: Question): QuestionRequest {
  return {
    request_id: "q_case",
    thread_id: "t_case",
    turn_id: "u_case",
    call_id: "c_case",
    source: "model",
    questions: [question],
    policy: { type: "wait" },
    deadline: null,
    created_at: 0,
  };
}

/**
 * Runs FORM_CASES through the mapping as `surface` sends it: `wire(form, content)` checks the form
 * with that surface's SDK and returns whether `content` (when given) fits the form's schema.
 * Fails if a field differs from the table, a secret is not listed (or a plain field is), the
 * second form is asked without "Other…" (or not with it), or an answer differs.
 */
export function askFormCases(
  surface: string,
  wire: (form: Form, content?: Record<string, unknown>) => boolean,
) {
  describe(`${surface} forms: the shared cases`, () => {
    for (const c of FORM_CASES) {
      it(c.name, async () => {
        const request = caseRequest(c.question);
        const other = otherChoice(c.question);
        for (const a of c.answers) {
          const forms: Form[] = [];
          const show = async (form: Form): Promise<FormResult> => {
            forms.push(form);
            const id = c.question.id;
            const content =
              forms.length === 1 ? { [id]: a.value } : a.text === undefined ? {} : { [id]: a.text };
            expect(wire(form, undefined)).toBe(true);
            if (a.expect !== "invalid" && a.expect !== "no-text") expect(wire(form, content)).toBe(true);
            return { action: "accept", content };
          };
          const got = await askByForm(request, show);
          const first = forms[0];
          expect(first.requestedSchema.properties[c.question.id]).toMatchObject(c.field);
          expect(Object.keys(first.requestedSchema.properties)).toEqual([c.question.id]);
          expect(first._meta?.[SECRET_META] ?? []).toEqual(c.secret ? [c.question.id] : []);
          const choseOther = other !== undefined && [a.value].flat().includes(other);
          expect(forms.length, JSON.stringify(a)).toBe(choseOther && a.expect !== "invalid" ? 2 : 1);
          if (a.expect === "invalid" || a.expect === "no-text")
            expect(got.kind, JSON.stringify(a)).toBe("invalid");
          else
            expect(got, JSON.stringify(a)).toEqual({
              kind: "reply",
              reply: { answers: { [c.question.id]: a.expect } },
            });
        }
      });
    }
  });
}
