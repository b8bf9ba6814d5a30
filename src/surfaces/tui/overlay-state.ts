/**
 * The question overlay's state machine (requirements Q16), pure: `reduce(state, action)` returns the next
 * state and, at most, one effect for the caller to perform (submit a reply or decline). No Ink,
 * no runtime: key handling maps keys to actions (overlay-keys.ts), the view renders the state.
 *
 * Rows of a question with options: its options, then a free-text "Other" row when the question
 * allows it (Q2). A free-text question (no options) has only the text field. Every question but
 * a secret one has a note field (Tab). Focus is on the option list, the Other/answer field, or the
 * note field; printable keys on the option list jump into the Other field.
 *
 * Answer rules (match broker.validateReply): single-select answers one option OR the Other text
 * (typing Other replaces a picked option; picking an option later wins back); multi-select sends
 * every ticked option plus the Other text when non-empty; a note rides along only with an answer.
 * Enter advances; on the last question it submits — after a confirmation when some questions are
 * unanswered. With nothing answered the confirmation offers to decline instead (the broker refuses
 * an empty reply). Escape declines at once while nothing is entered; once something is (an option,
 * Other text, a note) it first asks "Discard your answers?" (Enter discards, Escape keeps editing).
 * From the submit confirmation Escape only goes back.
 *
 * Typed questions (S6): a `boolean` is a single-select of Yes / No; a `number` is a text field
 * (the broker checks it); a question's `default` starts out picked or typed; a `required: true`
 * question left empty stops the submit with an inline error on that question; questions that
 * are explicitly `required: false` may stay empty without the "submit anyway?" confirmation.
 *
 * Text fields (Other/answer and note) have a cursor each (text-field.ts): typing and Backspace act
 * at it, `edit` actions move it or delete forward.
 */
import {
  APPROVAL_LABELS,
  type ApprovalDecisionName,
  type Question,
  type QuestionAnswer,
  type QuestionReply,
  type QuestionRequest,
} from "../../protocol/questions.js";
import { defaultAnswer, typedHint } from "../../questions/typed.js";
import { edit, type FieldOp } from "./text-field.js";

export type Focus = "options" | "other" | "note";

export interface Draft {
  /** Highlighted row: 0..n-1 options; n is the Other row. */
  cursor: number;
  /** Picked option indexes, ascending (single-select: at most one). */
  selected: number[];
  /** Single-select: the answer is the Other text rather than an option. */
  choseOther: boolean;
  other: string;
  /** Cursor in `other`, in code points. */
  otherAt: number;
  note: string;
  /** Cursor in `note`, in code points. */
  noteAt: number;
}

export interface OverlayState {
  request: QuestionRequest;
  index: number;
  drafts: Draft[];
  focus: Focus;
  /**
   * Set while asking: "submit with some unanswered?" (`submit`, listing the unanswered question
   * ids) or "discard the answers given?" (`discard`, after Escape).
   */
  confirm:
    | { kind: "submit"; unanswered: string[]; answered: number }
    | { kind: "discard"; unanswered: string[]; answered: number }
    | null;
  /** The last broker error (shown inline until the next edit). */
  error: string | null;
}

export type OverlayAction =
  | { type: "up" }
  | { type: "down" }
  | { type: "prevQuestion" }
  | { type: "nextQuestion" }
  /** Digit: 0-based option index; n picks the Other row. */
  | { type: "pick"; index: number }
  | { type: "toggle" }
  | { type: "text"; text: string }
  | { type: "deleteBack" }
  /** Cursor moves and forward delete in the focused text field. */
  | { type: "edit"; op: Exclude<FieldOp["type"], "insert" | "deleteBack"> }
  | { type: "note" }
  | { type: "enter" }
  | { type: "escape" }
  | { type: "confirmYes" }
  /** An approval's one-key decision: submits that option at once (when the request offers it). */
  | { type: "decide"; decision: ApprovalDecisionName }
  | { type: "confirmNo" }
  | { type: "failed"; message: string };

export type OverlayEffect = { type: "submit"; reply: QuestionReply } | { type: "decline" };

export interface Step {
  state: OverlayState;
  effect?: OverlayEffect;
}

/** Whether the question shows an option list (else it is a single text field). */
export const hasOptions = (q: Question) => q.kind !== "text" && q.kind !== "number" && q.options.length > 0;
/** One option at most: `single`, and `boolean` (Yes / No). */
export const isSingle = (q: Question) => q.kind === "single" || q.kind === "boolean";
/** The prompt as shown: the question, then what a typed answer must look like, and "optional". */
export function promptOf(q: Question): string {
  const hint = typedHint(q);
  const extra = [hint && q.kind !== "boolean" ? hint : "", q.required === false ? "optional" : ""].filter(
    Boolean,
  );
  return extra.length ? `${q.prompt} — ${extra.join("; ")}` : q.prompt;
}
/** Whether the Other row / text field exists. */
export const hasOther = (q: Question) => !hasOptions(q) || q.allow_other;
/**
 * Whether the note field exists: not for secret questions (it would be redacted anyway) nor for
 * approvals (a decision, nothing to annotate).
 */
