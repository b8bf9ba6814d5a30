/**
 * The one start-up and shutdown path of every surface that runs threads (`tandem exec`, `serve`,
 * `app-server`, `acp`, `mcp-server`, the TUI). Each surface parses its own arguments and keeps
 * what is its own; this owns the rest, so they cannot drift apart (README "Stopping Tandem").
 *
 * Contract of `runSurface(opts, body)`:
 * - Starts the debug log (`--log-file`, $TANDEM_LOG; util/log-file.ts) before anything else.
 * - Builds the runtime from the flags (`-c`/`--config`, `-m`/`--model`, `--store`, `--node-id`):
 *   settings (config.toml ← overrides), the store, the model client (runtime/create.ts). Each
 *   configuration warning is one `tandem NAME: warning: …` line on stderr. It cannot start →
 *   one `tandem NAME: …` line and the exit code, `body` never runs: 1 without an API key, 2 for a
 *   configuration error or a store the user must fix (cannot open, unknown schema), 1 otherwise.
 *   `opts.create` replaces this step (the TUI offers the demo when there is no key).
 * - `opts.cluster` (for `--bus`) joins a cluster once the runtime exists; if it fails, the runtime
 *   shuts down and the exit code is 2 for a bus configuration error, else 1.
 * - Stopping: `io.signal` (in-process use) or else the first SIGINT/SIGTERM of this process
 *   (util/signals.ts, bounded by `graceMs`) aborts `ctx.signal`; the body returns once it has
 *   stopped what is its own.
 * - Shutdown, always and in this order: the runtime (running commands are killed; pending
 *   questions are cancelled in this process but stay stored for the next one, requirements Q11; a
 *   cluster node releases its leases), each `ctx.after` step, the cluster, the signal handlers.
 *   A failing step is logged, never thrown.
 * - Resolves with 130/143 after SIGINT/SIGTERM, else the body's code (1 if it threw, after one
 *   `tandem NAME: …` line).
 */
