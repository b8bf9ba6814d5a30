/**
 * `tandem acp [-c k=v …] [-m model]` (SPEC S5): an Agent Client Protocol (v1) agent over stdio, for
 * editors (Zed, JetBrains, Neovim plugins) that drive agents over ACP.
 *
 * Contract:
 * - stdin/stdout carry ACP JSON-RPC messages, one per line; every log line goes to stderr.
 * - EOF on stdin (the editor went away), SIGINT or SIGTERM (util/signals.ts) or `io.signal` end the
 *   agent: sessions detach, the runtime shuts down (pending questions stay stored for the next
 *   process, Q11); exit 0, or 130/143 after SIGINT/SIGTERM.
 * - Exit codes: 0 after a clean stop, 1 when the runtime cannot start (no API key, store error),
 *   2 for usage or configuration errors.
 */
import { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { runtimeFromFlags } from "../../runtime/create.js";
import { argError } from "../../util/cli-args.js";
import { startLog } from "../../util/log-file.js";
import { watchStreams } from "../../util/log-wire.js";
import { aborted, STOP_DETAIL, stopOnSignals } from "../../util/signals.js";
import { AcpAgent } from "./agent.js";

declare const __TANDEM_VERSION__: string | undefined;

export const ACP_USAGE = `Usage: tandem acp [-c key=value]... [-m MODEL]

Runs Tandem as an Agent Client Protocol (ACP v1) agent over stdio, for editors that drive agents
over ACP (Zed, JetBrains, Neovim plugins). Point the editor's agent command at \`tandem acp\`.
Sessions are Tandem threads: session/load takes any thread id from \`tandem threads\`. Modes:
default and plan. Approvals arrive as permission requests; questions as forms when the editor
supports form elicitation.

Options:
  -c, --config k=v      override a configuration value (repeatable)
  -m, --model MODEL     default model for new sessions
  --log-file FILE       write the debug log to FILE (level: $TANDEM_LOG, else debug; README "Debugging")
  -h, --help            show this help`;

export interface AcpIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Stops the agent when aborted. Without it, SIGINT/SIGTERM of this process do. */
  signal?: AbortSignal;
}

export async function runAcp(argv: string[], io: Partial<AcpIO> = {}): Promise<number> {
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const env = io.env ?? process.env;
  const log = (line: string) => stderr.write(`tandem acp: ${line}\n`);

  let args: { config?: string[]; model?: string; "log-file"?: string; help?: boolean };
  try {
    args = parseArgs({
      args: argv,
      options: {
        config: { type: "string", short: "c", multiple: true },
        model: { type: "string", short: "m" },
        "log-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    stderr.write(`tandem acp: ${argError(err)}\n\n${ACP_USAGE}\n`);
    return 2;
  }
  if (args.help) {
    stdout.write(`${ACP_USAGE}\n`);
    return 0;
  }
  startLog({ surface: "acp", file: args["log-file"], env, warn: log });

  const runtime = runtimeFromFlags(args, env, log);
  if (typeof runtime === "number") return runtime;

  const version = typeof __TANDEM_VERSION__ === "string" ? __TANDEM_VERSION__ : "0.0.0";
  const acp = new AcpAgent({ runtime, version, log });
  // In-process use stops through io.signal; a process through SIGINT/SIGTERM (util/signals.ts).
  const signals = io.signal ? undefined : stopOnSignals("acp", { detail: STOP_DETAIL });
  const stopped = aborted(io.signal ?? signals!.signal);
  const stream = watchStreams(
    ndJsonStream(
      Writable.toWeb(stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(stdin) as ReadableStream<Uint8Array>,
    ),
    "acp",
    "stdio",
  );
  const connection = acp.app.connect(stream);
  try {
    await Promise.race([stopped, connection.closed]);
  } finally {
    acp.close();
    connection.close();
    await runtime.shutdown();
    signals?.dispose();
  }
  return signals?.exitCode ?? 0;
}
