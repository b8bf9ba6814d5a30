/**
 * Tandem's skills as Codex app-server `SkillMetadata` (skills/list), field for field with the
 * schema: Tandem scopes are `user` and `repo`; dependencies are Codex's `tools` entries.
 */
import type { Skill } from "../../runtime/skills-api.js";

export function codexSkill(s: Skill) {
  const tools = [
    ...s.dependencies.env.map((e) => ({
      type: "env_var",
      value: e.name,
      description: e.description ?? null,
    })),
    ...s.dependencies.mcp.map((m) => ({
      type: "mcp",
      value: m.name,
      description: m.description ?? null,
      transport: m.transport ?? null,
      command: m.command ?? null,
      url: m.url ?? null,
    })),
  ];
  return {
    name: s.name,
    description: s.description,
    shortDescription: s.shortDescription ?? null,
    path: s.path,
    scope: s.scope,
    enabled: true,
    interface: s.shortDescription ? { shortDescription: s.shortDescription } : null,
    dependencies: tools.length ? { tools } : null,
  };
}
