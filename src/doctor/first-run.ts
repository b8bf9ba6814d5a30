/**
 * What the terminal UI says on a first day (README "First day: doctor and login"): the findings
 * `tandem doctor` would report that need no network — a $TANDEM_HOME that did not exist (made
 * now, 0700), bubblewrap missing where the sandbox needs it, no API key — each with its fix.
 * Synchronous and quick: it never runs a program or contacts the model, so it never holds the UI.
 */
import type { ResolvedProvider } from "../config/load.js";
import type { Settings } from "../config/schema.js";
import { findBwrap } from "../tools/exec/sandbox.js";
import { bwrapInstallHint, checkApiKey, checkHome } from "./local.js";

export interface FirstRunInput {
  home: string;
  /** Whether $TANDEM_HOME existed before this process started. */
  homeExisted: boolean;
  settings: Settings;
  provider: ResolvedProvider;
  env?: NodeJS.ProcessEnv;
}

/** One line per problem (`what — fix: …`), then a pointer to `tandem doctor`; [] when all is well. */
export function firstRunNotes(input: FirstRunInput): string[] {
  const env = input.env ?? process.env;
  const notes: string[] = [];
  if (!input.homeExisted) {
    const home = checkHome(input.home);
    notes.push(
      `first run: ${input.home} did not exist; ${home.status === "ok" ? "created it (mode 0700)" : home.found}`,
    );
  }
  if (input.settings.sandbox_mode !== "danger-full-access" && !findBwrap(env.PATH ?? ""))
    notes.push(
      `bubblewrap (bwrap) is not installed, so commands cannot run in the ${input.settings.sandbox_mode} sandbox — fix: ${bwrapInstallHint()}`,
    );
  const key = checkApiKey(input.home, input.provider, env);
  if (key.status !== "ok") notes.push(`${key.found} — fix: ${key.fix}`);
  if (notes.length) notes.push("`tandem doctor` checks the rest (the model server, the store, MCP servers).");
  return notes;
}
