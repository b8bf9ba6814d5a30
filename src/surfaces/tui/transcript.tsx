/**
 * The conversation view. Committed cells are rendered to text once (render-cell.ts) and written
 * straight into the terminal's scrollback above Ink's live area (`useStdout().write`), so they are
 * never laid out or redrawn again — a 2,000-item thread prints in milliseconds. Only the live area
 * (streaming tail, running commands, queued steers) is redrawn per frame, and it stays a few
 * lines tall.
 */
import { Box, Text, useStdout } from "ink";
import { useLayoutEffect, useRef } from "react";
import type { Piece } from "./ansi.js";
import type { Cell } from "./cells.js";
import { tailLines } from "./format.js";
import { parseLines } from "./markdown.js";
import { type RenderOptions, renderCell, renderMdLine } from "./render-cell.js";
import { theme } from "./theme.js";
import type { LiveMessage, Snapshot } from "./view-store.js";

/** Terminal width and whether to emit colour codes. */
export function useRenderOptions(): RenderOptions {
  const { stdout } = useStdout();
  const env = process.env;
  const color = Boolean(stdout.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
  return { width: stdout.columns || 100, color };
}

/** Writes cells that were not written yet, in order, as one chunk. Renders nothing itself. */
export function Scrollback({ cells }: { cells: Cell[] }) {
  const { write } = useStdout();
  const opts = useRenderOptions();
  const written = useRef(0);
  useLayoutEffect(() => {
    if (cells.length <= written.current) return;
    let text = "";
    for (let i = written.current; i < cells.length; i++) text += renderCell(cells[i], opts);
    written.current = cells.length;
    write(text);
  }, [cells, opts, write]);
  return null;
}

const lead = (started: boolean): Piece[] => [{ text: started ? "  " : "• " }];

/** The unfinished last line of a streaming message, rendered like its committed lines. */
export function liveMessageText(m: LiveMessage, opts: RenderOptions): string {
  const line = parseLines([m.text], m.fence).out[0] ?? { kind: "blank" as const };
  return renderMdLine(line, lead(m.started), [{ text: "  " }], opts).join("\n");
}

/** The redrawn part: streaming tails and running commands, bounded to a few lines each. */
export function LiveArea({ snap }: { snap: Snapshot }) {
  const opts = useRenderOptions();
  return (
    <Box flexDirection="column">
      {snap.reasoning.map((r) => (
        <Text key={r.id} dimColor italic wrap="truncate-start">
          {`thinking: ${r.text.replace(/\s+/g, " ").slice(-opts.width * 2)}`}
        </Text>
      ))}
      {snap.messages
        .filter((m) => m.text !== "" || !m.started)
        .map((m) => (
          <Text key={m.id}>{liveMessageText(m, opts)}</Text>
        ))}
      {snap.execs.map((x) => (
        <Box key={x.id} flexDirection="column">
          <Text wrap="truncate-end">
            <Text color={theme.accent}>{"$ "}</Text>
            <Text bold>{x.command}</Text>
            <Text dimColor> (running)</Text>
          </Text>
          {tailLines(x.output, 5).map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: live tail lines
            <Text key={i} dimColor wrap="truncate-end">{`  │ ${l}`}</Text>
          ))}
        </Box>
      ))}
      {snap.tools.map((t) => (
        <Text key={t.id} dimColor>{`→ ${t.tool}…`}</Text>
      ))}
      {snap.queued.map((q) => (
        <Text key={q.id} color={theme.user}>
          {"› "}
          <Text>{q.text}</Text>
          <Text dimColor> (queued — sent before the next model request)</Text>
        </Text>
      ))}
    </Box>
  );
}
