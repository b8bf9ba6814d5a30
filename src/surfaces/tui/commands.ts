/** Slash commands of the composer and the help text. Parsing is pure; the controller runs them. */
import { formatSpec, type Keymap } from "./keymap.js";

export const COMMANDS = {
  plan: "switch to plan mode (the model plans and may ask you questions before acting)",
  default: "switch to default mode",
  new: "start a new thread in the same directory",
  resume: "/resume ID — continue a stored thread (without ID: list threads)",
  threads: "list recent threads",
  help: "show commands and keys",
  quit: "leave Tandem (same as pressing the quit key, Ctrl+C, twice)",
} as const;

export type CommandName = keyof typeof COMMANDS;

export type ParsedCommand =
  | { ok: true; name: CommandName; arg: string }
  | { ok: false; error: string }
  | null;

/** `null` when the text is not a command (does not start with "/", or starts with "//" to send a literal slash). */
export function parseCommand(text: string): ParsedCommand {
  if (!text.startsWith("/") || text.startsWith("//")) return null;
  const [head, ...rest] = text.slice(1).trim().split(/\s+/);
  const name = head === "exit" ? "quit" : head;
  if (!(name in COMMANDS))
    return {
      ok: false,
      error: `unknown command /${head}; commands: ${Object.keys(COMMANDS)
        .map((c) => `/${c}`)
        .join(" ")} (start with // to send a message beginning with /)`,
    };
  return { ok: true, name: name as CommandName, arg: rest.join(" ") };
}

export function helpText(km: Keymap): string[] {
  const k = (a: Parameters<Keymap["label"]>[0]) => km.label(a);
  const all = (a: Parameters<Keymap["label"]>[0]) => km.bindings[a].map(formatSpec).join(" / ");
  return [
    "Commands:",
    ...Object.entries(COMMANDS).map(([c, d]) => `  /${c.padEnd(8)} ${d}`),
    "Composer:",
    `  ${k("composer.submit")} send (while a turn runs: queue a steer) · ${all("composer.newline")} or a trailing \\ newline`,
    `  ${km.pair("composer.historyPrev", "composer.historyNext")} history · ${k("turn.interrupt")} interrupt the running turn · ${k("app.quit")} twice quit`,
    "Questions:",
    `  digits pick · ${km.pair("overlay.up", "overlay.down")} move · ${k("overlay.toggle")} toggle (multi-select) · type for Other · ${k("overlay.note")} note`,
    `  ${k("overlay.enter")} next / submit on the last · ${km.pair("overlay.prevQuestion", "overlay.nextQuestion")} between questions · ${k("overlay.decline")} decline`,
    "Keys are configurable in $TANDEM_HOME/keybindings.json (action → list of keys).",
  ];
}