import { createRequire } from "node:module";
import type { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { BusConfigError, type BusSettings } from "../../cluster/bus-connect.js";
import { ConfigError } from "../../config/load.js";
import type { Runtime } from "../../runtime/core.js";
import { createRuntime, MissingKeyError } from "../../runtime/create.js";
import { StoreError } from "../../runtime/errors.js";
import { argError } from "../../util/cli-args.js";
import { startLog } from "../../util/log-file.js";
import { aborted, DEFAULT_GRACE_MS, STOP_DETAIL, stopOnSignals } from "../../util/signals.js";

declare const __TANDEM_VERSION__: string | undefined;

/** The flags every surface that runs threads takes (node:util parseArgs options). */
export const RUNTIME_FLAGS = {
  config: { type: "string", short: "c", multiple: true },
  model: { type: "string", short: "m" },
  "log-file": { type: "string" },
} as const;
/** Where threads are stored and this node's name on their leases (serve, app-server). */
export const STORE_FLAGS = {
  store: { type: "string" },
  "node-id": { type: "string" },
} as const;

export interface RuntimeFlags {
  config?: string[];
  model?: string;
  /** The debug log's file (README "Debugging"); the level comes from $TANDEM_LOG, else debug. */
  "log-file"?: string;
  store?: string;
  "node-id"?: string;
}

export interface SurfaceIO {
  env: NodeJS.ProcessEnv;
  stderr: { write(text: string): unknown };
  /** Stops the surface when aborted (in-process use). Without it, SIGINT/SIGTERM of this process do. */
  signal?: AbortSignal;
}

/** A surface that speaks on stdin/stdout (acp, mcp-server, app-server over stdio). */
export interface StdioSurfaceIO extends SurfaceIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/**
 * Joins a cluster over the bus for a process that does not listen for HTTP itself (`tandem
 * app-server --bus`; the CLI passes src/main/cluster-join.ts, since surfaces do not import each other).
 */
export type JoinCluster = (
  runtime: Runtime,
  opts: {
    bus: BusSettings;
    clusterToken?: string;
    node?: string;
    version: string;
    log: (line: string) => void;
  },
) => Promise<{ close(): Promise<void> }>;

/**
 * The arguments of a surface that takes only the runtime flags and `-h`: the flags, or the exit
 * code after printing the usage (0 for `--help` on stdout, 2 for a bad argument on stderr).
 */
export function runtimeArgs(
  name: string,
  usage: string,
  argv: string[],
  io: Pick<StdioSurfaceIO, "stdout" | "stderr">,
): RuntimeFlags | number {
  let values: RuntimeFlags & { help?: boolean };
  try {
    values = parseArgs({
      args: argv,
      options: { ...RUNTIME_FLAGS, help: { type: "boolean", short: "h" } },
    }).values;
  } catch (err) {
    io.stderr.write(`tandem ${name}: ${argError(err)}\n\n${usage}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  return values;
}

export interface SurfaceOptions<K> {
  /** The command's name in messages: `tandem NAME: …`. */
  name: string;
  flags: RuntimeFlags;
  io?: Partial<SurfaceIO>;
  /** Builds the runtime instead of the flags (after saying why itself, it may return an exit code). */
  create?: (log: (line: string) => void) => Promise<Runtime | number>;
  cluster?: (runtime: Runtime, log: (line: string) => void) => Promise<K>;
  /** How long shutdown may take after a signal before the process exits anyway. */
  graceMs?: number;
}

export interface SurfaceContext<K> {
  runtime: Runtime;
  cluster: K | undefined;
  signal: AbortSignal;
  /** Resolves when `signal` aborts. */
  stopped: Promise<void>;
  log(line: string): void;
  /** A step of shutdown that runs after the runtime's, before the cluster's. */
  after(step: () => unknown): void;
}

/** The package version: inlined by the bundler; from package.json when running sources. */
export function tandemVersion(): string {
  if (typeof __TANDEM_VERSION__ === "string") return __TANDEM_VERSION__;
  const require = createRequire(import.meta.url);
  for (const candidate of ["../package.json", "../../../package.json"]) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === "tandem" && pkg.version) return pkg.version;
    } catch {
      /* try the next layout: bundled dist/ or sources */
    }
  }
  return "0.0.0";
}

/** What `runSurface` does to start a runtime from flags, for callers that say the outcome themselves. */
export function openRuntime(
  flags: RuntimeFlags,
  env: NodeJS.ProcessEnv,
  extra: string[] = [],
): { ok: true; runtime: Runtime; warnings: string[] } | { ok: false; code: number; error: Error } {
  const overrides = [...(flags.config ?? [])];
  if (flags.model) overrides.push(`model=${JSON.stringify(flags.model)}`);
  overrides.push(...extra);
  try {
    const created = createRuntime({
      overrides,
      env,
      home: env.TANDEM_HOME || undefined,
      store: flags.store,
      node: flags["node-id"],
    });
    return { ok: true, runtime: created.runtime, warnings: created.warnings };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return { ok: false, code: startFailureCode(error), error };
  }
}

/** 1 without an API key; 2 for configuration and a store the user must fix; 1 otherwise. */
export function startFailureCode(err: unknown): number {
  if (err instanceof MissingKeyError) return 1;
  if (err instanceof ConfigError) return 2;
  if (StoreError.isInstance(err) && (err.code === "open" || err.code === "schema")) return 2;
  return 1;
}

export async function runSurface<K extends { close(): Promise<void> } = { close(): Promise<void> }>(
  opts: SurfaceOptions<K>,
  body: (ctx: SurfaceContext<K>) => Promise<number>,
): Promise<number> {
  const env = opts.io?.env ?? process.env;
  const stderr = opts.io?.stderr ?? process.stderr;
  const log = (line: string) => stderr.write(`tandem ${opts.name}: ${line}\n`);
  startLog({ surface: opts.name, file: opts.flags["log-file"], env, warn: log });

  let runtime: Runtime;
  if (opts.create) {
    const made = await opts.create(log);
    if (typeof made === "number") return made;
    runtime = made;
  } else {
    const opened = openRuntime(opts.flags, env);
    if (!opened.ok) {
      log(opened.error.message);
      return opened.code;
    }
    for (const w of opened.warnings) log(`warning: ${w}`);
    runtime = opened.runtime;
  }

  let cluster: K | undefined;
  if (opts.cluster) {
    try {
      cluster = await opts.cluster(runtime, log);
    } catch (err) {
      log((err as Error).message);
      await runtime.shutdown().catch((e) => log(`shutdown: ${(e as Error).message}`));
      return err instanceof BusConfigError ? 2 : 1;
    }
  }

  // In-process use stops through io.signal; a process through SIGINT/SIGTERM (util/signals.ts).
  const signals = opts.io?.signal
    ? undefined
    : stopOnSignals(opts.name, { detail: STOP_DETAIL, graceMs: opts.graceMs ?? DEFAULT_GRACE_MS });
  const signal = opts.io?.signal ?? signals!.signal;
  const after: Array<() => unknown> = [];
  let code: number;
  try {
    code = await body({
      runtime,
      cluster,
      signal,
      stopped: aborted(signal),
      log,
      after: (s) => after.push(s),
    });
  } catch (err) {
    log((err as Error)?.message ?? String(err));
    code = 1;
  } finally {
    const steps = [() => runtime.shutdown(), ...after, ...(cluster ? [() => cluster.close()] : [])];
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        log(`shutdown: ${(err as Error)?.message ?? String(err)}`);
      }
    }
    signals?.dispose();
  }
  return signals?.exitCode ?? code;
}
