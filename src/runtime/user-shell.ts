/**
 * The user's own shell command as a turn of its own (README "Your own commands: `!`"): one
 * `command_execution` item streamed like a model-run command (item.started, exec.output_delta,
 * item.completed), then recorded in history as Codex records it (protocol/user-command.ts), so
 * the model sees the command and its output on the next turn. Full access, no approval: the
 * user typed it (tools/exec/user-command.ts). Interrupting the turn kills the command and keeps
 * what it printed.
 */
import type { TurnOutcome } from "../agent/turn.js";
import { emptyUsage } from "../protocol/events.js";
import { userMessage } from "../protocol/items.js";
import { userCommandRecord } from "../protocol/user-command.js";
import { runUserCommand } from "../tools/exec/user-command.js";
import type { ThreadHost } from "./host.js";
import type { Thread } from "./thread.js";
import { toolContext } from "./tool-context.js";
import type { ActiveTurn } from "./types.js";

export interface UserShell {
  command: string;
  /** Active time the command may run (default one hour, as Codex's `timeoutMs`). */
  timeoutMs?: number | null;
}

/** Runs `shell` in `turn` (Thread.shell launched it); resolves how the turn ended. */
export async function runUserShell(
  host: ThreadHost,
  thread: Thread,
  turn: ActiveTurn,
  shell: UserShell,
): Promise<TurnOutcome> {
  const id = host.ids.item("cmd");
  const base = { thread_id: thread.id, turn_id: turn.id };
  thread.emit({
    type: "item.started",
    ...base,
    item: {
      id,
      type: "command_execution",
      command: shell.command,
      aggregated_output: "",
      exit_code: null,
      status: "in_progress",
    },
  });
  const call = { type: "function_call" as const, name: "user_shell", call_id: id, arguments: "{}" };
  const ctx = toolContext(host, thread, turn, call, turn.ctrl.signal);
  const s = host.settings;
  const r = await runUserCommand(shell.command, ctx, {
    envPolicy: { ...s.shell_environment_policy, credential_vars: [host.provider.envKey] },
    timeoutMs: shell.timeoutMs,
  });
  thread.recordItem(userMessage(userCommandRecord(r)), turn.id);
  thread.emit({
    type: "item.completed",
    ...base,
    item: {
      id,
      type: "command_execution",
      command: shell.command,
      aggregated_output: r.output,
      exit_code: r.exitCode,
      status: r.exitCode === 0 && !r.interrupted && !r.timedOut ? "completed" : "failed",
      ...(r.interrupted ? { interrupted: true } : {}),
    },
  });
  return { status: r.interrupted ? "interrupted" : "completed", usage: emptyUsage() };
}
