/**
 * Hooks: programs the user configured to run at named points of a thread (README "Hooks"), in
 * the Claude Code / Codex `hooks.json` format. These are the shapes every hooks/ module shares.
 */

/** The events Tandem fires, named as in Claude Code's and Codex's hooks.json. */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PreCompact",
  "PostCompact",
  "SubagentStop",
  "Stop",
  "Notification",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Where a hook was configured. `project` hooks run only once the user trusted their file. */
export type HookScope = "user" | "project";

export interface HookSource {
  /** Absolute path of the file (config.toml for inline `[hooks]` tables). */
  path: string;
  scope: HookScope;
  /** SHA-256 (hex) of the file's exact bytes: what trust is remembered by. */
  sha256: string;
  /** `trusted` / `untrusted` / `modified` (trusted before, changed since); user files are `trusted`. */
  trust: "trusted" | "untrusted" | "modified";
}

/** One command hook, flattened out of its event and matcher group. */
export interface HookDef {
  event: HookEvent;
  /** The group's matcher as written (undefined, "" and "*" match everything). */
  matcher: string | undefined;
  command: string;
  timeoutSec: number;
  source: HookSource;
  /** Stable name: `<path>#<event>[<group>].hooks[<n>]`. */
  key: string;
}

export interface LoadedHooks {
  hooks: HookDef[];
  sources: HookSource[];
  /** Things skipped while loading (unknown events, unsupported types, bad matchers…). */
  warnings: string[];
  /** Files that could not be read or parsed (nothing of theirs is loaded). */
  errors: Array<{ path: string; message: string }>;
}

/** What a hook's input JSON always holds (Claude Code's common fields, plus Tandem's ids). */
export interface CommonInput {
  session_id: string;
  thread_id: string;
  turn_id?: string;
  cwd: string;
  hook_event_name: HookEvent;
}

export const DEFAULT_TIMEOUT_SEC = 60;
