/**
 * Discovery of Agent Skills: folders holding a `SKILL.md` under each skills root (docs/skills.md):
 * the project's `.agents/skills/` and `.claude/skills/` in every directory from the cwd up to the
 * repository root (nearest first), then `$TANDEM_HOME/skills/` and `~/.agents/skills/`. The first
 * skill of a name wins.
 *
 * Contract:
 * - Workspace files are data the model may have written: every SKILL.md and agents/openai.yaml is
 *   read through `readRegular` (regular files only, bounded), and in the project, a skills root or
 *   skill folder that is a link leading outside the project (or into `hidden`: Tandem's home and
 *   store) is not followed — it is reported instead. Links under the user's own roots are followed.
 * - A SKILL.md whose frontmatter lacks `name` or `description`, or breaks the Agent Skills rules
 *   (validate.ts), is reported with its path and reason and skipped; never throws.
 */
import { type Dirent, readdirSync, realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { readRegular } from "../host/files.js";
import { splitFrontmatter } from "./frontmatter.js";
import type { Skill, SkillList, SkillProblem, SkillScope } from "./types.js";
import { dependenciesOf, validateSkill } from "./validate.js";

export const MAX_SKILL_BYTES = 256 * 1024;
const MAX_YAML_BYTES = 64 * 1024;
/** Skill folders looked at per root (a planted root of thousands of folders stays cheap). */
const MAX_ENTRIES = 500;

export interface SkillRoot {
  dir: string;
  scope: SkillScope;
  /** For project roots: links must stay inside this directory. */
  confine?: string;
}

export interface DiscoverOptions {
  /** Project directories from the repository root down to the cwd (runtime/context.ts `projectDirs`). */
  projectDirs: string[];
  /** `$TANDEM_HOME`. */
  home?: string;
  /** The user's home directory (`$HOME`). */
  userHome?: string;
  /** Paths a project link must never lead into. */
  hidden?: readonly string[];
}

/** The roots searched, in precedence order (see the module contract). */
export function skillRoots(o: DiscoverOptions): SkillRoot[] {
  const project = o.projectDirs[0];
  const roots: SkillRoot[] = [];
  for (const d of [...o.projectDirs].reverse())
    for (const sub of [".agents", ".claude"])
      roots.push({ dir: join(d, sub, "skills"), scope: "repo", confine: project });
  if (o.home) roots.push({ dir: join(o.home, "skills"), scope: "user" });
  if (o.userHome) roots.push({ dir: join(o.userHome, ".agents", "skills"), scope: "user" });
  return roots;
}

export function discoverSkills(o: DiscoverOptions): SkillList {
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  const seen = new Set<string>();
  const visited = new Set<string>();
  for (const root of skillRoots(o)) {
    const realRoot = realDir(root.dir);
    if (!realRoot || visited.has(realRoot)) continue;
    visited.add(realRoot);
    if (root.confine && !confined(realRoot, root.confine, o.hidden)) {
      problems.push({ path: root.dir, message: "skills folder links outside the project; not followed" });
      continue;
    }
    for (const entry of listDirs(root.dir)) {
      const dir = join(root.dir, entry.name);
      const real = realDir(dir);
      if (!real) continue;
      if (root.confine && !confined(real, root.confine, o.hidden)) {
        problems.push({ path: dir, message: "skill folder links outside the project; not followed" });
        continue;
      }
      const loaded = loadSkill(dir, root, o.hidden);
      if (!loaded) continue;
      if ("message" in loaded) problems.push(loaded);
      else if (!seen.has(loaded.name)) {
        seen.add(loaded.name);
        skills.push(loaded);
      }
    }
  }
  return { skills, problems };
}

/** One skill folder: its SKILL.md (undefined when there is none) or the problem with it. */
function loadSkill(
  dir: string,
  root: SkillRoot,
  hidden?: readonly string[],
): Skill | SkillProblem | undefined {
  const path = join(dir, "SKILL.md");
  const within = root.confine ? { root: root.confine, exclude: hidden } : undefined;
  const read = readRegular(path, { maxBytes: MAX_SKILL_BYTES, ...(within ? { within } : {}) });
  if (!read.ok) return read.reason === "missing" ? undefined : { path, message: read.message };
  const fm = splitFrontmatter(read.data.toString("utf8"));
  if (!fm.ok) return { path, message: fm.reason };
  if (!fm.present)
    return { path, message: "no frontmatter: SKILL.md starts with `---`, name and description" };
  const yamlRead = readRegular(join(dir, "agents", "openai.yaml"), {
    maxBytes: MAX_YAML_BYTES,
    ...(within ? { within } : {}),
  });
  const deps = dependenciesOf(fm.fields, yamlRead.ok ? yamlRead.data.toString("utf8") : undefined);
  if (!deps.ok) return { path, message: deps.reason };
  const v = validateSkill(fm.fields, dirName(dir));
  if (!v.ok) return { path, message: v.reason };
  return {
    ...v.skill,
    path,
    dir,
    scope: root.scope,
    dependencies: deps.deps,
    ...(deps.shortDescription && !v.skill.shortDescription
      ? { shortDescription: deps.shortDescription }
      : {}),
  };
}

function listDirs(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith("."))
      .sort((a, b) => a.name.localeCompare(b.name))
      .slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
}

function realDir(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** Whether `real` lies under the project (really) and under none of `hidden`. */
export function confined(real: string, project: string, hidden: readonly string[] = []): boolean {
  const under = (d: string) => {
    const r = realDir(d) ?? d;
    return real === r || real.startsWith(r.endsWith(sep) ? r : r + sep);
  };
  return under(project) && !hidden.some(under);
}

function dirName(dir: string): string {
  return dir.split(sep).filter(Boolean).at(-1) ?? dir;
}
