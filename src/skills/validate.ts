/**
 * The Agent Skills rules for SKILL.md frontmatter (agentskills.io specification), and a skill's
 * dependencies: Codex's `agents/openai.yaml` (`dependencies.tools`: `env_var` and `mcp` entries,
 * `interface.short_description`) or frontmatter `metadata` keys `requires-env` / `requires-mcp`
 * (space-separated names; metadata values are strings in the format).
 *
 * Contract: pure; a broken rule is `{ ok: false, reason }` naming the field.
 */
import type { Skill, SkillDependencies } from "./types.js";
import { parseYaml } from "./yaml.js";

export const MAX_NAME = 64;
export const MAX_DESCRIPTION = 1024;
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** An environment variable name a skill may ask for. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** An MCP server name as `[mcp_servers.NAME]` takes it. */
const MCP_NAME = /^[A-Za-z0-9_-]{1,64}$/;

type Fields = Record<string, unknown>;
type Valid = Omit<Skill, "path" | "dir" | "scope" | "dependencies">;

export function validateSkill(
  f: Fields,
  folder: string,
): { ok: true; skill: Valid } | { ok: false; reason: string } {
  const name = f.name;
  if (typeof name !== "string" || !name.trim()) return bad("frontmatter `name` is required");
  if (name.length > MAX_NAME) return bad(`\`name\` is longer than ${MAX_NAME} characters`);
  if (!NAME.test(name))
    return bad(
      `\`name\` "${name}" must be lowercase letters, digits and single hyphens (not at the start or end)`,
    );
  if (name !== folder) return bad(`\`name\` "${name}" must match its folder's name "${folder}"`);
  const description = f.description;
  if (typeof description !== "string" || !description.trim())
    return bad("frontmatter `description` is required (what the skill does and when to use it)");
  if (description.length > MAX_DESCRIPTION)
    return bad(`\`description\` is longer than ${MAX_DESCRIPTION} characters`);
  const metadata: Record<string, string> = {};
  if (f.metadata !== undefined && f.metadata !== null) {
    if (typeof f.metadata !== "object" || Array.isArray(f.metadata))
      return bad("`metadata` must be a mapping of keys to strings");
    for (const [k, v] of Object.entries(f.metadata as Fields))
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") metadata[k] = String(v);
  }
  const tools = f["allowed-tools"];
  if (tools !== undefined && typeof tools !== "string" && !Array.isArray(tools))
    return bad("`allowed-tools` must be a space-separated string");
  const short = metadata["short-description"];
  return {
    ok: true,
    skill: {
      name,
      description: description.trim(),
      metadata,
      ...(tools !== undefined ? { allowedTools: Array.isArray(tools) ? tools.join(" ") : tools } : {}),
      ...(short ? { shortDescription: short } : {}),
    },
  };
}

/** The skill's dependencies from its frontmatter and `agents/openai.yaml` text (if any). */
export function dependenciesOf(
  f: Fields,
  openaiYaml: string | undefined,
): { ok: true; deps: SkillDependencies; shortDescription?: string } | { ok: false; reason: string } {
  const deps: SkillDependencies = { env: [], mcp: [] };
  let shortDescription: string | undefined;
  const meta = (f.metadata ?? {}) as Fields;
  for (const n of words(meta["requires-env"])) {
    if (!ENV_NAME.test(n))
      return bad(`metadata \`requires-env\`: "${n}" is not an environment variable name`);
    deps.env.push({ name: n });
  }
  for (const n of words(meta["requires-mcp"])) {
    if (!MCP_NAME.test(n)) return bad(`metadata \`requires-mcp\`: "${n}" is not an MCP server name`);
    deps.mcp.push({ name: n });
  }
  if (openaiYaml !== undefined) {
    let doc: unknown;
    try {
      doc = parseYaml(openaiYaml, { maxAliasCount: 50 });
    } catch (err) {
      return bad(`agents/openai.yaml: invalid YAML: ${(err as Error).message.split("\n")[0]}`);
    }
    const d = (doc ?? {}) as Fields;
    const iface = (d.interface ?? {}) as Fields;
    if (typeof iface.short_description === "string") shortDescription = iface.short_description;
    const tools = ((d.dependencies ?? {}) as Fields).tools;
    for (const t of Array.isArray(tools) ? tools : []) {
      const e = (t ?? {}) as Fields;
      const value = typeof e.value === "string" ? e.value : "";
      const description = typeof e.description === "string" ? e.description : undefined;
      if (e.type === "env_var") {
        if (!ENV_NAME.test(value))
          return bad(`agents/openai.yaml: env_var "${value}" is not an environment variable name`);
        if (!deps.env.some((x) => x.name === value)) deps.env.push({ name: value, ...opt({ description }) });
      } else if (e.type === "mcp") {
        if (!MCP_NAME.test(value)) return bad(`agents/openai.yaml: mcp "${value}" is not an MCP server name`);
        const str = (k: string) => (typeof e[k] === "string" ? (e[k] as string) : undefined);
        if (!deps.mcp.some((x) => x.name === value))
          deps.mcp.push({
            name: value,
            ...opt({ description, transport: str("transport"), command: str("command"), url: str("url") }),
          });
      }
    }
  }
  return { ok: true, deps, ...(shortDescription ? { shortDescription } : {}) };
}

function words(v: unknown): string[] {
  return typeof v === "string" ? v.split(/[\s,]+/).filter(Boolean) : [];
}

function opt<T extends Record<string, string | undefined>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function bad(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
