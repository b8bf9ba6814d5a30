/**
 * The composer's pop-ups: `CommandList` (the `/` list, one line per command, drawn from the
 * composer's state) and `PickerView` (a titled list the controller opens, see picker.ts).
 *
 * Contract: both show at most `rows` lines and scroll to keep the selection visible; the selected
 * line is marked with "›" and the accent colour. `PickerView` owns its selection and reads its
 * own keys (popup.up/down move, popup.accept chooses, popup.close cancels) while it is mounted;
 * digits 1–9 choose the n-th visible item directly. Labels and details may be model text
 * (thread titles, sub-agent names and tasks): they pass util/terminal-text.ts here, on one line.
 */
import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { terminalText } from "../../util/terminal-text.js";
import type { CommandEntry } from "./commands.js";
import type { Keymap } from "./keymap.js";
import { moveSelection, type PickerRequest, windowStart } from "./picker.js";
import { theme } from "./theme.js";

export const POPUP_ROWS = 8;

/** A picker row's text: neutralised, on one line. */
const line = (text: string) => terminalText(text.replace(/[\r\n]+/g, " "));

export function CommandList({
  entries,
  selected,
  rows = POPUP_ROWS,
  sigil = "/",
}: {
  entries: CommandEntry[];
  selected: number;
  rows?: number;
  /** What the names start with: "/" for commands, "$" for skills. */
  sigil?: string;
}) {
  const start = windowStart(selected, entries.length, rows);
  const width = Math.max(...entries.map((e) => e.name.length)) + 2;
  return (
    <Box flexDirection="column" paddingX={1}>
      {entries.slice(start, start + rows).map((e, i) => {
        const on = start + i === selected;
        return (
          <Text key={e.name} wrap="truncate-end">
            <Text color={on ? theme.accent : undefined} bold={on}>
              {`${on ? "›" : " "} ${sigil}${line(e.name).padEnd(width)}`}
            </Text>
            <Text dimColor={!on}>{line(e.description)}</Text>
          </Text>
        );
      })}
      {entries.length > rows ? <Text dimColor>{`  ${selected + 1}/${entries.length}`}</Text> : null}
    </Box>
  );
}

export function PickerView({
  request,
  keymap,
  onSettle,
  rows = POPUP_ROWS,
}: {
  request: PickerRequest;
  keymap: Keymap;
  /** The chosen value, or undefined when cancelled. */
  onSettle(value: string | undefined): void;
  rows?: number;
}) {
  const { items } = request;
  const [selected, setSelected] = useState(() => {
    const current = items.findIndex((i) => i.current);
    return Math.max(0, current >= 0 ? current : items.findIndex((i) => i.initial));
  });
  const start = windowStart(selected, items.length, rows);
  // Keys may arrive before React re-attaches this handler: read the selection from a ref.
  const at = useRef(selected);
  const move = (delta: number) => {
    at.current = moveSelection(at.current, delta, items.length);
    setSelected(at.current);
  };

  useInput((input, key) => {
    const first = windowStart(at.current, items.length, rows);
    if (keymap.is("popup.up", input, key)) move(-1);
    else if (keymap.is("popup.down", input, key)) move(1);
    else if (keymap.is("popup.accept", input, key)) {
      if (items[at.current]) onSettle(items[at.current].value);
    } else if (keymap.is("popup.close", input, key)) onSettle(undefined);
    else if (/^[1-9]$/.test(input) && items[first + Number(input) - 1])
      onSettle(items[first + Number(input) - 1].value);
  });

  return (
    <Box borderStyle="round" borderColor={theme.accent} paddingX={1} flexDirection="column">
      <Text bold>{line(request.title)}</Text>
      {items.length === 0 ? <Text dimColor>(nothing to choose)</Text> : null}
      {items.slice(start, start + rows).map((item, i) => {
        const on = start + i === selected;
        return (
          <Text key={item.value} wrap="truncate-end">
            <Text color={on ? theme.accent : undefined} bold={on}>
              {`${on ? "›" : " "} ${i + 1}. ${line(item.label)}`}
            </Text>
            {item.current ? <Text color={theme.accent}>{" (current)"}</Text> : null}
            {item.detail ? <Text dimColor>{`  ${line(item.detail)}`}</Text> : null}
          </Text>
        );
      })}
      <Text dimColor wrap="truncate-end">
        {`${keymap.pair("popup.up", "popup.down")} move · ${keymap.label("popup.accept")} choose · ${keymap.label("popup.close")} cancel${items.length > rows ? ` · ${selected + 1}/${items.length}` : ""}`}
      </Text>
    </Box>
  );
}
