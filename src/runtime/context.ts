/**
 * Initial context items recorded at thread start (SPEC L10): the environment context
 * (cwd, shell, date, timezone) and project instructions from AGENTS.md files found from the
 * repository root down to the cwd. Both are user-role messages, as in Codex.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { MessageItem } from "../protocol/items.js";

export function environmentContextItem(cwd: string, now = new Date()): MessageItem {
  const shell = basename(process.env.SHELL || "bash");
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const date = now.toISOString().slice(0, 10);
  const text = [
    "<environment_context>",
    `  <cwd>${cwd}</cwd>`,
    `  <shell>${shell}</shell>`,
    `  <current_date>${date}</current_date>`,
    `  <timezone>${tz}</timezone>`,
    "</environment_context>",
  ].join("\n");
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

/** Directories from the git root (or the cwd when not in a repo) down to `cwd`, top first. */
export function projectDirs(cwd: string): string[] {
  const dirs: string[] = [];
  let d = resolve(cwd);
  while (true) {
    dirs.unshift(d);
    if (existsSync(join(d, ".git"))) return dirs;
    const parent = dirname(d);
    if (parent === d) return [resolve(cwd)];
    d = parent;
  }
}

const MAX_AGENTS_BYTES = 64 * 1024;

/** The AGENTS.md files `agentsMdItem` reads for `cwd`, top first (Codex's `instructionSources`). */
export function agentsMdFiles(cwd: string): string[] {
  return projectDirs(cwd)
    .map((dir) => join(dir, "AGENTS.md"))
    .filter((file) => existsSync(file));
}

export function agentsMdItem(cwd: string): MessageItem | undefined {
  const parts: string[] = [];
  let total = 0;
  for (const dir of projectDirs(cwd)) {
    const file = join(dir, "AGENTS.md");
    if (!existsSync(file)) continue;
    let text = readFileSync(file, "utf8");
    if (total + text.length > MAX_AGENTS_BYTES) text = text.slice(0, Math.max(0, MAX_AGENTS_BYTES - total));
    total += text.length;
    if (text.trim()) parts.push(text.trim());
  }
  if (!parts.length) return undefined;
  const text = `# AGENTS.md instructions for ${cwd}\n\n<INSTRUCTIONS>\n${parts.join("\n\n")}\n</INSTRUCTIONS>`;
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

export const DEFAULT_BASE_INSTRUCTIONS = [
  "You are Tandem, a coding agent working in the user's repository through tools.",
  "Use exec_command to inspect and change files; keep changes minimal and verify them.",
  "When a decision needs the user and request_user_input is available, ask a short structured question instead of guessing.",
  "Respect the active sandbox and approval policy. Finish with a concise summary of what you did.",
].join("\n");
