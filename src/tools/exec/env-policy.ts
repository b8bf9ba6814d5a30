/**
 * The environment a model's command starts with (README "Sandbox and approvals"), Codex's
 * `shell_environment_policy` with Tandem's additions. Applied to Tandem's own environment,
 * in this order (Codex's):
 *
 * 1. `inherit`: `all` (every variable), `core` (only CORE_VARS, if set), `none` (nothing).
 * 2. Unless `ignore_default_excludes`, drop names matching DEFAULT_EXCLUDES — `*KEY*`,
 *    `*SECRET*`, `*TOKEN*` and Tandem's own `TANDEM_*` — and the exact names in
 *    `credential_vars` (the model provider's API-key variable, which may be named anything).
 * 3. Drop names matching `exclude`.
 * 4. Add `set` (these win over anything inherited, and are never excluded by 2–3).
 * 5. If `include_only` is non-empty, keep only names matching it (this applies to `set` too).
 *
 * Patterns are globs over the whole name, `*` = any run, `?` = one character, matched
 * case-insensitively. The caller adds the thread's secret handles (`TANDEM_SECRET_<id>`) and
 * the quiet-output variables AFTER this, so no policy can hide them (see launch.ts buildEnv).
 */

export type EnvInherit = "all" | "core" | "none";

/** Same shape as `Settings.shell_environment_policy` (config/ does not import tools/). */
export interface EnvPolicy {
  inherit: EnvInherit;
  ignore_default_excludes: boolean;
  exclude: string[];
  set: Record<string, string>;
  include_only: string[];
  /** Exact variable names dropped with the default excludes (provider API-key variables). */
  credential_vars?: string[];
}

/** What `inherit = "core"` keeps (Codex's list). */
export const CORE_VARS = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "USER",
  "USERNAME",
  "TMPDIR",
  "TEMP",
  "TMP",
] as const;

export const DEFAULT_EXCLUDES = ["*KEY*", "*SECRET*", "*TOKEN*", "TANDEM_*"] as const;

/** The policy when none is configured: inherit everything except secrets and Tandem's own. */
export const DEFAULT_ENV_POLICY: EnvPolicy = {
  inherit: "all",
  ignore_default_excludes: false,
  exclude: [],
  set: {},
  include_only: [],
};

/** Compiles a glob (`*`, `?`) into a whole-name, case-insensitive RegExp. */
export function globToRegExp(glob: string): RegExp {
  let src = "";
  for (const ch of glob) {
    if (ch === "*") src += ".*";
    else if (ch === "?") src += ".";
    else src += ch.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${src}$`, "is");
}

function matcher(globs: readonly string[]): (name: string) => boolean {
  const res = globs.map(globToRegExp);
  return (name) => res.some((re) => re.test(name));
}

/** The environment `vars` becomes under `policy` (steps 1–5 above). Pure; `vars` is not modified. */
export function applyEnvPolicy(
  vars: Record<string, string | undefined>,
  policy: EnvPolicy = DEFAULT_ENV_POLICY,
): Record<string, string> {
  const core = new Set<string>(CORE_VARS);
  // No prototype: a `set` key such as `__proto__` stays a plain entry.
  const env: Record<string, string> = Object.create(null);
  if (policy.inherit !== "none") {
    for (const [k, v] of Object.entries(vars)) {
      if (v !== undefined && (policy.inherit === "all" || core.has(k))) env[k] = v;
    }
  }
  if (!policy.ignore_default_excludes) {
    const isDefault = matcher(DEFAULT_EXCLUDES);
    const credentials = new Set(policy.credential_vars ?? []);
    for (const k of Object.keys(env)) if (isDefault(k) || credentials.has(k)) delete env[k];
  }
  if (policy.exclude.length > 0) {
    const excluded = matcher(policy.exclude);
    for (const k of Object.keys(env)) if (excluded(k)) delete env[k];
  }
  Object.assign(env, policy.set);
  if (policy.include_only.length > 0) {
    const included = matcher(policy.include_only);
    for (const k of Object.keys(env)) if (!included(k)) delete env[k];
  }
  return env;
}
