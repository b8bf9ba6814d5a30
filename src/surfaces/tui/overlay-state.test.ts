import { describe, expect, it } from "vitest";
import { BOOLEAN_OPTIONS, type Question } from "../../protocol/questions.js";
import { defaultKeymap } from "./keymap.js";
import { applyKeys, overlayActions } from "./overlay-keys.js";
import {
  collect,
  initOverlay,
  type OverlayAction,
  type OverlayEffect,
  type OverlayState,
  promptOf,
  reduce,
} from "./overlay-state.js";
import { featuresQuestion, nameQuestion, requestOf, stackQuestion, tokenQuestion } from "./test-fixtures.js";

/** Applies actions in order; returns the final state and the first effect. */
function run(
  state: OverlayState,
  ...actions: OverlayAction[]
): { state: OverlayState; effect?: OverlayEffect } {
  let s = state;
  for (const a of actions) {
    const step = reduce(s, a);
    s = step.state;
    if (step.effect) return { state: s, effect: step.effect };
  }
  return { state: s };
}

const text = (t: string): OverlayAction => ({ type: "text", text: t });
const pick = (index: number): OverlayAction => ({ type: "pick", index });
const enter: OverlayAction = { type: "enter" };

describe("overlay reducer", () => {
  it("digit picks, Enter advances, free text + note, last Enter submits", () => {
    const s0 = initOverlay(requestOf([stackQuestion, nameQuestion]));
    const r = run(s0, pick(1), enter, text("demo"), { type: "note" }, text("keep it short"), enter);
    expect(r.effect).toEqual({
      type: "submit",
      reply: {
        answers: {
          stack: { selected: ["Rust"] },
          name: { selected: [], other: "demo", note: "keep it short" },
        },
      },
    });
  });

  it("Enter on a single-select with nothing chosen takes the highlighted option", () => {
    const s0 = initOverlay(requestOf([stackQuestion]));
    const r = run(s0, { type: "down" }, enter);
    expect(r.effect).toEqual({ type: "submit", reply: { answers: { stack: { selected: ["Rust"] } } } });
  });

  it("↑/↓ clamp and reach the Other row, which focuses the text field", () => {
    let s = initOverlay(requestOf([stackQuestion]));
    s = run(s, { type: "up" }).state;
    expect(s.drafts[0].cursor).toBe(0);
    s = run(s, { type: "down" }, { type: "down" }, { type: "down" }).state;
    expect(s.drafts[0].cursor).toBe(2);
    expect(s.focus).toBe("other");
    s = run(s, text("Go"), { type: "up" }).state;
    expect(s.focus).toBe("options");
    expect(s.drafts[0].cursor).toBe(1);
  });

  it("typing on the list jumps into Other and replaces a picked option (single-select)", () => {
    const s0 = initOverlay(requestOf([stackQuestion]));
    const r = run(s0, pick(0), text("Z"), text("ig"), enter);
    expect(r.effect).toEqual({
      type: "submit",
      reply: { answers: { stack: { selected: [], other: "Zig" } } },
    });
  });

  it("picking an option after typing Other wins back; Other text is kept but not sent", () => {
    const s0 = initOverlay(requestOf([stackQuestion]));
    const r = run(s0, text("Zig"), { type: "up" }, pick(1), enter);
    expect(r.effect).toEqual({ type: "submit", reply: { answers: { stack: { selected: ["Rust"] } } } });
    expect(r.state.drafts[0].other).toBe("Zig");
  });

  it("the digit after the last option picks the Other row", () => {
    const s = run(initOverlay(requestOf([stackQuestion])), pick(2)).state;
    expect(s.focus).toBe("other");
    expect(s.drafts[0].cursor).toBe(2);
    expect(run(s, pick(7)).state).toEqual(s);
  });

  it("multi-select: digits and Space toggle, Other text rides along", () => {
    const s0 = initOverlay(requestOf([featuresQuestion]));
    const r = run(s0, pick(2), pick(0), pick(2), { type: "up" }, { type: "toggle" }, text("Docs"), enter);
    expect(r.effect).toEqual({
      type: "submit",
      reply: { answers: { features: { selected: ["Tests", "Lint"], other: "Docs" } } },
    });
  });

  it("Enter on a multi-select does not tick the highlighted option", () => {
    const s0 = initOverlay(requestOf([featuresQuestion]));
    const r = run(s0, enter);
    expect(r.effect).toBeUndefined();
    expect(r.state.confirm).toEqual({ kind: "submit", unanswered: ["features"], answered: 0 });
  });

  it("confirms before submitting with unanswered questions; yes submits the answered ones", () => {
    const s0 = initOverlay(requestOf([stackQuestion, nameQuestion]));
    const r1 = run(s0, pick(0), enter, enter);
    expect(r1.effect).toBeUndefined();
    expect(r1.state.confirm).toEqual({ kind: "submit", unanswered: ["name"], answered: 1 });
    const yes = reduce(r1.state, { type: "confirmYes" });
    expect(yes.effect).toEqual({
      type: "submit",
      reply: { answers: { stack: { selected: ["TypeScript (Recommended)"] } } },
    });
  });

  it("'no' on the confirmation goes back to the first unanswered question", () => {
    const s0 = initOverlay(requestOf([featuresQuestion, stackQuestion, nameQuestion]));
    const r = run(s0, { type: "nextQuestion" }, pick(1), enter, text("x"), { type: "deleteBack" }, enter);
    expect(r.state.confirm?.unanswered).toEqual(["features", "name"]);
    const back = reduce(r.state, { type: "confirmNo" }).state;
    expect(back.confirm).toBeNull();
    expect(back.index).toBe(0);
    const esc = reduce(r.state, { type: "escape" });
    expect(esc.effect).toBeUndefined();
    expect(esc.state.confirm).toBeNull();
  });

  it("with nothing answered the confirmation declines", () => {
    const s0 = initOverlay(requestOf([nameQuestion]));
    const r = run(s0, enter);
    expect(r.state.confirm).toEqual({ kind: "submit", unanswered: ["name"], answered: 0 });
    expect(reduce(r.state, { type: "confirmYes" }).effect).toEqual({ type: "decline" });
  });

  it("a note alone does not answer a question", () => {
    const s0 = initOverlay(requestOf([stackQuestion, nameQuestion]));
    const r = run(s0, pick(0), { type: "note" }, text("later"), enter, { type: "note" }, text("n"), enter);
    expect(r.state.confirm?.unanswered).toEqual(["name"]);
    expect(collect(r.state).reply.answers.stack).toEqual({
      selected: ["TypeScript (Recommended)"],
      note: "later",
    });
  });

  it("Escape declines; Tab toggles the note and arrows leave it", () => {
    const s0 = initOverlay(requestOf([stackQuestion]));
    expect(reduce(s0, { type: "escape" }).effect).toEqual({ type: "decline" });
    const inNote = run(s0, { type: "note" }).state;
    expect(inNote.focus).toBe("note");
    expect(run(inNote, { type: "note" }).state.focus).toBe("options");
    expect(run(inNote, { type: "down" }).state.focus).toBe("options");
  });

  it("←/→ move between questions and keep drafts", () => {
    const s0 = initOverlay(requestOf([stackQuestion, nameQuestion]));
    const s = run(s0, pick(1), { type: "nextQuestion" }, text("abc"), { type: "prevQuestion" }).state;
    expect(s.index).toBe(0);
    expect(s.drafts[0].selected).toEqual([1]);
    expect(s.drafts[1].other).toBe("abc");
    expect(run(s, { type: "prevQuestion" }).state.index).toBe(0);
  });

  it("secret question: no note field, exact text, deleteBack edits", () => {
    const s0 = initOverlay(requestOf([tokenQuestion]));
    expect(s0.focus).toBe("other");
    const s = run(s0, text(" hunter2x"), { type: "deleteBack" }, { type: "note" }).state;
    expect(s.focus).toBe("other");
    const r = run(s, enter);
    expect(r.effect).toEqual({
      type: "submit",
      reply: { answers: { token: { selected: [], other: " hunter2" } } },
    });
  });

  it("a broker failure is shown and cleared by the next edit", () => {
    const s0 = initOverlay(requestOf([nameQuestion]));
    const failed = reduce(s0, { type: "failed", message: "request was already answered" }).state;
    expect(failed.error).toBe("request was already answered");
    expect(run(failed, text("a")).state.error).toBeNull();
  });
});

