/**
 * Initial context items recorded at thread start (requirements L10): the environment context
 * (cwd, shell, date, timezone) and project instructions from AGENTS.md files found from the
 * repository root down to the cwd. Both are user-role messages, as in Codex.
 */
import { existsSync, readlinkSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { readRegularText } from "../host/files.js";
import type { MessageItem } from "../protocol/items.js";

export function environmentContextItem(cwd: string, now = new Date()): MessageItem {
  const shell = basename(process.env.SHELL || "bash");
  const tz = localTimeZone();
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

/**
 * The zone named by a /etc/localtime link target (`/usr/share/zoneinfo/Europe/Paris`), UTC's
 * aliases as ICU names them ("UTC"); undefined when the target is not under a zoneinfo folder.
 */
export function zoneFromLocaltimeLink(target: string): string | undefined {
  const zone = /(?:^|\/)zoneinfo\/(?:posix\/|right\/)?([A-Za-z][A-Za-z0-9_+\-/]*)$/.exec(target)?.[1];
  if (!zone) return undefined;
  return /^(Etc\/)?(UTC|UCT|Universal|Zulu)$/.test(zone) ? "UTC" : zone;
}

/**
 * The machine's time zone. Starting ICU (`Intl.DateTimeFormat`) costs ~20 ms, a tenth of a
 * short `tandem exec`, so without $TZ the /etc/localtime link (what ICU itself reads) answers;
 * with $TZ, or no link, ICU does.
 */
export function localTimeZone(env: NodeJS.ProcessEnv = process.env): string {
  if (!env.TZ) {
    try {
      const zone = zoneFromLocaltimeLink(readlinkSync("/etc/localtime"));
      if (zone) return zone;
    } catch {
      // not a link (a copied zone file) or absent
    }
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** Temp dirs every sandboxed command may write (see tools/exec/sandbox.ts). */
const tempRoots = () => [...new Set([tmpdir(), "/tmp", "/var/tmp", "/dev/shm"].map((p) => realOr(p)))];

/**
 * Directories from the git root (or the cwd when not in a repo) down to `cwd`, top first.
 * The walk up never enters a temp dir's tree above the cwd: a `.git` (and AGENTS.md) that a
 * sandboxed command planted in `/tmp` or a parent under it must not become the project of
 * every workspace below it.
 */
export function projectDirs(cwd: string): string[] {
  const start = resolve(cwd);
  const temps = tempRoots();
  const inTemp = (p: string) => {
    const d = realOr(p);
    return temps.some((t) => d === t || d.startsWith(t.endsWith(sep) ? t : t + sep));
  };
  const dirs: string[] = [];
  let d = start;
  while (true) {
    dirs.unshift(d);
    if (existsSync(join(d, ".git"))) return dirs;
    const parent = dirname(d);
    if (parent === d || inTemp(parent)) return [start];
    d = parent;
  }
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

const MAX_AGENTS_BYTES = 64 * 1024;

/** The AGENTS.md files `agentsMdItem` reads for `cwd`, top first (Codex's `instructionSources`). */
export function agentsMdFiles(cwd: string): string[] {
  return projectDirs(cwd)
    .map((dir) => join(dir, "AGENTS.md"))
    .filter((file) => existsSync(file));
}

/**
 * The project instructions for `cwd`. AGENTS.md files are read as data: regular files only (a
 * planted FIFO must not hang the thread's start), bounded, and a link only when it leads to a
 * file inside the project and outside `hidden` (Tandem's home and store, which a model-made
 * link must not bring into the model's context).
 */
export function agentsMdItem(cwd: string, hidden: readonly string[] = []): MessageItem | undefined {
  const parts: string[] = [];
  let total = 0;
  const dirs = projectDirs(cwd);
  const within = { root: dirs[0], exclude: hidden };
  for (const dir of dirs) {
    const file = join(dir, "AGENTS.md");
    let text = readRegularText(file, { maxBytes: MAX_AGENTS_BYTES, truncate: true, within });
    if (text === undefined) continue;
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