export const hasNote = (q: Question, request?: QuestionRequest) => !q.secret && !request?.approval;

const initialFocus = (q: Question): Focus => (hasOptions(q) ? "options" : "other");
/** The focus of the highlighted row: the list, or the Other/answer field. */
const rowFocus = (q: Question, d: Draft): Focus =>
  hasOptions(q) && d.cursor < q.options.length ? "options" : "other";

export function initOverlay(request: QuestionRequest): OverlayState {
  return {
    request,
    index: 0,
    drafts: request.questions.map(initialDraft),
    focus: initialFocus(request.questions[0]),
    confirm: null,
    error: null,
  };
}

/** An empty draft, or one holding the question's default (picked options, or the text). */
function initialDraft(q: Question): Draft {
  const d: Draft = { cursor: 0, selected: [], choseOther: false, other: "", otherAt: 0, note: "", noteAt: 0 };
  const a = defaultAnswer(q);
  if (!a) return d;
  if (!hasOptions(q)) return { ...d, other: a.other ?? "", otherAt: [...(a.other ?? "")].length };
  const selected = a.selected.map((l) => q.options.findIndex((o) => o.label === l)).filter((i) => i >= 0);
  return { ...d, selected, cursor: selected[0] ?? 0 };
}

/** The answer a draft gives its question, or undefined when it answers nothing yet. */
export function answerOf(q: Question, d: Draft): QuestionAnswer | undefined {
  let answer: QuestionAnswer | undefined;
  const text = q.secret ? d.other : d.other.trim();
  if (!hasOptions(q)) {
    if (text.trim() !== "") answer = { selected: [], other: text };
  } else if (isSingle(q)) {
    if (d.choseOther && text !== "") answer = { selected: [], other: text };
    else if (d.selected.length) answer = { selected: [q.options[d.selected[0]].label] };
  } else {
    const selected = d.selected.map((i) => q.options[i].label);
    if (selected.length || (q.allow_other && text !== ""))
      answer = text !== "" && q.allow_other ? { selected, other: text } : { selected };
  }
  if (answer && hasNote(q) && d.note.trim() !== "") answer.note = d.note.trim();
  return answer;
}

/** The reply the overlay would submit now, and which questions it leaves unanswered. */
export function collect(state: OverlayState): { reply: QuestionReply; unanswered: string[] } {
  const answers: Record<string, QuestionAnswer> = {};
  const unanswered: string[] = [];
  state.request.questions.forEach((q, i) => {
    const a = answerOf(q, state.drafts[i]);
    if (a) answers[q.id] = a;
    else unanswered.push(q.id);
  });
  return { reply: { answers }, unanswered };
}

const current = (s: OverlayState) => s.request.questions[s.index];

function withDraft(s: OverlayState, patch: Partial<Draft>, focus: Focus = s.focus): OverlayState {
  const drafts = s.drafts.slice();
  drafts[s.index] = { ...drafts[s.index], ...patch };
  return { ...s, drafts, focus, error: null };
}

function goTo(s: OverlayState, index: number): OverlayState {
  const i = Math.max(0, Math.min(index, s.request.questions.length - 1));
  if (i === s.index) return s;
  const q = s.request.questions[i];
  // Return to where the user left this question: the Other field when Other is its answer.
  return { ...s, index: i, focus: rowFocus(q, s.drafts[i]), error: null };
}

function submitOrConfirm(s: OverlayState): Step {
  const { reply, unanswered } = collect(s);
  const qs = s.request.questions;
  const missing = qs.findIndex((q) => q.required === true && unanswered.includes(q.id));
  if (missing >= 0)
    return { state: { ...goTo(s, missing), error: `"${qs[missing].header || qs[missing].id}" is required` } };
  const optional = unanswered.every((id) => qs.find((q) => q.id === id)?.required === false);
  if (unanswered.length === 0 || optional) return { state: s, effect: { type: "submit", reply } };
  const answered = s.request.questions.length - unanswered.length;
  return { state: { ...s, confirm: { kind: "submit", unanswered, answered } } };
}

/** Whether the user entered anything yet: an answer, or text in any field. */
export function hasInput(s: OverlayState): boolean {
  return s.drafts.some((d, i) => d.other !== "" || d.note !== "" || answerOf(s.request.questions[i], d));
}

/** The focused field's text and cursor after `op` (focus is "other" or "note"). */
function editField(s: OverlayState, d: Draft, op: FieldOp): Partial<Draft> {
  if (s.focus === "note") {
    const f = edit({ text: d.note, at: d.noteAt }, op);
    return { note: f.text, noteAt: f.at };
  }
  const f = edit({ text: d.other, at: d.otherAt }, op);
  return { other: f.text, otherAt: f.at };
}

/** Rows on the option list: options plus the Other row. */
const rowCount = (q: Question) => q.options.length + (q.allow_other ? 1 : 0);