describe("overlay keys", () => {
  const km = defaultKeymap;
  it("maps digits, Space, arrows on the list and characters in fields", () => {
    const s = initOverlay(requestOf([featuresQuestion]));
    expect(overlayActions(s, "2", {}, km)).toEqual([pick(1)]);
    expect(overlayActions(s, " ", {}, km)).toEqual([{ type: "toggle" }]);
    expect(overlayActions(s, "", { downArrow: true }, km)).toEqual([{ type: "down" }]);
    expect(overlayActions(s, "", { tab: true }, km)).toEqual([{ type: "note" }]);
    expect(overlayActions(s, "", { escape: true, meta: true }, km)).toEqual([{ type: "escape" }]);
    const field = { ...s, focus: "note" as const };
    expect(overlayActions(field, "2", {}, km)).toEqual([text("2")]);
    expect(overlayActions(field, " ", {}, km)).toEqual([text(" ")]);
    expect(overlayActions(field, "", { delete: true }, km)).toEqual([{ type: "deleteBack" }]);
  });

  it("replays a chunk such as '1⏎' key by key", () => {
    const s = initOverlay(requestOf([stackQuestion]));
    expect(overlayActions(s, "1\r", {}, km)).toEqual([pick(0), enter]);
    const field = { ...initOverlay(requestOf([nameQuestion])) };
    expect(overlayActions(field, "ab\tc\x7f", {}, km)).toEqual([
      text("a"),
      text("b"),
      { type: "note" },
      text("c"),
      { type: "deleteBack" },
    ]);
  });

  it("in the confirmation only yes/no keys act", () => {
    const s = {
      ...initOverlay(requestOf([nameQuestion])),
      confirm: { kind: "submit" as const, unanswered: ["name"], answered: 0 },
    };
    expect(overlayActions(s, "y", {}, km)).toEqual([{ type: "confirmYes" }]);
    expect(overlayActions(s, "", { return: true }, km)).toEqual([{ type: "confirmYes" }]);
    expect(overlayActions(s, "n", {}, km)).toEqual([{ type: "confirmNo" }]);
    expect(overlayActions(s, "x", {}, km)).toEqual([]);
  });
});

