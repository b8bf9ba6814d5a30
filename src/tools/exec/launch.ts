/**
 * Pre-flight for `exec_command`: which shell, which directory, which environment. Each check
 * returns a model-facing message instead of throwing, so mistakes come back as outputs.
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { applyEnvPolicy, type EnvPolicy } from "./env-policy.js";

/** Variables that keep command output plain and non-interactive for the model. */
export const QUIET_ENV = { NO_COLOR: "1", TERM: "dumb", PAGER: "cat", GIT_PAGER: "cat" } as const;

/**
 * The command environment: process.env filtered by the shell environment policy (see
 * env-policy.ts), then each of `layers` (configured env, the thread's secret handles — Q10),
 * then QUIET_ENV; later entries win. Layers come after the policy so that no policy can hide a
 * secret handle the model was given.
 */
export function buildEnv(
  policy: EnvPolicy | undefined,
  ...layers: Array<Record<string, string | undefined>>
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const layer of [applyEnvPolicy(process.env, policy), ...layers, QUIET_ENV]) {
    for (const [k, v] of Object.entries(layer)) if (v !== undefined) env[k] = v;
  }
  // Node gives the child a socket as stdin; bash then runs ~/.bashrc (its "started by sshd"
  // rule) unless SHLVL says it is nested. A policy that drops SHLVL must not turn that on.
  env.SHLVL ??= "1";
  return env;
}

export type Checked = { ok: true; path: string } | { ok: false; error: string };

/** `workdir` resolved against the turn cwd; must be an existing directory. */
export async function resolveWorkdir(cwd: string, workdir: string | undefined): Promise<Checked> {
  const path = resolve(cwd, workdir ?? ".");
  try {
    const s = await stat(path);
    if (!s.isDirectory()) return { ok: false, error: `workdir ${path} is not a directory` };
    return { ok: true, path };
  } catch {
    return { ok: false, error: `workdir ${path} does not exist; pass an existing directory or omit workdir` };
  }
}

/** Finds `shell` (a path, or a name looked up in `PATH`) and checks it is executable. */
export async function resolveShell(
  shell: string,
  cwd: string,
  path = process.env.PATH ?? "",
): Promise<Checked> {
  const candidates = shell.includes("/")
    ? [isAbsolute(shell) ? shell : resolve(cwd, shell)]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, shell));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return { ok: true, path: candidate };
    } catch {
      // Try the next one.
    }
  }
  return {
    ok: false,
    error: `shell ${shell} was not found or is not executable; omit shell to use the default`,
  };
}
