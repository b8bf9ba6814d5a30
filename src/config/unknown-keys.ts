/**
 * Unknown keys in settings, each named with its full path and, when a known key of the same
 * table is a likely typo of it, that key ("did you mean …?"). Known keys are read from the schema
 * itself (schema.ts), so a new setting is known everywhere at once.
 *
 * - At the top level and in `[questions]` an unknown key is dropped with a warning (README
 *   "Configuration"): `pruneUnknown`.
 * - The other tables are strict (`[sandbox_workspace_write]`, `[shell_environment_policy]`,
 *   `[model_providers.X]`, `[mcp_servers.X]`, `[agents.X]`, `[store]`): a misspelt
 *   `include_only` or `disabled_tools` dropped silently would widen what commands and tools may
 *   do, so there it stays a configuration error — `unknownKeysMessage` words it.
 */
import type { ZodType } from "zod";
import { QuestionsConfig, Settings } from "./schema.js";
import { closest } from "./suggest.js";

interface Def {
  type: string;
  shape?: Record<string, ZodType>;
  valueType?: ZodType;
  innerType?: ZodType;
  out?: ZodType;
}
const defOf = (s: ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The object or record schema inside `s`'s wrappers (default, optional, prefault, pipe). */
function unwrap(s: ZodType | undefined): Def | undefined {
  for (let n = 0; s && n < 8; n++) {
    const def = defOf(s);
    if (def.type === "object" || def.type === "record") return def;
    s = def.innerType ?? def.out;
  }
  return undefined;
}

/** The keys the table at `path` (as zod reports paths) may hold, or [] when it is not a table. */
export function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let def = unwrap(Settings as unknown as ZodType);
  for (const seg of path) {
    if (def?.type === "object") def = unwrap(def.shape?.[String(seg)]);
    else if (def?.type === "record") def = unwrap(def.valueType);
    else return [];
  }
  return def?.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

/** A path as written in config.toml: `[agents.X]` role tables are parsed under `agents.roles`. */
function shown(path: readonly PropertyKey[]): string[] {
  const parts = path.map(String);
  return parts[0] === "agents" && parts[1] === "roles" ? ["agents", ...parts.slice(2)] : parts;
}

/** ` (did you mean "c"?)` when a known key is near `key`, else "". */
function hint(key: string, known: readonly string[]): string {
  const near = closest(key, known);
  return near ? ` (did you mean "${near}"?)` : "";
}

/** A zod `unrecognized_keys` issue at `path` as one message, with suggestions. */
export function unknownKeysMessage(path: readonly PropertyKey[], keys: readonly string[]): string {
  const known = knownKeysAt(path);
  const table = path.length ? shown(path).join(".") : "(root)";
  const each = keys.map((k) => `"${k}"${hint(k, known)}`).join(", ");
  return `${table}: unknown key${keys.length > 1 ? "s" : ""} ${each}`;
}

/** The warning for an unknown key that is dropped. */
function ignored(path: string[], key: string, known: readonly string[]): string {
  return `unknown config key "${[...path, key].join(".")}" ignored${hint(key, known)}`;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Settings as written without unknown top-level and `[questions]` keys; a warning for each. */
export function pruneUnknown(raw: Record<string, unknown>, warnings: string[]): Record<string, unknown> {
  const top = Object.keys(Settings.shape);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (top.includes(k)) out[k] = v;
    else warnings.push(ignored([], k, top));
  }
  if (isPlain(out.questions)) {
    const qk = Object.keys(QuestionsConfig.shape);
    const questions: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(out.questions)) {
      if (qk.includes(k)) questions[k] = v;
      else warnings.push(ignored(["questions"], k, qk));
    }
    out.questions = questions;
  }
  return out;
}
