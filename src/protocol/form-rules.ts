/**
 * The rules every form that shows a Tandem question follows (README "Questions"): the forms sent to
 * clients (questions/form.ts: MCP hosts of `tandem mcp-server`, ACP editors, Codex clients of the
 * app server) and the web page's sheet (web/src, which may import only protocol code). Pure, no
 * dependencies, so the web bundle takes it as is.
 *
 * Free text beside options (requirements Q2: every model question accepts it) is offered only through an
 * explicit choice, never as a field that is always there:
 * - A `single` or `multi` question with options and `allow_other` gets one more choice, "Other…"
 *   (`otherChoice`: a label no option of that question has). Text, number and boolean questions,
 *   and questions without `allow_other` (an MCP server's form), get none.
 * - The typed text is used only when that choice is chosen (`choiceAnswer`): it can never replace
 *   or sit beside an option the user picked without picking "Other…" too. For `single`, "Other…"
 *   is the answer (`{selected: [], other}`); for `multi`, the text is added to the options chosen
 *   with it (`{selected, other}`).
 * - In a client form, the text is asked in a second form, right after the first, holding one
 *   required text field per question whose "Other…" was chosen, named by the question's id (so no
 *   form ever carries an empty optional text field, and no field name is made up).
 *
 * Secret questions (requirements Q10): the form lists their field names under `_meta["tandem/secret"]`
 * (SECRET_META) and each one's description says it is secret; the web page masks the input and
 * offers no note. Only Tandem marks a field secret: an MCP server's form never can (its questions
 * are built with `secret: false`, tools/mcp/elicitation.ts).
 */
import type { Question, QuestionAnswer } from "./questions.js";

/** Key of the form `_meta` entry listing the secret field names. */
export const SECRET_META = "tandem/secret";
/** The label of the explicit free-text choice (made unique per question by `otherChoice`). */
export const OTHER_LABEL = "Other…";
/** What a secret field's description says, so a person knows even where `_meta` is not read. */
export const SECRET_NOTE =
  "Secret: the answer is hidden from the model, logs and history; mask it while typing.";

/** The "Other…" choice's label for `q`, or undefined when `q` offers no free text beside options. */
export function otherChoice(q: Pick<Question, "kind" | "options" | "allow_other">): string | undefined {
  if ((q.kind !== "single" && q.kind !== "multi") || !q.allow_other || q.options.length === 0)
    return undefined;
  const taken = new Set(q.options.map((o) => o.label));
  let label = OTHER_LABEL;
  for (let n = 2; taken.has(label); n++) label = `${OTHER_LABEL} (${n})`;
  return label;
}

/**
 * The answer a set of chosen labels (the "Other…" choice among them or not) and a typed text give
 * a choice question: undefined when nothing is chosen, or "Other…" is chosen with no text and
 * nothing else. `text` counts only when "Other…" is chosen; it is kept as typed for a secret
 * question and trimmed otherwise. Labels are passed on as given (the broker checks them).
 */
export function choiceAnswer(
  q: Pick<Question, "kind" | "options" | "allow_other" | "secret">,
  chosen: string[],
  text: string | undefined,
): QuestionAnswer | undefined {
  const other = otherChoice(q);
  const selected = chosen.filter((label) => label !== other);
  const typed = other !== undefined && chosen.includes(other) ? (text ?? "") : "";
  const value = q.secret ? typed : typed.trim();
  if (selected.length === 0 && value.trim() === "") return undefined;
  return value.trim() === "" ? { selected } : { selected, other: value };
}
