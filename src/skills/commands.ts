/**
 * Custom commands: Markdown prompt files that become `/name` commands (docs/skills.md) — the
 * project's `.tandem/commands/*.md` and `.claude/commands/*.md` (nearest directory first, up to
 * the repository root), then `$TANDEM_HOME/prompts/*.md` (Codex's prompts folder). The first file
 * of a name wins. Optional frontmatter: `description`, `argument-hint` (Claude Code, Codex).
 *
 * Contract:
 * - Files are read through `readRegular` (bounded, regular files only); in the project a link
 *   leading outside it (or into `hidden`) is refused and reported; never throws.
 * - `expandCommand` substitutes `$ARGUMENTS` (everything after the name), `$1`…`$9` (the
 *   arguments split like a shell's words: quotes group), `$NAME` from `NAME=value` arguments
 *   (Codex's named placeholders), and `$$` → `$`. A placeholder without a value becomes empty.
 */
import { readdirSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { readRegular } from "../host/files.js";
import { confined } from "./discover.js";
import { splitFrontmatter } from "./frontmatter.js";
import type { CommandList, CustomCommand, SkillProblem, SkillScope } from "./types.js";

const MAX_PROMPT_BYTES = 64 * 1024;
const MAX_FILES = 500;
export const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

export interface CommandDirs {
  projectDirs: string[];
  home?: string;
  hidden?: readonly string[];
}

export function discoverCommands(o: CommandDirs): CommandList {
  const project = o.projectDirs[0];
  const roots: Array<{ dir: string; scope: SkillScope; confine?: string }> = [];
  for (const d of [...o.projectDirs].reverse())
    for (const sub of [".tandem", ".claude"])
      roots.push({ dir: join(d, sub, "commands"), scope: "repo", confine: project });
  if (o.home) roots.push({ dir: join(o.home, "prompts"), scope: "user" });
  const commands: CustomCommand[] = [];
  const problems: SkillProblem[] = [];
  for (const root of roots) {
    let names: string[];
    try {
      names = readdirSync(root.dir)
        .filter((n) => n.endsWith(".md"))
        .sort()
        .slice(0, MAX_FILES);
    } catch {
      continue;
    }
    if (root.confine && !confined(realOr(root.dir), root.confine, o.hidden)) {
      problems.push({ path: root.dir, message: "commands folder links outside the project; not followed" });
      continue;
    }
    for (const file of names) {
      const path = join(root.dir, file);
      const name = basename(file, ".md");
      if (!COMMAND_NAME.test(name)) {
        problems.push({ path, message: `"${name}" is not a command name (letters, digits, _ . : -)` });
        continue;
      }
      if (commands.some((c) => c.name === name)) continue;
      const within = root.confine ? { root: root.confine, exclude: o.hidden } : undefined;
      const read = readRegular(path, { maxBytes: MAX_PROMPT_BYTES, ...(within ? { within } : {}) });
      if (!read.ok) {
        if (read.reason !== "missing") problems.push({ path, message: read.message });
        continue;
      }
      const fm = splitFrontmatter(read.data.toString("utf8"));
      if (!fm.ok) {
        problems.push({ path, message: fm.reason });
        continue;
      }
      const description = typeof fm.fields.description === "string" ? fm.fields.description.trim() : "";
      const hint = fm.fields["argument-hint"];
      commands.push({
        name,
        description: description || firstLine(fm.body) || `prompt from ${path}`,
        ...(typeof hint === "string" && hint.trim() ? { argumentHint: hint.trim() } : {}),
        path,
        scope: root.scope,
        template: fm.body,
      });
    }
  }
  return { commands, problems };
}

/** The words of an argument string, split like a shell's (quotes group, no expansion). */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of s.matchAll(re))
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]));
  return out;
}

/** `command`'s prompt with `args` substituted (see the contract). */
export function expandCommand(command: Pick<CustomCommand, "template">, args: string): string {
  const words = splitArgs(args);
  const named = new Map<string, string>();
  for (const w of words) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(w);
    if (m) named.set(m[1], m[2]);
  }
  return command.template
    .replace(/\$(\$|ARGUMENTS\b|[1-9]|[A-Z][A-Z0-9_]*)/g, (all, key: string) => {
      if (key === "$") return "$";
      if (key === "ARGUMENTS") return args.trim();
      if (/^[1-9]$/.test(key)) return words[Number(key) - 1] ?? "";
      return named.has(key) ? (named.get(key) as string) : all;
    })
    .trim();
}

/** `/name args…` → the command and its argument text, when `text` invokes one of `commands`. */
export function matchCommand(
  text: string,
  commands: CustomCommand[],
): { command: CustomCommand; args: string } | undefined {
  const m = /^\/([^\s/]+)(?:[ \t]+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const command = commands.find((c) => c.name === m[1]);
  return command ? { command, args: m[2] ?? "" } : undefined;
}

function firstLine(body: string): string {
  const l = body.split("\n").find((x) => x.trim()) ?? "";
  return l
    .replace(/^#+\s*/, "")
    .trim()
    .slice(0, 80);
}

function realOr(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}
