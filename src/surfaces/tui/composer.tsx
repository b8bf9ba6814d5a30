/**
 * The composer: multi-line input over composer-state.ts. Enter sends (the app decides whether
 * that starts a turn or queues a steer), newline keys come from the keymap, Esc asks the app to
 * interrupt. `locked` (a question is shown) disables it entirely; the draft is kept.
 *
 * Pastes: from `pastes` (paste.ts's stdin stand-in, out of band, while the composer is active),
 * or — when Ink receives the bracketed-paste markers itself (tests, another stdin) — by collecting
 * everything between the `[200~` and `[201~` events. Either way the text goes in literally.
 * History: `history` (history.ts) seeds ↑/↓ and pushes changes (a resumed thread's messages).
 * The `/` list: while the draft is a lone `/word`, the matching commands show under the input
 * (commands.ts `filterCommands`); popup.up/down move, popup.complete fills in `/name `,
 * popup.accept runs the selected command, popup.close hides the list until the draft changes;
 * a draft recalled from history opens no list. Custom commands (`completions.commands`) follow
 * the built-in ones. While the draft ends in `$word`, the `$` list shows the matching skills
 * (`completions.skills`); popup.complete or popup.accept replaces the word with `$name `.
 * While it ends in `@word`, the `@` list shows the workspace files matching it
 * (`completions.files`, fuzzy, async: the last answer stays until the next arrives); complete or
 * accept replaces the word with `@path ` (sending attaches the file, runtime/file-mentions.ts).
 * Pickers: while `menus` has one open (picker.ts), it replaces the input and takes the keys.
 */
import { Box, Text, useInput } from "ink";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import {
  type CommandEntry,
  completeMention,
  completeSkill,
  filterCommands,
  filterSkills,
  mentionQuery,
} from "./commands.js";
import {
  type ComposerAction,
  type ComposerState,
  emptyComposer,
  normalisePaste,
  reduce,
} from "./composer-state.js";
import type { Action, KeyInfo, Keymap } from "./keymap.js";
import { cleanPaste, type PasteListener } from "./paste.js";
import { type MenuHost, moveSelection } from "./picker.js";
import { CommandList, PickerView } from "./pickers.js";
import { theme } from "./theme.js";

/** Esc Esc: the second press within this many ms opens the rewind picker. */
export const REWIND_WINDOW_MS = 1000;

export interface ComposerProps {
  keymap: Keymap;
  locked: boolean;
  running: boolean;
  /** `images`: the paths of the image chips the draft held (composer-state.ts). */
  onSubmit(text: string, images: string[]): void;
  /** Ctrl+V: the clipboard's image as a file path, or why there is none (clipboard-image.ts). */
  onPasteImage?(): { path: string } | { error: string };
  /** Says something under the composer (an image that could not be pasted). */
  onNotice?(text: string): void;
  onInterrupt(): void;
  /** Set while a sub-agent's transcript is shown: the interrupt key goes back instead. */
  onBack?(): void;
  /** The interrupt key pressed twice within REWIND_WINDOW_MS, nothing typed, no turn running (/rewind). */
  onRewind?(): void;
  /** Called on every key the composer handles (the app uses it to reset the Ctrl-C prompt). */
  onKey?(): void;
  history?: HistorySource;
  pastes?: PasteSource;
  /** Pickers the controller opens (/resume, /model, /approvals). */
  menus?: MenuHost;
  /** Custom commands (in the `/` list) and skills (the `$` list); controller.ts keeps them. */
  completions?: Completions;
  /** Text the controller puts in the draft (a skill picked in /skills), appended at the end. */
  drafts?: DraftSource;
}

export interface Completions {
  commands(): CommandEntry[];
  skills(): CommandEntry[];
  /** The workspace files matching an `@` query, best first (runtime.files); absent: no `@` list. */
  files?(query: string): Promise<string[]>;
}

export interface DraftSource {
  subscribe(fn: (text: string) => void): () => void;
}

export interface HistorySource {
  entries(): string[];
  subscribe(fn: () => void): () => void;
}

export interface PasteSource {
  onPaste(listener: PasteListener): () => void;
}

/** How Ink reports the bracketed-paste markers when they reach useInput (ESC stripped). */
const IN_BAND_START = "[200~";
const IN_BAND_END = "[201~";

const NO_MENUS = { current: () => null, subscribe: () => () => {} };

/** The `/` list's state for one draft text: a new text starts at the first entry, shown. */
interface PopupState {
  for: string;
  selected: number;
  dismissed: boolean;
}