describe("overlay keys across a chunk", () => {
  it("maps each key against the state the previous key produced", () => {
    const s = initOverlay(requestOf([stackQuestion, featuresQuestion, nameQuestion]));
    // "2⏎" answers the first, "13⏎" ticks two options of the multi-select, "my2⏎" is text.
    const r = applyKeys(s, "2\r13\rmy2\r", {}, defaultKeymap);
    expect(r.effect).toEqual({
      type: "submit",
      reply: {
        answers: {
          stack: { selected: ["Rust"] },
          features: { selected: ["Tests", "CI"] },
          name: { selected: [], other: "my2" },
        },
      },
    });
  });
});

describe("escape and the cursor", () => {
  it("Escape with nothing entered declines; with an answer it asks, Esc keeps editing, Enter discards", () => {
    // Fails if Escape throws answers away without asking (or asks when there is nothing to lose).
    const s0 = initOverlay(requestOf([stackQuestion, nameQuestion]));
    expect(reduce(s0, { type: "escape" }).effect).toEqual({ type: "decline" });
    const asked = run(s0, pick(1), { type: "escape" });
    expect(asked.effect).toBeUndefined();
    expect(asked.state.confirm?.kind).toBe("discard");
    const kept = reduce(asked.state, { type: "escape" });
    expect(kept.effect).toBeUndefined();
    expect(kept.state.confirm).toBeNull();
    expect(kept.state.drafts[0].selected).toEqual([1]);
    expect(reduce(asked.state, { type: "enter" }).effect).toEqual({ type: "decline" });
  });

  it("typing and Backspace act at the cursor in the answer and note fields", () => {
    // Fails if text is always appended/deleted at the end.
    const s0 = initOverlay(requestOf([nameQuestion]));
    const r = run(
      s0,
      text("ac"),
      { type: "edit", op: "left" },
      text("b"),
      { type: "edit", op: "home" },
      {
        type: "edit",
        op: "deleteForward",
      },
    );
    expect(r.state.drafts[0].other).toBe("bc");
    expect(r.state.drafts[0].otherAt).toBe(0);
  });

  it("←/→ in a text field move the cursor instead of switching questions", () => {
    // Fails if the arrows keep their option-list meaning inside a field.
    const s = initOverlay(requestOf([nameQuestion, stackQuestion]));
    expect(overlayActions(s, "", { leftArrow: true }, defaultKeymap)).toEqual([{ type: "edit", op: "left" }]);
    expect(overlayActions(s, "", { rightArrow: true, meta: true }, defaultKeymap)).toEqual([
      { type: "edit", op: "wordRight" },
    ]);
  });
});

