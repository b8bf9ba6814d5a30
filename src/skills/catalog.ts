/**
 * The skills catalog the model sees (progressive disclosure, docs/skills.md): one line per skill
 * — name, description, SKILL.md path — inside a developer message recorded at thread start. The
 * model reads a SKILL.md with its own tools when a task matches; the body is never sent up front.
 *
 * Contract: the catalog's text is at most `budget` bytes (UTF-8). When the full lines do not fit,
 * descriptions are shortened (to 200, then 60 characters), then the last skills are left out and a
 * final line says how many; `warning` then says what was cut, for the surfaces to show.
 */
import type { Skill } from "./types.js";

export const CATALOG_MARKER = "<skills_catalog>";
export const DEFAULT_CATALOG_BUDGET = 8 * 1024;

const HEAD = [
  CATALOG_MARKER,
  "Skills are folders of instructions, scripts and references for particular tasks. Each line below is",
  "`- name: description (file: path to its SKILL.md)`. When a task matches a skill's description, or the",
  "user names one as `$name`, read its SKILL.md with your tools before acting and follow it; paths in it",
  "are relative to the skill's folder. Read only what the task needs (references/ files on demand).",
].join("\n");
const TAIL = "</skills_catalog>";

export interface Catalog {
  text: string;
  /** Skills listed (the first `listed` of the input). */
  listed: number;
  shortened: boolean;
  warning?: string;
}

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

function line(s: Skill, max: number): string {
  const flat = s.description.replace(/\s+/g, " ").trim();
  const d = flat.length > max ? `${flat.slice(0, Math.max(1, max - 1)).trimEnd()}…` : flat;
  return `- ${s.name}: ${d} (file: ${s.path})`;
}

/** The catalog of `skills` within `budget` bytes (see the contract); undefined when there are none. */
export function buildCatalog(skills: Skill[], budget = DEFAULT_CATALOG_BUDGET): Catalog | undefined {
  if (!skills.length) return undefined;
  for (const max of [Number.POSITIVE_INFINITY, 200, 60]) {
    const text = [HEAD, ...skills.map((s) => line(s, max)), TAIL].join("\n");
    if (bytes(text) <= budget)
      return {
        text,
        listed: skills.length,
        shortened: max !== Number.POSITIVE_INFINITY,
        ...(max !== Number.POSITIVE_INFINITY
          ? { warning: `skills catalog over ${budget} bytes: descriptions shortened to ${max} characters` }
          : {}),
      };
  }
  // Still too long: list as many as fit with short descriptions, and say how many are left out.
  const lines: string[] = [];
  let size = bytes(HEAD) + bytes(TAIL) + 2;
  const omittedLine = (n: number) =>
    `- … ${n} more skills not listed (\`tandem skills list\` shows them all)`;
  for (let i = 0; i < skills.length; i++) {
    const l = line(skills[i], 60);
    const reserve = bytes(omittedLine(skills.length - i)) + 1;
    if (size + bytes(l) + 1 + reserve > budget) break;
    lines.push(l);
    size += bytes(l) + 1;
  }
  const left = skills.length - lines.length;
  const text = [HEAD, ...lines, omittedLine(left), TAIL].join("\n");
  return {
    text,
    listed: lines.length,
    shortened: true,
    warning: `skills catalog over ${budget} bytes: ${left} of ${skills.length} skills left out, descriptions shortened`,
  };
}
