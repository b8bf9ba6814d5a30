/**
 * The TUI's one keybinding table (README "The terminal UI"). Every key the UI reacts to is named here
 * as an action → list of key specs; components ask `keymap.is(action, input, key)` and never
 * compare key literals themselves.
 *
 * Key spec grammar: `[ctrl+][alt+][shift+]NAME` where NAME is one of enter, escape, tab, up,
 * down, left, right, home, end, pageup, pagedown, backspace, space, or a single printable
 * character; plus two classes: `digit` (1–9) and `ctrl+j` (a bare line feed, which terminals
 * send for Ctrl+J). `backspace` matches both DEL and BS (terminals disagree on which one the
 * Backspace key sends). `alt+` is also reported by terminals as Meta/Option.
 *
 * Configurable: `$TANDEM_HOME/keybindings.json` maps action names to arrays of specs and replaces
 * those actions' bindings; unknown actions or malformed specs are reported as warnings.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Ink's key flags (a structural subset of ink's `Key`, so pure code can build them in tests). */
export interface KeyInfo {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  shift?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
  meta?: boolean;
}

export const DEFAULT_BINDINGS = {
  "app.quit": ["ctrl+c"],
  "app.agents": ["ctrl+t"],
  "composer.submit": ["enter"],
  "composer.newline": ["alt+enter", "shift+enter", "ctrl+j"],
  "composer.historyPrev": ["up"],
  "composer.historyNext": ["down"],
  "composer.left": ["left"],
  "composer.right": ["right"],
  "composer.home": ["home", "ctrl+a"],
  "composer.end": ["end", "ctrl+e"],
  "composer.deleteBack": ["backspace"],
  "composer.deleteForward": ["ctrl+d"],
  "composer.clear": ["ctrl+u"],
  "composer.pasteImage": ["ctrl+v"],
  "turn.interrupt": ["escape"],
  "popup.up": ["up", "ctrl+p"],
  "popup.down": ["down", "ctrl+n"],
  "popup.complete": ["tab"],
  "popup.accept": ["enter"],
  "popup.close": ["escape"],
  "overlay.up": ["up"],
  "overlay.down": ["down"],
  "overlay.prevQuestion": ["left", "shift+tab"],
  "overlay.nextQuestion": ["right"],
  "overlay.pick": ["digit"],
  "overlay.toggle": ["space"],
  "overlay.note": ["tab"],
  "overlay.enter": ["enter"],
  "overlay.decline": ["escape"],
  "overlay.deleteBack": ["backspace"],
  "approval.accept": ["y"],
  "approval.session": ["a"],
  "approval.remember": ["r"],
  "approval.decline": ["n"],
  "approval.cancel": ["escape"],
  "text.wordLeft": ["alt+left", "ctrl+left", "alt+b"],
  "text.wordRight": ["alt+right", "ctrl+right", "alt+f"],
  "confirm.yes": ["enter", "y"],
  "confirm.no": ["escape", "n"],
} as const satisfies Record<string, readonly string[]>;

export type Action = keyof typeof DEFAULT_BINDINGS;
export type Bindings = Record<Action, readonly string[]>;

interface Spec {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  name: string;
}

const NAMED = new Set([
  "enter",
  "escape",
  "tab",
  "up",
  "down",
  "left",
  "right",
  "home",
  "end",
  "pageup",
  "pagedown",
  "backspace",
  "space",
  "digit",
]);

/** Parses one spec; throws with a message naming the problem. */
export function parseSpec(spec: string): Spec {
  const parts = spec.toLowerCase().split("+");
  const name = spec.endsWith("++") ? "+" : parts.pop()!;
  const mods = new Set(spec.endsWith("++") ? parts.slice(0, -2) : parts);
  for (const m of mods)
    if (m !== "ctrl" && m !== "alt" && m !== "shift")
      throw new Error(`unknown modifier "${m}" in key "${spec}" (use ctrl, alt, shift)`);
  if (!NAMED.has(name) && [...name].length !== 1)
    throw new Error(`unknown key "${name}" in "${spec}" (a named key or one character)`);
  return { ctrl: mods.has("ctrl"), alt: mods.has("alt"), shift: mods.has("shift"), name };
}

function nameOf(input: string, key: KeyInfo): string | undefined {
  if (key.return) return "enter";
  if (key.escape) return "escape";
  if (key.tab) return "tab";
  if (key.upArrow) return "up";
  if (key.downArrow) return "down";
  if (key.leftArrow) return "left";
  if (key.rightArrow) return "right";
  if (key.home) return "home";
  if (key.end) return "end";
  if (key.pageUp) return "pageup";
  if (key.pageDown) return "pagedown";
  if (key.backspace || key.delete) return "backspace";
  if (input === " ") return "space";
  if ([...input].length === 1) return input.toLowerCase();
  return undefined;
}

