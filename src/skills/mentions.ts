/**
 * Explicit use of a skill: `$name` in the user's text (Codex's skill mention), or a `skill` input
 * item from a client. The skill's SKILL.md body is attached to the turn as one user message after
 * the user's own, so the model has it without reading the file.
 *
 * Contract: only names of discovered skills count (`$HOME`, `$1` or an unknown `$word` are text);
 * each skill is attached once per turn, in order of first mention.
 */
import { splitFrontmatter } from "./frontmatter.js";
import type { Skill } from "./types.js";

const MENTION = /(^|[^\w$])\$([a-z0-9]+(?:-[a-z0-9]+)*)(?![\w-])/g;

/** Names mentioned as `$name` in `text`, in order, without repeats. */
export function mentionedNames(text: string): string[] {
  const out: string[] = [];
  // `$1`, `$2`… are positional parameters in shell text, never skill mentions.
  for (const m of text.matchAll(MENTION)) if (!/^\d+$/.test(m[2]) && !out.includes(m[2])) out.push(m[2]);
  return out;
}

/** The skills of `skills` that `text` mentions, plus those named explicitly, without repeats. */
export function mentionedSkills(text: string, skills: Skill[], explicit: string[] = []): Skill[] {
  const byName = new Map(skills.map((s) => [s.name, s]));
  const out: Skill[] = [];
  for (const n of [...explicit, ...mentionedNames(text)]) {
    const s = byName.get(n);
    if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

/** The text attached for `skill` whose SKILL.md read as `fileText`. */
export function skillAttachment(skill: Skill, fileText: string): string {
  const fm = splitFrontmatter(fileText);
  const body = (fm.ok ? fm.body : fileText).trim();
  return `<skill>\n<name>${skill.name}</name>\n<path>${skill.path}</path>\n${body}\n</skill>`;
}
