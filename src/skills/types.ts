/**
 * The shapes of skills (Agent Skills `SKILL.md` folders) and custom commands (Markdown prompt
 * files) as Tandem discovers them (docs/skills.md).
 */

/** Where a skill was found: `user` (Tandem's home, ~/.agents/skills) or `repo` (the project). */
export type SkillScope = "user" | "repo";

/** What a skill needs before it runs: environment variables and MCP servers (Codex `dependencies`). */
export interface SkillDependencies {
  env: Array<{ name: string; description?: string }>;
  mcp: Array<{ name: string; description?: string; transport?: string; command?: string; url?: string }>;
}

export interface Skill {
  name: string;
  description: string;
  /** The SKILL.md file, absolute. */
  path: string;
  /** The skill's folder (scripts/, references/ … are relative to it). */
  dir: string;
  scope: SkillScope;
  /** Frontmatter `allowed-tools`, as written (space-separated in the Agent Skills format). */
  allowedTools?: string;
  /** Frontmatter `metadata` (string values only). */
  metadata: Record<string, string>;
  /** A short description for lists (Codex `interface.short_description` or `metadata.short-description`). */
  shortDescription?: string;
  dependencies: SkillDependencies;
}

/** A file that was found but not loaded, and why (shown as a warning). */
export interface SkillProblem {
  path: string;
  message: string;
}

export interface SkillList {
  skills: Skill[];
  problems: SkillProblem[];
}

/** A custom command: `/name` expands the prompt file's body with its arguments. */
export interface CustomCommand {
  name: string;
  description: string;
  argumentHint?: string;
  path: string;
  scope: SkillScope;
  /** The body, frontmatter removed. */
  template: string;
}

export interface CommandList {
  commands: CustomCommand[];
  problems: SkillProblem[];
}
