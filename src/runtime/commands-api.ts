/**
 * `runtime.commands`: one command a surface's client asks for outside any turn (the app
 * server's `command/exec`), run by tools/exec/standalone.ts under the configured sandbox.
 *
 * Contract:
 * - The sandbox is the configuration's (`sandbox_mode`, `sandbox_workspace_write` roots and
 *   network) unless the caller names a mode (a client may ask for another, as it may for a
 *   thread); Tandem's home and store stay protected and hidden as for every command.
 * - The environment follows `shell_environment_policy`, with the provider's key variable dropped.
 * - A command that cannot start (no sandbox to be had, a bad cwd) rejects with StandaloneError.
 */
import type { Settings } from "../config/schema.js";
import type { SandboxMode } from "../tools/exec/sandbox.js";
import { runStandalone, type StandaloneHandle, type StandaloneOptions } from "../tools/exec/standalone.js";

export type { StandaloneHandle, StandaloneResult } from "../tools/exec/standalone.js";
export { StandaloneError } from "../tools/exec/standalone.js";

export interface CommandExecOptions extends Omit<StandaloneOptions, "policy" | "envPolicy"> {
  /** The sandbox mode; default `sandbox_mode` of the configuration. */
  sandbox?: SandboxMode;
  /** Network access in the sandbox; default the configuration's. */
  network?: boolean;
  /** Writable roots besides `cwd` (workspace-write); default the configuration's. */
  writableRoots?: string[];
}

export class CommandsApi {
  constructor(
    private readonly p: {
      settings: Settings;
      protectedPaths: string[];
      hiddenPaths: string[];
      credentialVar: string;
    },
  ) {}

  /** Starts one command (see the contract). */
  exec(opts: CommandExecOptions): Promise<StandaloneHandle> {
    const s = this.p.settings;
    const { sandbox, network, writableRoots, ...rest } = opts;
    return runStandalone({
      ...rest,
      policy: {
        mode: sandbox ?? s.sandbox_mode,
        writableRoots: writableRoots ?? s.sandbox_workspace_write.writable_roots ?? [],
        network: network ?? s.sandbox_workspace_write.network_access,
        protectedPaths: this.p.protectedPaths,
        hiddenPaths: s.sandbox_workspace_write.readable_home ? [] : this.p.hiddenPaths,
      },
      envPolicy: { ...s.shell_environment_policy, credential_vars: [this.p.credentialVar] },
    });
  }
}
