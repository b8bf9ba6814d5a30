/**
 * Keys → overlay actions, through the keymap (no key literals here). Context decides meaning:
 * on the option list digits pick and Space toggles; in a text field (Other, note, free-text
 * answer) they are characters and ←/→, Home/End (Ctrl+A/E), word jumps and Ctrl+D edit at the
 * cursor (the composer's bindings, plus `text.wordLeft`/`text.wordRight`). A chunk of several
 * characters (a paste, or keys the terminal
 * delivered together such as "1⏎") is replayed one character at a time so it means the same as
 * typing it.
 */
import type { ApprovalDecisionName } from "../../protocol/questions.js";
import type { Action, KeyInfo, Keymap } from "./keymap.js";
import { type OverlayAction, type OverlayState, reduce, type Step } from "./overlay-state.js";

/** Splits a multi-character chunk into single keypresses; CR/LF become Enter, TAB Tab, DEL/BS Backspace. */
export function explode(input: string, key: KeyInfo): Array<[string, KeyInfo]> {
  const chars = [...input];
  if (chars.length <= 1 || key.ctrl || key.meta || key.escape) return [[input, key]];
  return chars.map((c): [string, KeyInfo] => {
    if (c === "\r" || c === "\n") return ["\r", { return: true }];
    if (c === "\t") return ["", { tab: true }];
    if (c === "\x7f" || c === "\b") return ["", { delete: true }];
    return [c, {}];
  });
}

/** The one-key decisions of an approval, in the order the hints list them. */
export const APPROVAL_KEYS: ReadonlyArray<readonly [Action, ApprovalDecisionName]> = [
  ["approval.accept", "accept"],
  ["approval.session", "accept_for_session"],
  ["approval.remember", "accept_and_remember"],
  ["approval.decline", "decline"],
  ["approval.cancel", "cancel"],
];

const printable = (input: string, key: KeyInfo) =>
  input !== "" && !key.ctrl && !key.meta && !/[\u0000-\u001f\u007f]/.test(input);

/** Actions for one keypress, each mapped against the state the previous one produced. */
export function overlayActions(
  state: OverlayState,
  input: string,
  key: KeyInfo,
  km: Keymap,
): OverlayAction[] {
  const out: OverlayAction[] = [];
  let s = state;
  for (const [i, k] of explode(input, key)) {
    const a = overlayAction(s, i, k, km);
    if (!a) continue;
    out.push(a);
    const step = reduce(s, a);
    if (step.effect) break; // keys after a submit/decline belong to whatever shows next
    s = step.state;
  }
  return out;
}

/**
 * Applies one keypress: the next state and, at most, one effect (the caller performs it and
 * reports a refusal back with a `failed` action).
 */
export function applyKeys(state: OverlayState, input: string, key: KeyInfo, km: Keymap): Step {
  let s = state;
  for (const a of overlayActions(state, input, key, km)) {
    const step = reduce(s, a);
    if (step.effect) return step;
    s = step.state;
  }
  return { state: s };
}

/** The action of one single keypress in state `s`, if any. */
export function overlayAction(
  s: OverlayState,
  input: string,
  key: KeyInfo,
  km: Keymap,
): OverlayAction | undefined {
  if (s.confirm) {
    if (km.is("confirm.yes", input, key)) return { type: "confirmYes" };
    if (km.is("confirm.no", input, key)) return { type: "confirmNo" };
    return undefined;
  }
  // An approval decides in one key (y/a/r/n, Esc = decline and stop the turn); digits still pick.
  if (s.request.approval && s.focus === "options") {
    for (const [action, decision] of APPROVAL_KEYS)
      if (km.is(action, input, key)) return { type: "decide", decision };
  }
  const inText = s.focus !== "options";
  if (km.is("overlay.decline", input, key)) return { type: "escape" };
  if (km.is("overlay.enter", input, key)) return { type: "enter" };
  if (km.is("overlay.note", input, key)) return { type: "note" };
  if (km.is("overlay.up", input, key)) return { type: "up" };
  if (km.is("overlay.down", input, key)) return { type: "down" };
  if (km.is("overlay.deleteBack", input, key)) return { type: "deleteBack" };
  if (!inText) {
    if (km.is("overlay.prevQuestion", input, key)) return { type: "prevQuestion" };
    if (km.is("overlay.nextQuestion", input, key)) return { type: "nextQuestion" };
    if (km.is("overlay.pick", input, key)) return { type: "pick", index: Number(input) - 1 };
    if (km.is("overlay.toggle", input, key)) return { type: "toggle" };
  } else {
    // A text field edits like the composer: ←/→, Home/End, word jumps, forward delete.
    if (km.is("text.wordLeft", input, key)) return { type: "edit", op: "wordLeft" };
    if (km.is("text.wordRight", input, key)) return { type: "edit", op: "wordRight" };
    if (km.is("composer.left", input, key)) return { type: "edit", op: "left" };
    if (km.is("composer.right", input, key)) return { type: "edit", op: "right" };
    if (km.is("composer.home", input, key)) return { type: "edit", op: "home" };
    if (km.is("composer.end", input, key)) return { type: "edit", op: "end" };
    if (km.is("composer.deleteForward", input, key)) return { type: "edit", op: "deleteForward" };
  }
  if (inText && km.is("overlay.prevQuestion", input, key) && !printable(input, key)) {
    // Shift+Tab still navigates from a field; plain arrows do not (they would surprise a typist).
    if (key.tab) return { type: "prevQuestion" };
  }
  if (printable(input, key)) return { type: "text", text: input };
  return undefined;
}
