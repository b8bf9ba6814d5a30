/**
 * YAML frontmatter of a Markdown file (SKILL.md, a prompt file): `---` on the first line, YAML,
 * a closing `---`, then the body. Files are taken as their authors wrote them (Agent Skills,
 * Claude Code, Codex), so a file without frontmatter is a body with no fields.
 *
 * Contract: never throws; bad YAML or a non-mapping frontmatter is `{ ok: false, reason }`.
 */
import { parseYaml } from "./yaml.js";

export type Frontmatter =
  | { ok: true; fields: Record<string, unknown>; body: string; present: boolean }
  | { ok: false; reason: string };

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /\r?\n---[ \t]*(?:\r?\n|$)/;

export function splitFrontmatter(text: string): Frontmatter {
  const open = OPEN.exec(text);
  if (!open) return { ok: true, fields: {}, body: text, present: false };
  const rest = text.slice(open[0].length);
  // An empty frontmatter block closes on the very next line.
  const close = rest.startsWith("---") ? { index: -1, len: 0 } : null;
  const m = close ? null : CLOSE.exec(rest);
  if (!close && !m) return { ok: false, reason: "frontmatter is not closed by a `---` line" };
  const yamlText = m ? rest.slice(0, m.index) : "";
  const body = m ? rest.slice(m.index + m[0].length) : rest.replace(/^---[ \t]*\r?\n?/, "");
  let value: unknown;
  try {
    value = parseYaml(yamlText, { maxAliasCount: 50 });
  } catch (err) {
    return { ok: false, reason: `invalid YAML in frontmatter: ${firstLine((err as Error).message)}` };
  }
  if (value === null || value === undefined) return { ok: true, fields: {}, body, present: true };
  if (typeof value !== "object" || Array.isArray(value))
    return { ok: false, reason: "frontmatter is not a mapping of fields" };
  return { ok: true, fields: value as Record<string, unknown>, body, present: true };
}

function firstLine(s: string): string {
  return s.split("\n")[0] ?? s;
}
