/**
 * Matchers and tool names (README "Hooks"). A group's `matcher` is a regular expression that
 * must match a whole name, as in Claude Code: `Bash`, `Edit|Write`, `mcp__github__.*`; `*`, ""
 * or no matcher match everything. Tool hooks match the names users know from Claude Code and
 * Codex as well as Tandem's own: `exec_command` is also `Bash` (and `shell`); `apply_patch` is
 * also `Edit`, `Write` and `MultiEdit`; MCP tools are `mcp__<server>__<tool>` as the model sees
 * them. Events without a tool match another field (Notification: `notification_type`;
 * SessionStart: `source`; PreCompact/PostCompact: `trigger`).
 *
 * A hook sees `tool_name` as Claude Code names it where the tool has a Claude Code twin (`Bash`
 * with `tool_input.command`), else Tandem's name; `toolInput` / `fromToolInput` map arguments
 * to and from what the hook sees, so an `updatedInput` of `{"command": "…"}` rewrites the command.
 */
import type { HookDef } from "./types.js";

const ALIASES: Record<string, string[]> = {
  exec_command: ["Bash", "shell"],
  apply_patch: ["Edit", "Write", "MultiEdit"],
};

/** Every name `tool` answers to in a matcher. */
export function toolNames(tool: string): string[] {
  return [tool, ...(ALIASES[tool] ?? [])];
}

/** The `tool_name` a hook's input carries. */
export function hookToolName(tool: string): string {
  return tool === "exec_command" ? "Bash" : tool;
}

/** Whether `hook` applies to a subject known by any of `names` (see the module contract). */
export function matches(hook: Pick<HookDef, "matcher">, names: readonly string[]): boolean {
  const m = hook.matcher;
  if (m === undefined || m === "" || m === "*") return true;
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${m})$`);
  } catch {
    return false;
  }
  return names.some((n) => re.test(n));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The `tool_input` a hook sees for a call of `tool` with `args` (parsed JSON, or freeform text). */
export function toolInput(tool: string, args: unknown): Record<string, unknown> {
  if (typeof args === "string") return { input: args };
  if (!isObject(args)) return { input: args };
  if (tool === "exec_command" && typeof args.cmd === "string") return { command: args.cmd, ...args };
  return { ...args };
}

/**
 * The arguments a hook's `updatedInput` stands for. Fields it leaves out keep their values
 * (Claude Code's hooks often return only the fields they change); freeform tools take `input`.
 */
export function fromToolInput(tool: string, args: unknown, updated: unknown): unknown {
  if (!isObject(updated)) return args;
  if (typeof args === "string") return typeof updated.input === "string" ? updated.input : args;
  const base = isObject(args) ? args : {};
  if (tool === "exec_command") {
    const { command, ...rest } = updated;
    const next: Record<string, unknown> = { ...base, ...rest };
    if (typeof command === "string") next.cmd = command;
    return next;
  }
  return { ...base, ...updated };
}