/** Keymap actions that map one-to-one onto editing actions. */
const EDITS: Array<[Action, ComposerAction]> = [
  ["composer.newline", { type: "newline" }],
  ["composer.submit", { type: "submit" }],
  ["composer.historyPrev", { type: "up" }],
  ["composer.historyNext", { type: "down" }],
  ["composer.left", { type: "left" }],
  ["composer.right", { type: "right" }],
  ["composer.home", { type: "home" }],
  ["composer.end", { type: "end" }],
  ["composer.deleteBack", { type: "deleteBack" }],
  ["composer.deleteForward", { type: "deleteForward" }],
  ["composer.clear", { type: "clear" }],
];

/** Editing actions for one keypress (a pasted chunk may be text plus Enter). */
export function composerActions(input: string, key: KeyInfo, km: Keymap): ComposerAction[] | "interrupt" {
  if (km.is("turn.interrupt", input, key)) return "interrupt";
  for (const [action, edit] of EDITS) if (km.is(action, input, key)) return [edit];
  if (key.ctrl || key.meta || input === "" || key.tab) return [];
  if ([...input].length === 1)
    return /[\u0000-\u001f\u007f]/.test(input) ? [] : [{ type: "insert", text: input }];
  const paste = normalisePaste(input);
  const out: ComposerAction[] = [
    // Keep line breaks and tabs of pasted text; drop other control bytes.
    { type: "insert", text: paste.text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "") },
  ];
  if (paste.enter) out.push({ type: "submit" });
  return out;
}