export function reduce(s: OverlayState, action: OverlayAction): Step {
  if (action.type === "failed") return { state: { ...s, confirm: null, error: action.message } };
  if (s.confirm?.kind === "discard") {
    if (action.type === "confirmYes" || action.type === "enter")
      return { state: { ...s, confirm: null }, effect: { type: "decline" } };
    if (action.type === "confirmNo" || action.type === "escape") return { state: { ...s, confirm: null } };
    return { state: s };
  }
  if (s.confirm) {
    if (action.type === "confirmYes" || action.type === "enter") {
      if (s.confirm.answered === 0) return { state: { ...s, confirm: null }, effect: { type: "decline" } };
      return { state: { ...s, confirm: null }, effect: { type: "submit", reply: collect(s).reply } };
    }
    if (action.type === "confirmNo" || action.type === "escape") {
      const first = s.request.questions.findIndex((q) => q.id === s.confirm!.unanswered[0]);
      return { state: goTo({ ...s, confirm: null }, first) };
    }
    return { state: s };
  }

  const q = current(s);
  const d = s.drafts[s.index];
  const options = hasOptions(q);
  switch (action.type) {
    case "decide": {
      const label = APPROVAL_LABELS[action.decision];
      if (!s.request.approval || !q.options.some((o) => o.label === label)) return { state: s };
      return { state: s, effect: { type: "submit", reply: { answers: { [q.id]: { selected: [label] } } } } };
    }
    case "escape": {
      if (!hasInput(s)) return { state: s, effect: { type: "decline" } };
      const { unanswered } = collect(s);
      const answered = s.request.questions.length - unanswered.length;
      return { state: { ...s, confirm: { kind: "discard", unanswered, answered } } };
    }
    case "prevQuestion":
      return { state: goTo(s, s.index - 1) };
    case "nextQuestion":
      return { state: goTo(s, s.index + 1) };
    case "note":
      if (!hasNote(q, s.request)) return { state: s };
      if (s.focus === "note") return { state: { ...s, focus: rowFocus(q, d) } };
      return { state: { ...s, focus: "note" } };
    case "up":
    case "down": {
      // From the note field, arrows first go back to the row the note belongs to.
      if (s.focus === "note") return { state: { ...s, focus: rowFocus(q, d) } };
      if (!options) return { state: s };
      const rows = rowCount(q);
      const cursor = Math.max(0, Math.min(rows - 1, d.cursor + (action.type === "up" ? -1 : 1)));
      const focus: Focus = cursor === q.options.length ? "other" : "options";
      return { state: withDraft(s, { cursor }, focus) };
    }
    case "pick": {
      if (!options) return { state: s };
      if (action.index === q.options.length && q.allow_other)
        return { state: withDraft(s, { cursor: action.index, choseOther: d.other.trim() !== "" }, "other") };
      if (action.index < 0 || action.index >= q.options.length) return { state: s };
      return { state: choose(s, q, d, action.index) };
    }
    case "toggle":
      if (!options || s.focus !== "options") return { state: s };
      return { state: choose(s, q, d, d.cursor) };
    case "text": {
      const insert: FieldOp = { type: "insert", text: action.text };
      if (s.focus === "note") return { state: withDraft(s, editField(s, d, insert)) };
      if (!hasOther(q)) return { state: s };
      if (s.focus === "other") {
        const patch = editField(s, d, insert);
        if (options && isSingle(q)) Object.assign(patch, { choseOther: true, selected: [] });
        return { state: withDraft(s, patch, "other") };
      }
      // Typing on the list jumps into the Other field, at its end (and, single-select, makes
      // Other the answer).
      const other = d.other + action.text;
      const patch: Partial<Draft> = { other, otherAt: [...other].length, cursor: q.options.length };
      if (isSingle(q)) {
        patch.choseOther = true;
        patch.selected = [];
      }
      return { state: withDraft(s, patch, "other") };
    }
    case "deleteBack":
    case "edit": {
      if (s.focus === "options") return { state: s };
      const patch = editField(s, d, action.type === "edit" ? { type: action.op } : { type: "deleteBack" });
      if (s.focus === "other" && patch.other !== undefined)
        patch.choseOther = d.choseOther && patch.other !== "";
      return { state: withDraft(s, patch) };
    }
    case "enter": {
      let next = s;
      // Single-select with nothing chosen: Enter takes the highlighted option.
      if (options && isSingle(q) && s.focus === "options" && !answerOf(q, d))
        next = choose(s, q, d, d.cursor);
      if (s.index < s.request.questions.length - 1) return { state: goTo(next, s.index + 1) };
      return submitOrConfirm(next);
    }
    default:
      return { state: s };
  }
}

/** Picks (single) or toggles (multi) option `i`. */
function choose(s: OverlayState, q: Question, d: Draft, i: number): OverlayState {
  if (i >= q.options.length) return withDraft(s, { cursor: i }, "other");
  if (q.kind === "multi") {
    const has = d.selected.includes(i);
    const selected = has ? d.selected.filter((x) => x !== i) : [...d.selected, i].sort((a, b) => a - b);
    return withDraft(s, { cursor: i, selected }, "options");
  }
  return withDraft(s, { cursor: i, selected: [i], choseOther: false }, "options");
}
