/**
 * Agent roles (README "Sub-agents"): what `spawn_agent`'s `agent_type` may name.
 *
 * Contract:
 * - Roles come from `[agents.NAME]` in config and from `.tandem/agents/*.md` in the project (the
 *   thread's cwd): a front matter block (`description`, `model`, `effort`, `tools`, optional
 *   `name`) and the instructions as the body. The file's name (without `.md`) names the role
 *   unless the front matter says `name:`. A project file overrides a config role of the same name.
 * - `default` always exists (no instructions, every tool) unless a role of that name is defined.
 * - A file that cannot be read or parsed is skipped and reported in `problems` (never thrown):
 *   a bad role file must not stop a thread from starting.
 */
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { AgentRoleConfig, type AgentsConfig, configRoles } from "../../config/agents.js";
import { readRegular } from "../../host/files.js";

/** Largest role file read (a planted FIFO or huge file is refused, never waited on). */
const MAX_ROLE_BYTES = 256 * 1024;

export interface AgentRole {
  name: string;
  description: string;
  instructions?: string;
  model?: string;
  effort?: string;
  /** The only tools this role may use; undefined: all. */
  tools?: string[];
  /** Where it was defined: "config" or the file's path. */
  source: string;
}

export const DEFAULT_ROLE = "default";

export interface LoadedRoles {
  roles: Map<string, AgentRole>;
  problems: string[];
}

/** Roles for a thread in `cwd`: built-in default, then config, then `.tandem/agents/*.md`. */
export function loadRoles(agents: AgentsConfig, cwd: string, hidden: readonly string[] = []): LoadedRoles {
  const roles = new Map<string, AgentRole>();
  const problems: string[] = [];
  roles.set(DEFAULT_ROLE, {
    name: DEFAULT_ROLE,
    description: "A general sub-agent with the parent's tools",
    source: "built-in",
  });
  for (const [name, r] of Object.entries(configRoles(agents)))
    roles.set(name, { name, ...r, description: r.description ?? "", source: "config" });
  const dir = join(cwd, ".tandem", "agents");
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".md"));
  } catch {
    files = [];
  }
  for (const file of files.sort()) {
    const path = join(dir, file);
    try {
      // A link only to a file inside the workspace and outside Tandem's own state (`hidden`).
      const r = readRegular(path, { maxBytes: MAX_ROLE_BYTES, within: { root: cwd, exclude: hidden } });
      if (!r.ok) throw new Error(r.message);
      const role = parseRoleFile(r.data.toString("utf8"), basename(file, ".md"), path);
      roles.set(role.name, role);
    } catch (err) {
      problems.push(`${path}: ${(err as Error).message}`);
    }
  }
  return { roles, problems };
}

/**
 * One `.tandem/agents/NAME.md`: `---` front matter of `key: value` lines (`tools` as
 * `[a, b]` or `a, b`), then the instructions. Throws with a message naming the bad field.
 */
export function parseRoleFile(text: string, fallbackName: string, source: string): AgentRole {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  const fields: Record<string, unknown> = {};
  const body = (m ? m[2] : text).trim();
  if (m) {
    for (const line of m[1].split(/\r?\n/)) {
      if (!line.trim() || line.trim().startsWith("#")) continue;
      const kv = /^([A-Za-z_]+)\s*:\s*(.*)$/.exec(line);
      if (!kv) throw new Error(`front matter line "${line}" is not "key: value"`);
      const value = unquote(kv[2].trim());
      fields[kv[1]] = kv[1] === "tools" ? listOf(value) : value;
    }
  }
  const name = typeof fields.name === "string" && fields.name ? fields.name : fallbackName;
  delete fields.name;
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    throw new Error(`"${name}" is not a valid role name: use only letters, digits, _ and -`);
  const parsed = AgentRoleConfig.safeParse({ ...fields, ...(body ? { instructions: body } : {}) });
  if (!parsed.success)
    throw new Error(parsed.error.issues.map((i) => `${i.path.join(".") || "role"}: ${i.message}`).join("; "));
  return { name, ...parsed.data, source };
}

function unquote(v: string): string {
  return /^(["']).*\1$/.test(v) ? v.slice(1, -1) : v;
}

function listOf(v: string): string[] {
  const inner = v.startsWith("[") && v.endsWith("]") ? v.slice(1, -1) : v;
  return inner
    .split(",")
    .map((s) => unquote(s.trim()))
    .filter(Boolean);
}

/** The lines spawn_agent's description lists: `- name: description`. */
export function describeRoles(roles: Map<string, AgentRole>): string {
  return [...roles.values()]
    .map((r) => `- ${r.name}: ${r.description || "(no description)"}${r.model ? ` (model ${r.model})` : ""}`)
    .join("\n");
}
