/**
 * `tandem doctor`'s checks, in the order a newcomer meets them (README "First day: doctor and
 * login"): home, node, config, bwrap, api-key, model, store, mcp. A configuration that does not
 * load stops the checks that need it (their failure would only repeat it). Never throws.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, type LoadedConfig, loadConfig, resolveProvider, tandemHome } from "../config/load.js";
import { loadApiKey } from "../runtime/credentials.js";
import { checkApiKey, checkBwrap, checkHome, checkNode } from "./local.js";
import { checkMcp, checkModel, checkStore } from "./probes.js";
import type { Check } from "./types.js";

export type { Check } from "./types.js";

export interface DoctorOptions {
  overrides?: string[];
  env?: NodeJS.ProcessEnv;
  /** `--store`: checked instead of `store.url` / the home's state.db. */
  store?: string;
}

export async function runDoctor(opts: DoctorOptions = {}): Promise<Check[]> {
  const env = opts.env ?? process.env;
  const home = env.TANDEM_HOME || tandemHome();
  const checks: Check[] = [checkHome(home), checkNode()];
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig({ overrides: opts.overrides, home });
  } catch (err) {
    const message = err instanceof ConfigError ? err.message : String(err);
    checks.push({
      name: "config",
      status: "fail",
      found: message,
      fix: `fix ${join(home, "config.toml")} (or the -c values)`,
    });
    return checks;
  }
  const { settings, warnings } = loaded;
  checks.push(
    warnings.length
      ? {
          name: "config",
          status: "warn",
          found: warnings.join("; "),
          fix: `fix ${join(home, "config.toml")}`,
        }
      : {
          name: "config",
          status: "ok",
          found: existsSync(join(home, "config.toml"))
            ? `${join(home, "config.toml")} loads`
            : `no ${join(home, "config.toml")}: the defaults apply`,
        },
  );
  checks.push(await checkBwrap(settings, env.PATH ?? ""));
  const provider = resolveProvider(settings, env);
  checks.push(checkApiKey(home, provider, env));
  let apiKey = provider.apiKey;
  try {
    apiKey ??= loadApiKey(home, provider.id);
  } catch {}
  checks.push(await checkModel(settings, provider, apiKey));
  checks.push(checkStore(opts.store ?? settings.store?.url ?? join(home, "state.db")));
  checks.push(...(await checkMcp(settings)));
  return checks;
}