describe("overlay reducer: typed questions (MCP elicitation)", () => {
  const q = (over: Partial<Question> & Pick<Question, "id" | "kind">): Question => ({
    header: over.id,
    prompt: `Prompt ${over.id}`,
    options: [],
    allow_other: false,
    secret: false,
    ...over,
  });
  const abc = ["A", "B", "C"].map((label) => ({ label, description: "" }));

  // fails if defaults are not the drafts' starting answers (a submit without edits would lose them)
  it("starts from each question's default", () => {
    const s = initOverlay(
      requestOf([
        q({ id: "n", kind: "number", default: 3.5 }),
        q({ id: "t", kind: "text", default: "hi" }),
        q({ id: "b", kind: "boolean", options: BOOLEAN_OPTIONS, default: false }),
        q({ id: "m", kind: "multi", options: abc, default: ["A", "C"] }),
      ]),
    );
    expect(collect(s)).toEqual({
      reply: {
        answers: {
          n: { selected: [], other: "3.5" },
          t: { selected: [], other: "hi" },
          b: { selected: ["No"] },
          m: { selected: ["A", "C"] },
        },
      },
      unanswered: [],
    });
  });

  // fails if a boolean is handled like a multi-select (two picks) or numbers get an option list
  it("a boolean is single-select, a number a text field", () => {
    const s0 = initOverlay(
      requestOf([q({ id: "b", kind: "boolean", options: BOOLEAN_OPTIONS }), q({ id: "n", kind: "number" })]),
    );
    const r = run(s0, pick(0), pick(1), enter, text("42"), enter);
    expect(r.effect).toEqual({
      type: "submit",
      reply: { answers: { b: { selected: ["No"] }, n: { selected: [], other: "42" } } },
    });
  });

  // fails if required questions can be skipped or optional ones still ask "submit anyway?"
  it("required stops the submit on the question; optional ones are skipped without asking", () => {
    const s0 = initOverlay(
      requestOf([
        q({ id: "a", kind: "text", required: true }),
        q({ id: "o", kind: "text", required: false }),
      ]),
    );
    const stopped = run(s0, enter, enter);
    expect(stopped.effect).toBeUndefined();
    expect(stopped.state.index).toBe(0);
    expect(stopped.state.error).toBe('"a" is required');
    const done = run(stopped.state, text("x"), enter, enter);
    expect(done.effect).toEqual({ type: "submit", reply: { answers: { a: { selected: [], other: "x" } } } });
  });

  // fails if the prompt hides the number's bounds or that a question is optional
  it("the prompt carries the typed hint", () => {
    expect(
      promptOf(q({ id: "n", kind: "number", integer: true, minimum: 1, maximum: 9, required: false })),
    ).toBe("Prompt n — a whole number from 1 to 9; optional");
    expect(promptOf(q({ id: "e", kind: "text", format: "email" }))).toBe(
      "Prompt e — an email address (e.g. name@example.com)",
    );
  });
});

describe("approvals decide in one key", () => {
  const approval = (): OverlayState => {
    const q: Question = {
      id: "decision",
      header: "Approve",
      prompt: "Run `ls`?",
      kind: "single",
      options: ["Accept", "Accept for session", "Accept and remember", "Decline", "Cancel"].map((label) => ({
        label,
        description: "",
      })),
      allow_other: false,
      secret: false,
    };
    return initOverlay({
      ...requestOf([q]),
      source: "internal",
      approval: { kind: "exec", reason: "r", cwd: "/w", command: "ls" },
    });
  };
  const noKey = {};
  it.each([
    ["y", "Accept"],
    ["a", "Accept for session"],
    ["r", "Accept and remember"],
    ["n", "Decline"],
  ])("%s submits %s", (key, label) => {
    const step = applyKeys(approval(), key, noKey, defaultKeymap);
    expect(step.effect).toEqual({ type: "submit", reply: { answers: { decision: { selected: [label] } } } });
  });

  it("Esc declines and stops the turn (Cancel), not a plain decline", () => {
    const step = applyKeys(approval(), "", { escape: true }, defaultKeymap);
    expect(step.effect).toEqual({
      type: "submit",
      reply: { answers: { decision: { selected: ["Cancel"] } } },
    });
  });

  it("a model question keeps its letters as text (y is not Accept there)", () => {
    const step = applyKeys(initOverlay(requestOf([stackQuestion])), "y", noKey, defaultKeymap);
    expect(step.effect).toBeUndefined();
    expect(step.state.drafts[0].other).toBe("y");
  });
});