export function Composer(props: ComposerProps) {
  const [state, setState] = useState<ComposerState>(() => emptyComposer(props.history?.entries() ?? []));
  const ref = useRef(state);
  const latest = useRef(props);
  latest.current = props;
  /** Text of an in-band paste being collected (undefined: none). */
  const inBand = useRef<string | undefined>(undefined);
  const [popupState, setPopup] = useState<PopupState>({ for: "", selected: 0, dismissed: false });
  const menus = props.menus ?? NO_MENUS;
  const picker = useSyncExternalStore(menus.subscribe, menus.current);
  const here = popupState.for === state.text;
  // A command recalled from history does not open the list: ↑/↓ keep walking the history.
  const browsing = state.historyIndex < state.history.length;
  const completions = props.completions;
  const commands =
    (here && popupState.dismissed) || browsing ? [] : filterCommands(state.text, completions?.commands());
  // While the draft ends in `$word`, the `$` list offers the skills of that name.
  const skillList = commands.length || (here && popupState.dismissed) || browsing || !completions;
  const skillEntries = skillList ? [] : filterSkills(state.text, completions.skills());
  // While the draft ends in `@word`, the `@` list offers the workspace's files (searched async).
  const query = skillList || skillEntries.length ? undefined : mentionQuery(state.text);
  const [fileHits, setFileHits] = useState<{ query: string; entries: CommandEntry[] }>({
    query: "",
    entries: [],
  });
  useEffect(() => {
    if (query === undefined || !completions?.files) return;
    let live = true;
    completions.files(query).then(
      (paths) => {
        if (live) setFileHits({ query, entries: paths.map((name) => ({ name, description: "" })) });
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, [query, completions]);
  // The last answer stays shown while the next keystroke's search runs (no flicker).
  const fileEntries = query === undefined ? [] : fileHits.entries;
  const sigil = skillEntries.length ? "$" : fileEntries.length ? "@" : "/";
  const entries = skillEntries.length ? skillEntries : fileEntries.length ? fileEntries : commands;
  const selected = here ? Math.min(popupState.selected, Math.max(0, entries.length - 1)) : 0;
  const popup = useRef({ entries, selected, sigil });
  popup.current = { entries, selected, sigil };

  const apply = (actions: ComposerAction[]) => {
    const p = latest.current;
    let s = ref.current;
    for (const a of actions) {
      const step = reduce(s, a);
      s = step.state;
      if (step.submitted !== undefined) p.onSubmit(step.submitted, step.images ?? []);
    }
    ref.current = s;
    setState(s);
  };
  const applyRef = useRef(apply);
  applyRef.current = apply;

  const history = props.history;
  useEffect(
    () => history?.subscribe(() => applyRef.current([{ type: "history", history: [...history.entries()] }])),
    [history],
  );

  const drafts = props.drafts;
  useEffect(
    () =>
      drafts?.subscribe((text) => {
        const cur = ref.current.text;
        applyRef.current([{ type: "set", text: cur && !/\s$/.test(cur) ? `${cur} ${text}` : cur + text }]);
      }),
    [drafts],
  );

  const pastes = props.pastes;
  useEffect(() => {
    if (props.locked || !pastes) return;
    return pastes.onPaste((text) => {
      latest.current.onKey?.();
      applyRef.current([{ type: "paste", text }]);
      return true;
    });
  }, [pastes, props.locked]);

  const lastEscape = useRef(0);
  useInput(
    (input, key) => {
      const p = latest.current;
      if (inBand.current !== undefined || input === IN_BAND_START) {
        if (input === IN_BAND_START) inBand.current = "";
        else if (input === IN_BAND_END) {
          const text = cleanPaste(inBand.current ?? "");
          inBand.current = undefined;
          p.onKey?.();
          apply([{ type: "paste", text }]);
        } else inBand.current += key.return ? "\n" : key.tab ? "\t" : input;
        return;
      }
      const list = popup.current;
      if (list.entries.length && !props.locked) {
        const km = p.keymap;
        const text = ref.current.text;
        const chosen = list.entries[list.selected];
        if (km.is("popup.up", input, key) || km.is("popup.down", input, key)) {
          const delta = km.is("popup.up", input, key) ? -1 : 1;
          setPopup({
            for: text,
            selected: moveSelection(list.selected, delta, list.entries.length),
            dismissed: false,
          });
          return;
        }
        if (
          list.sigil === "$" &&
          (km.is("popup.complete", input, key) || km.is("popup.accept", input, key))
        ) {
          p.onKey?.();
          apply([{ type: "set", text: completeSkill(text, chosen.name) }]);
          return;
        }
        if (
          list.sigil === "@" &&
          (km.is("popup.complete", input, key) || km.is("popup.accept", input, key))
        ) {
          p.onKey?.();
          apply([{ type: "set", text: completeMention(text, chosen.name) }]);
          return;
        }
        if (km.is("popup.complete", input, key)) {
          p.onKey?.();
          apply([{ type: "set", text: `/${chosen.name} ` }]);
          return;
        }
        if (km.is("popup.accept", input, key)) {
          p.onKey?.();
          apply([{ type: "set", text: `/${chosen.name}` }, { type: "submit" }]);
          return;
        }
        if (km.is("popup.close", input, key)) {
          setPopup({ for: text, selected: 0, dismissed: true });
          return;
        }
      }
      if (p.keymap.is("composer.pasteImage", input, key) && p.onPasteImage) {
        const got = p.onPasteImage();
        if ("path" in got) apply([{ type: "paste", text: got.path }]);
        else p.onNotice?.(got.error);
        return;
      }
      const actions = composerActions(input, key, p.keymap);
      if (actions === "interrupt") {
        if (p.onBack) p.onBack();
        else if (p.running) p.onInterrupt();
        else if (p.onRewind && ref.current.text === "") {
          const now = Date.now();
          if (now - lastEscape.current <= REWIND_WINDOW_MS) {
            lastEscape.current = 0;
            p.onRewind();
          } else lastEscape.current = now;
        }
        return;
      }
      if (actions.length) p.onKey?.();
      apply(actions);
    },
    { isActive: !props.locked && !picker },
  );

  const lines = state.text.split("\n");
  let left = state.cursor;
  const km = props.keymap;
  if (picker && !props.locked)
    return (
      <PickerView key={picker.title} request={picker} keymap={km} onSettle={(v) => props.menus?.settle(v)} />
    );
  return (
    <Box flexDirection="column">
      <Box
        borderStyle="round"
        borderColor={props.locked ? "gray" : theme.accent}
        paddingX={1}
        flexDirection="column"
      >
        {state.text === "" ? (
          <Text>
            <Text color={theme.accent}>{"› "}</Text>
            {props.locked ? null : <Text inverse> </Text>}
            <Text dimColor>
              {props.locked
                ? "answer the question above first"
                : props.running
                  ? "steer the running turn (sent before its next request)"
                  : "ask Tandem to do something — /help for commands"}
            </Text>
          </Text>
        ) : (
          lines.map((line, i) => {
            const chars = [...line];
            const here = left >= 0 && left <= chars.length && !props.locked;
            const col = left;
            left -= chars.length + 1;
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines of the draft
              <Text key={i}>
                <Text color={theme.accent}>{i === 0 ? "› " : "  "}</Text>
                {here ? (
                  <>
                    {chars.slice(0, col).join("")}
                    <Text inverse>{chars[col] ?? " "}</Text>
                    {chars.slice(col + 1).join("")}
                  </>
                ) : (
                  line
                )}
              </Text>
            );
          })
        )}
      </Box>
      {entries.length && !props.locked ? (
        <CommandList entries={entries} selected={selected} sigil={sigil} />
      ) : (
        <Text dimColor wrap="truncate-end">
          {`${km.label("composer.submit")} ${props.running ? "queue steer" : "send"} · ${km.label("composer.newline")} or \\⏎ newline · ${km.pair("composer.historyPrev", "composer.historyNext")} history${props.onBack ? ` · ${km.label("turn.interrupt")} back` : props.running ? ` · ${km.label("turn.interrupt")} interrupt` : ""} · ${km.label("app.quit")} twice quit`}
        </Text>
      )}
    </Box>
  );
}
