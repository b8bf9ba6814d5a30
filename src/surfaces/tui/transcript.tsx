/**
 * The conversation view. Committed cells are rendered to text once (render-cell.ts) and written
 * straight into the terminal's scrollback above Ink's live area (`useStdout().write`), so they are
 * never laid out or redrawn again — a 2,000-item thread prints in milliseconds. Only the live area
 * (streaming tail, running commands, queued steers) is redrawn per frame, and it stays a few
 * lines tall.
 *
 * When the terminal's width changes, the terminal re-wraps what it shows, and Ink's erase of
 * its previous frame (counted in the old width's lines) leaves debris. So on a width change the
 * transcript is printed again: the screen and scrollback are cleared and every committed cell is
 * rendered at the new width, then Ink redraws the live area below it.
 *
 * The live area draws model, program and server text too: each string passes
 * util/terminal-text.ts (commands util/printable.ts) here, as committed cells do in render-cell.ts.
 */
import { Box, Text, useStdout } from "ink";
import { useLayoutEffect, useRef } from "react";
import { printable } from "../../util/printable.js";
import { terminalText } from "../../util/terminal-text.js";
import { displayWidth, type Piece } from "./ansi.js";
import type { Cell } from "./cells.js";
import { tailLines } from "./format.js";
import { parseLines } from "./markdown.js";
import { type RenderOptions, renderCell, renderMdLine } from "./render-cell.js";
import { useTerminalSize } from "./terminal-size.js";
import { theme } from "./theme.js";
import type { LiveMessage, Snapshot } from "./view-store.js";

/** Terminal width and whether to emit colour codes. */
export function useRenderOptions(): RenderOptions {
  const { stdout } = useStdout();
  const { columns } = useTerminalSize();
  const env = process.env;
  const color = Boolean(stdout.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
  return { width: columns, color };
}

/** Clear screen, clear scrollback, cursor home. */
const CLEAR_ALL = "\x1b[2J\x1b[3J\x1b[H";

/**
 * Writes cells that were not written yet, in order, as one chunk. Renders nothing itself.
 * `cursor` keeps the count written across remounts (the root's transcript after a sub-agent's
 * was shown continues where it stopped, agent-view.ts); without it a mount starts at 0.
 */
export function Scrollback({ cells, cursor }: { cells: Cell[]; cursor?: { written: number } }) {
  const { write, stdout } = useStdout();
  const opts = useRenderOptions();
  const own = useRef({ written: 0 });
  const at = cursor ?? own.current;
  const width = useRef(opts.width);
  useLayoutEffect(() => {
    let text = "";
    if (opts.width !== width.current && at.written > 0 && stdout.isTTY) {
      // Re-print everything at the new width (see the file comment). Only on a real terminal.
      text = CLEAR_ALL;
      at.written = 0;
    }
    width.current = opts.width;
    if (cells.length <= at.written) {
      if (text) write(text);
      return;
    }
    for (let i = at.written; i < cells.length; i++) text += renderCell(cells[i], opts);
    at.written = cells.length;
    write(text);
  }, [cells, opts, write, stdout.isTTY, at]);
  return null;
}

const lead = (started: boolean): Piece[] => [{ text: started ? "  " : "• " }];

/** The unfinished last line of a streaming message, rendered like its committed lines. */
export function liveMessageText(m: LiveMessage, opts: RenderOptions): string {
  const line = parseLines([terminalText(m.text)], m.fence).out[0] ?? { kind: "blank" as const };
  return renderMdLine(line, lead(m.started), [{ text: "  " }], opts).join("\n");
}

/**
 * Running commands to show: not one whose approval is on screen (it has not started; the
 * overlay shows the command).
 */
const liveExecs = (snap: Snapshot) =>
  snap.execs.filter(
    (x) => !(x.output === "" && snap.pending.some((p) => p.request.approval?.command === x.command)),
  );

/** Tool calls to show: not the question tool while its question is on screen. */
const liveTools = (snap: Snapshot) =>
  snap.pending.length > 0 ? snap.tools.filter((t) => t.tool !== "request_user_input") : snap.tools;

/** Lines the live area takes at `width` columns (the question overlay gets what is left). */
export function liveAreaRows(snap: Snapshot, opts: RenderOptions): number {
  const rows = (text: string) =>
    text
      .split("\n")
      .reduce((n, l) => n + Math.max(1, Math.ceil(displayWidth(l) / Math.max(1, opts.width))), 0);
  let n = snap.reasoning.length + liveTools(snap).length;
  for (const m of snap.messages)
    if (m.text !== "" || !m.started) n += rows(liveMessageText(m, { ...opts, color: false }));
  for (const x of liveExecs(snap)) n += 1 + tailLines(x.output, 5).length;
  for (const q of snap.queued) n += rows(`› ${q.text} (queued — sent before the next model request)`);
  return n;
}

/** The redrawn part: streaming tails and running commands, bounded to a few lines each. */
export function LiveArea({ snap }: { snap: Snapshot }) {
  const opts = useRenderOptions();
  return (
    <Box flexDirection="column">
      {snap.reasoning.map((r) => (
        <Text key={r.id} dimColor italic wrap="truncate-start">
          {`thinking: ${terminalText(r.text.replace(/\s+/g, " ").slice(-opts.width * 2))}`}
        </Text>
      ))}
      {snap.messages
        .filter((m) => m.text !== "" || !m.started)
        .map((m) => (
          <Text key={m.id}>{liveMessageText(m, opts)}</Text>
        ))}
      {liveExecs(snap).map((x) => (
        <Box key={x.id} flexDirection="column">
          <Text wrap="truncate-end">
            <Text color={theme.accent}>{"$ "}</Text>
            <Text bold>{printable(x.command)}</Text>
            <Text dimColor> (running)</Text>
          </Text>
          {tailLines(terminalText(x.output, { sgr: true }), 5).map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: live tail lines
            <Text key={i} dimColor wrap="truncate-end">{`  │ ${l}`}</Text>
          ))}
        </Box>
      ))}
      {liveTools(snap).map((t) => (
        <Text key={t.id} dimColor>{`→ ${terminalText(t.tool)}…`}</Text>
      ))}
      {snap.queued.map((q) => (
        <Text key={q.id} color={theme.user}>
          {"› "}
          <Text>{terminalText(q.text)}</Text>
          <Text dimColor> (queued — sent before the next model request)</Text>
        </Text>
      ))}
    </Box>
  );
}
