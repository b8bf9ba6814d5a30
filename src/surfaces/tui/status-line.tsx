/**
 * The status line: model, collaboration mode, cwd, thread id, what the thread is doing
 * ("waiting on you" while a question is pending, Q9), token usage, and the demo marker. While a
 * sub-agent's transcript is shown, a line above says whose, how to go back, and where the
 * composer sends; the status is then the sub-agent's. Text that is not Tandem's own (a retry's
 * error message, a sub-agent's name, the model's name, the directory) passes
 * util/terminal-text.ts.
 */
import { Box, Text } from "ink";
import { useEffect, useState } from "react";
import { terminalText } from "../../util/terminal-text.js";
import { compact, shortPath } from "./format.js";
import { theme } from "./theme.js";
import type { Status } from "./view-store.js";

/** Spinner frames of the working indicator. */
export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 120;

/** Ticks while a turn runs (a spinner frame each time), for the elapsed time. */
function useElapsed(since: number | null): number | null {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (since === null) return;
    const id = setInterval(() => setNow(Date.now()), FRAME_MS);
    return () => clearInterval(id);
  }, [since]);
  return since === null ? null : Math.max(0, now - since);
}

/** Whole seconds, then minutes: "7s", "2m05s". */
export function elapsedText(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

export function stateLabel(status: Status, pendingQuestions: number): { text: string; color?: string } {
  if (pendingQuestions > 0 || status.state === "waiting_on_user")
    return { text: "waiting on you", color: theme.question };
  if (status.retrying) return { text: "retrying", color: theme.warn };
  if (status.state === "running") return { text: "working", color: theme.accent };
  return { text: status.state };
}

export function StatusLine({
  status,
  pending,
  hint,
  viewing,
}: {
  status: Status;
  pending: number;
  hint: string | null;
  /** The sub-agent shown and the key that goes back. */
  viewing?: { nickname: string; back: string };
}) {
  const elapsed = useElapsed(status.turnStartedAt);
  const state = stateLabel(status, pending);
  return (
    <Box flexDirection="column">
      {hint ? <Text color={theme.warn}>{hint}</Text> : null}
      {viewing ? (
        <Text color={theme.accent} wrap="truncate-end">
          {`viewing sub-agent ${terminalText(viewing.nickname)} — ${viewing.back}/\`/agents\` to go back · messages you send go to the main thread`}
        </Text>
      ) : null}
      {status.retrying ? (
        <Text color={theme.warn} wrap="truncate-end">
          {terminalText(status.retrying)}
        </Text>
      ) : null}
      <Text wrap="truncate-end">
        {status.demo ? (
          <Text color={theme.demo} bold>
            {"DEMO — scripted model, no API key · "}
          </Text>
        ) : null}
        {elapsed !== null && state.text === "working" ? (
          <Text color={state.color}>{`${SPINNER[Math.floor(elapsed / FRAME_MS) % SPINNER.length]} `}</Text>
        ) : null}
        <Text color={state.color} bold>
          {state.text}
        </Text>
        {elapsed !== null ? <Text dimColor>{` ${elapsedText(elapsed)}`}</Text> : null}
        <Text dimColor>{` · ${terminalText(status.model)} · `}</Text>
        <Text color={status.mode === "plan" ? theme.accent : undefined}>{`${status.mode} mode`}</Text>
        {status.plan ? <Text dimColor>{` · plan ${status.plan.done}/${status.plan.total}`}</Text> : null}
        {status.usage ? <Text dimColor>{` · ${compact(status.usage.total_tokens)} tokens`}</Text> : null}
        <Text dimColor>{terminalText(` · thread ${status.id} · ${shortPath(status.cwd)}`)}</Text>
      </Text>
    </Box>
  );
}
