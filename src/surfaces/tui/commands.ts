/**
 * Slash commands of the composer, the `/` list's filter and the help text. Parsing and filtering
 * are pure; the controller runs the commands (controller.ts, settings.ts).
 *
 * Contract: `COMMANDS` is the one list (its order is the `/` list's order); every entry has a
 * one-line description. `filterCommands(text)` is what the `/` list shows for the composer text:
 * commands whose name starts with the typed word first, then those that contain it; nothing when
 * the text is not a lone `/word` (a space, a newline or `//` closes the list).
 */
import { mentionToken } from "../../runtime/file-mentions.js";
import { formatSpec, type Keymap } from "./keymap.js";

export const COMMANDS = {
  model: "choose the model and reasoning effort for the next turns (/model NAME [EFFORT])",
  approvals: "choose the approval policy and sandbox (/approvals POLICY|SANDBOX …)",
  status: "show model, provider, directory, sandbox, approvals and token use",
  diff: "show the files the current or last turn changed",
  review: "review the uncommitted changes, read-only (/review base BRANCH, /review commit SHA, /review TEXT)",
  undo: "undo the file changes of the last turn (asks first; /undo TURN for an earlier one)",
  redo: "re-apply the file changes an /undo took back (asks first)",
  rewind: "cut the conversation back to an earlier message, optionally its files too (Esc Esc)",
  fork: "continue in a new thread holding this conversation (the original stays)",
  compact: "summarise the conversation so far to free context (the stored thread keeps everything)",
  init: "write an AGENTS.md skeleton into the directory (never overwrites one)",
  plan: "switch to plan mode (the model plans and may ask you questions before acting)",
  default: "switch to default mode",
  new: "start a new thread in the same directory",
  clear: "clear the screen and start a new thread",
  resume: "continue a stored thread: pick one, or /resume ID (a unique prefix is enough)",
  threads: "list recent threads",
  agents: "list this thread's sub-agents; pick one to view its transcript (Esc goes back)",
  skills: "list the skills usable here; pick one to name it ($name) in your message",
  help: "show commands and keys",
  quit: "leave Tandem (same as pressing the quit key, Ctrl+C, twice)",
} as const;

export type CommandName = keyof typeof COMMANDS;

export type ParsedCommand =
  | { ok: true; name: CommandName; arg: string }
  | { ok: false; error: string }
  | null;

/**
 * `null` when the text is not a command (does not start with "/", or starts with "//" to send a
 * literal slash), or invokes one of `custom` (a custom command: sent as typed, the runtime expands it).
 */
export function parseCommand(text: string, custom: readonly string[] = []): ParsedCommand {
  if (!text.startsWith("/") || text.startsWith("//")) return null;
  const [head, ...rest] = text.slice(1).trim().split(/\s+/);
  const name = head === "exit" ? "quit" : head;
  if (!(name in COMMANDS) && custom.includes(head)) return null;
  if (!(name in COMMANDS))
    return {
      ok: false,
      error: `unknown command /${head}; commands: ${Object.keys(COMMANDS)
        .map((c) => `/${c}`)
        .join(" ")} (start with // to send a message beginning with /)`,
    };
  return { ok: true, name: name as CommandName, arg: rest.join(" ") };
}

export interface CommandEntry {
  name: string;
  description: string;
}

/**
 * The commands the `/` list shows for the composer text (see the contract above): the built-in
 * ones, then `custom` (custom commands; a name a built-in has is left out).
 */
export function filterCommands(text: string, custom: readonly CommandEntry[] = []): CommandEntry[] {
  if (!/^\/[^\s/]*$/.test(text)) return [];
  const all = [
    ...Object.entries(COMMANDS).map(([name, description]) => ({ name, description })),
    ...custom.filter((c) => !(c.name in COMMANDS)),
  ];
  return matching(all, text.slice(1));
}

/** The skills the `$` list shows while the draft ends in `$word` (a skill mention being typed). */
export function filterSkills(text: string, skills: readonly CommandEntry[]): CommandEntry[] {
  const m = /(?:^|\s)\$([a-z0-9-]*)$/.exec(text);
  return m ? matching(skills, m[1]) : [];
}

/** `text` with its trailing `$word` replaced by `$name ` (completing a skill mention). */
export function completeSkill(text: string, name: string): string {
  return text.replace(/\$[a-z0-9-]*$/, `$${name} `);
}

/**
 * The `@word` the draft ends in (a file mention being typed), or undefined: `@` at the start or
 * after whitespace, then no whitespace. `@` alone is the empty query (the first files).
 */
export function mentionQuery(text: string): string | undefined {
  const m = /(?:^|\s)@([^\s@"]*)$/.exec(text);
  return m ? m[1] : undefined;
}

/** `text` with its trailing `@word` replaced by the mention of `path` and a space. */
export function completeMention(text: string, path: string): string {
  return text.replace(/@[^\s@"]*$/, `${mentionToken(path)} `);
}

function matching(all: readonly CommandEntry[], typed: string): CommandEntry[] {
  const word = typed.toLowerCase();
  const starts = all.filter((c) => c.name.toLowerCase().startsWith(word));
  const contains = all.filter(
    (c) => !c.name.toLowerCase().startsWith(word) && c.name.toLowerCase().includes(word),
  );
  return [...starts, ...contains];
}

export function helpText(km: Keymap): string[] {
  const k = (a: Parameters<Keymap["label"]>[0]) => km.label(a);
  const all = (a: Parameters<Keymap["label"]>[0]) => km.bindings[a].map(formatSpec).join(" / ");
  return [
    "Commands (type / for the list):",
    ...Object.entries(COMMANDS).map(([c, d]) => `  /${c.padEnd(9)} ${d}`),
    "Composer:",
    `  ${k("composer.submit")} send (while a turn runs: queue a steer) · ${all("composer.newline")} or a trailing \\ newline`,
    `  ${km.pair("composer.historyPrev", "composer.historyNext")} history · ${k("turn.interrupt")} interrupt the running turn · ${k("app.quit")} twice quit`,
    `  ${k("composer.pasteImage")} paste the clipboard's image (or paste an image file's path) · @ mention a file · $ use a skill · !cmd run a command`,
    `  ${k("app.agents")} sub-agents (same as /agents) · ${k("turn.interrupt")} back from a sub-agent's transcript`,
    `  / lists and pickers: ${km.pair("popup.up", "popup.down")} move · ${k("popup.complete")} complete · ${k("popup.accept")} choose · ${k("popup.close")} close`,
    "Questions:",
    `  digits pick · ${km.pair("overlay.up", "overlay.down")} move · ${k("overlay.toggle")} toggle (multi-select) · type for Other · ${k("overlay.note")} note`,
    `  ${k("overlay.enter")} next / submit on the last · ${km.pair("overlay.prevQuestion", "overlay.nextQuestion")} between questions · ${k("overlay.decline")} decline`,
    "Keys are configurable in $TANDEM_HOME/keybindings.json (action → list of keys).",
  ];
}
