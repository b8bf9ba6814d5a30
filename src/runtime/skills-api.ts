/**
 * `runtime.skills`: the skills and custom commands of a directory (docs/skills.md), discovered
 * fresh on every call (files are small and bounded; a new SKILL.md counts at once).
 *
 * Contract: never throws for what is on disk; problems come back as `problems` (path, reason).
 * Project discovery walks from `cwd` up to the repository root (`projectDirs`), never above it,
 * and never follows a link out of the project or into Tandem's home and store (`hidden`).
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ResponseItem } from "../protocol/items.js";
import { buildCatalog, type Catalog } from "../skills/catalog.js";
import { discoverCommands, expandCommand, matchCommand } from "../skills/commands.js";
import { discoverSkills } from "../skills/discover.js";
import type { CommandList, Skill, SkillList } from "../skills/types.js";
import { projectDirs } from "./context.js";
import type { ThreadSkills } from "./host.js";
import type { SkillUse } from "./skill-use.js";

export type { CommandList, CustomCommand, Skill, SkillList, SkillProblem } from "../skills/types.js";

export interface SkillsOptions {
  /** `$TANDEM_HOME`. */
  home?: string;
  /** Never followed into from the project (Tandem's home and store). */
  hidden: readonly string[];
  catalogBytes?: number;
}

export class SkillsApi {
  readonly #o: SkillsOptions;

  constructor(o: SkillsOptions) {
    this.#o = o;
  }

  /** The skills usable in `cwd`, nearest first, and the files that were skipped and why. */
  list(cwd: string): SkillList {
    return discoverSkills({
      projectDirs: projectDirs(resolve(cwd)),
      home: this.#o.home,
      userHome: process.env.HOME || homedir(),
      hidden: this.#o.hidden,
    });
  }

  /** The skill named `name` in `cwd`, if any. */
  get(cwd: string, name: string): Skill | undefined {
    return this.list(cwd).skills.find((s) => s.name === name);
  }

  /** The catalog the model sees for `cwd` (catalog.ts); undefined without skills. */
  catalog(cwd: string, skills = this.list(cwd).skills): Catalog | undefined {
    return buildCatalog(skills, this.#o.catalogBytes);
  }

  /** The custom commands usable in `cwd` (`/name`), and the files that were skipped and why. */
  commands(cwd: string): CommandList {
    return discoverCommands({
      projectDirs: projectDirs(resolve(cwd)),
      home: this.#o.home,
      hidden: this.#o.hidden,
    });
  }

  /**
   * The prompt `text` stands for when it invokes a custom command of `cwd` (`/name args…`), or
   * undefined when it does not (then it is sent as typed).
   */
  expand(cwd: string, text: string): { name: string; prompt: string } | undefined {
    const hit = matchCommand(text, this.commands(cwd).commands);
    return hit ? { name: hit.command.name, prompt: expandCommand(hit.command, hit.args) } : undefined;
  }
}

/** The threads' view of skills (host.ts ThreadSkills) over the API and the turn-time use. */
export function threadSkills(api: SkillsApi, use: SkillUse): ThreadSkills {
  return {
    catalog: (cwd) => {
      const c = api.catalog(cwd);
      if (!c) return undefined;
      const item: ResponseItem = {
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: c.text }],
      };
      return { item, ...(c.warning ? { warning: c.warning } : {}) };
    },
    expand: (cwd, text) => api.expand(cwd, text)?.prompt,
    prepare: (r) => use.prepare(r),
    problems: (cwd) => {
      const { skills, problems } = api.list(cwd);
      const warning = api.catalog(cwd, skills)?.warning;
      return [
        ...problems.map((p) => `skill ${p.path}: ${p.message}`),
        ...api.commands(cwd).problems.map((p) => `command ${p.path}: ${p.message}`),
        ...(warning ? [warning] : []),
      ];
    },
  };
}