/** Whether one keypress (as Ink reports it) matches one parsed spec. */
export function matchSpec(spec: Spec, input: string, key: KeyInfo): boolean {
  if (spec.name === "j" && spec.ctrl && input === "\n") return true;
  const name = nameOf(input, key);
  if (name === undefined) return false;
  if (spec.name === "digit") return /^[1-9]$/.test(input) && !key.ctrl && !key.meta;
  if (name !== spec.name) return false;
  if (Boolean(key.ctrl) !== spec.ctrl) return false;
  // Ink sets `meta` for Escape itself; only compare it for other keys.
  if (name !== "escape" && Boolean(key.meta) !== spec.alt) return false;
  // Ink flags upper-case letters as shifted; a spec for a printable character ignores shift.
  const printable = [...spec.name].length === 1;
  if (!printable && Boolean(key.shift) !== spec.shift) return false;
  return true;
}

export interface Keymap {
  readonly bindings: Bindings;
  /** True when the keypress is bound to `action`. */
  is(action: Action, input: string, key: KeyInfo): boolean;
  /** Human label of an action's first binding, for hints ("Esc", "Alt+Enter"). */
  label(action: Action): string;
  /** Labels of two actions as a pair, e.g. "↑/↓". */
  pair(a: Action, b: Action): string;
  /**
   * How many presses of `action` one chunk holds: 1 for a matching key, n for a chunk of n
   * identical Ctrl+letter control bytes (a terminal may deliver a fast double Ctrl+C as one).
   */
  presses(action: Action, input: string, key: KeyInfo): number;
}

export function createKeymap(overrides: Partial<Record<string, readonly string[]>> = {}): {
  keymap: Keymap;
  warnings: string[];
} {
  const warnings: string[] = [];
  const bindings = { ...DEFAULT_BINDINGS } as Bindings;
  for (const [action, specs] of Object.entries(overrides)) {
    if (!(action in DEFAULT_BINDINGS)) {
      warnings.push(
        `keybindings: unknown action "${action}"; known: ${Object.keys(DEFAULT_BINDINGS).join(", ")}`,
      );
      continue;
    }
    if (!Array.isArray(specs) || !specs.every((s) => typeof s === "string")) {
      warnings.push(`keybindings: "${action}" must be an array of key strings`);
      continue;
    }
    bindings[action as Action] = specs;
  }
  const parsed = new Map<Action, Spec[]>();
  for (const action of Object.keys(bindings) as Action[]) {
    const ok: Spec[] = [];
    for (const s of bindings[action]) {
      try {
        ok.push(parseSpec(s));
      } catch (err) {
        warnings.push(`keybindings: ${(err as Error).message}`);
      }
    }
    parsed.set(action, ok);
  }
  const keymap: Keymap = {
    bindings,
    is: (action, input, key) => (parsed.get(action) ?? []).some((s) => matchSpec(s, input, key)),
    label: (action) => formatSpec(bindings[action][0] ?? "unbound"),
    presses: (action, input, key) => {
      const specs = parsed.get(action) ?? [];
      if (specs.some((sp) => matchSpec(sp, input, key))) return 1;
      for (const sp of specs) {
        if (!sp.ctrl || sp.alt || !/^[a-z]$/.test(sp.name)) continue;
        const byte = String.fromCharCode(sp.name.charCodeAt(0) - 96);
        if (input.length > 1 && [...input].every((c) => c === byte)) return input.length;
      }
      return 0;
    },
    pair: (a, b) => `${formatSpec(bindings[a][0] ?? "unbound")}/${formatSpec(bindings[b][0] ?? "unbound")}`,
  };
  return { keymap, warnings };
}

const KEY_LABELS: Record<string, string> = {
  up: "↑",
  down: "↓",
  left: "←",
  right: "→",
  escape: "Esc",
  digit: "1-9",
  pageup: "PgUp",
  pagedown: "PgDn",
};

/** "alt+enter" → "Alt+Enter", "up" → "↑", "ctrl+c" → "Ctrl+C"; a bare letter stays as typed ("y"). */
export function formatSpec(spec: string): string {
  if ([...spec].length === 1) return spec;
  return spec
    .split("+")
    .map((p) => KEY_LABELS[p] ?? (p.length <= 1 ? p.toUpperCase() : p[0].toUpperCase() + p.slice(1)))
    .join("+");
}

/** Loads `$TANDEM_HOME/keybindings.json` when present; a broken file falls back to defaults. */
export function loadKeymap(home: string): { keymap: Keymap; warnings: string[] } {
  const file = join(home, "keybindings.json");
  if (!existsSync(file)) return createKeymap();
  try {
    const raw = JSON.parse(readFileSync(file, "utf8"));
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw new Error("expected an object of action → [keys]");
    return createKeymap(raw);
  } catch (err) {
    const { keymap } = createKeymap();
    return { keymap, warnings: [`${file}: ${(err as Error).message}; using the default keys`] };
  }
}

export const defaultKeymap: Keymap = createKeymap().keymap;
