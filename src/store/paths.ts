/** Where the embedded store lives by default. */
import { homedir } from "node:os";
import { join } from "node:path";

/** `$TANDEM_HOME` when set and non-empty, else `~/.tandem`. */
export function tandemHome(): string {
  const env = process.env.TANDEM_HOME;
  return env ? env : join(homedir(), ".tandem");
}

/** `<home>/state.db`. */
export function defaultStorePath(home = tandemHome()): string {
  return join(home, "state.db");
}
