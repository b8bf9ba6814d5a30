/**
 * The history record of the user's own shell command (`!cmd`, app-server `thread/shellCommand`;
 * README "Your own commands: `!`"): the shape Codex records, a user message the model reads on
 * its next turn, which every surface shows as a command when it replays history.
 */

export interface UserCommandOutcome {
  command: string;
  output: string;
  exitCode: number | null;
  wallMs: number;
  interrupted: boolean;
  timedOut: boolean;
  error?: string;
}

/**
 * The history record of a user command, as Codex writes it (a user message the model reads on
 * its next turn): `<user_shell_command>` with `<command>` and `<result>` (exit code, duration,
 * output), plus a line saying the user interrupted it or it timed out.
 */
export function userCommandRecord(r: UserCommandOutcome): string {
  const lines = ["<user_shell_command>", "<command>", r.command, "</command>", "<result>"];
  if (r.error) lines.push(`Could not run: ${r.error}`);
  else {
    if (r.interrupted) lines.push("The user interrupted this command; its process tree was killed.");
    if (r.timedOut) lines.push("The command timed out; its process tree was killed.");
    lines.push(`Exit code: ${r.exitCode ?? "none"}`);
    lines.push(`Duration: ${(r.wallMs / 1000).toFixed(4)} seconds`);
    lines.push("Output:", r.output);
  }
  lines.push("</result>", "</user_shell_command>");
  return lines.join("\n");
}

export const USER_COMMAND_OPEN = "<user_shell_command>";

/** The command and output of a stored record (userCommandRecord), for surfaces showing history. */
export function parseUserCommandRecord(
  text: string,
): { command: string; output: string; exitCode: number | null; interrupted: boolean } | undefined {
  if (!text.startsWith(USER_COMMAND_OPEN)) return undefined;
  const m =
    /<command>\n([\s\S]*?)\n<\/command>\n<result>\n([\s\S]*)\n<\/result>\n<\/user_shell_command>$/.exec(text);
  if (!m) return undefined;
  const result = m[2];
  const exit = /^Exit code: (-?\d+)$/m.exec(result);
  const at = result.indexOf("Output:\n");
  return {
    command: m[1],
    output: at >= 0 ? result.slice(at + "Output:\n".length) : result,
    exitCode: exit ? Number(exit[1]) : null,
    interrupted: result.includes("The user interrupted this command"),
  };
}
