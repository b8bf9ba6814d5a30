/**
 * A used skill's dependencies as questions (docs/skills.md "Dependencies"): each missing
 * environment variable is a secret free-text question (its id is the variable's name), each
 * missing MCP server a Yes/No question to add it to config.toml, with the exact command or URL
 * shown. Pure: the runtime asks them (runtime/skill-use.ts).
 */
import type { Question } from "../protocol/questions.js";
import type { Skill, SkillDependencies } from "./types.js";

export const INSTALL_YES = "Yes, add it";
export const INSTALL_NO = "No";
export const MCP_QUESTION_PREFIX = "mcp:";

export function envQuestion(skill: Skill, v: SkillDependencies["env"][number]): Question {
  return {
    id: v.name,
    header: v.name.slice(0, 64),
    prompt: `The skill "${skill.name}" needs ${v.name}${v.description ? ` (${v.description})` : ""}. Its value is kept secret: the model never sees it; the skill's commands get it as $${v.name}.`,
    kind: "text",
    options: [],
    allow_other: true,
    secret: true,
  };
}

/** What `[mcp_servers.NAME]` would hold for `m`, or undefined when the skill gives no way to run it. */
export function mcpEntry(m: SkillDependencies["mcp"][number]): Record<string, unknown> | undefined {
  if (m.url) return { url: m.url };
  if (m.command) {
    const [command, ...args] = m.command.split(/\s+/).filter(Boolean);
    return command ? { command, args } : undefined;
  }
  return undefined;
}

export function mcpQuestion(skill: Skill, m: SkillDependencies["mcp"][number]): Question | undefined {
  const entry = mcpEntry(m);
  if (!entry) return undefined;
  // What would run, quoted exactly; the skill's own (model-writable) description comes after it,
  // quoted too, so it cannot pose as the command or as more lines of the question.
  const how = entry.url ? `URL ${JSON.stringify(entry.url)}` : `command ${JSON.stringify(m.command)}`;
  const said = m.description
    ? ` The skill describes it as ${JSON.stringify(m.description.slice(0, 200))}.`
    : "";
  return {
    id: `${MCP_QUESTION_PREFIX}${m.name}`,
    header: `MCP ${m.name}`.slice(0, 64),
    prompt: `The skill "${skill.name}" uses the MCP server "${m.name}", which is not configured. Add it to config.toml as [mcp_servers.${m.name}] with ${how}? It would run on your machine, outside the sandbox, in new threads.${said}`,
    kind: "single",
    options: [
      { label: INSTALL_YES, description: `Add [mcp_servers.${m.name}] (${how}); new threads start it` },
      { label: INSTALL_NO, description: "Do not add it; the skill is not used" },
    ],
    allow_other: false,
    secret: false,
  };
}
