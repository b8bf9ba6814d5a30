/**
 * `tandem acp [-c k=v …] [-m model]` (requirements S5): an Agent Client Protocol (v1) agent over stdio, for
 * editors (Zed, JetBrains, Neovim plugins) that drive agents over ACP.
 *
 * Contract:
 * - stdin/stdout carry ACP JSON-RPC messages, one per line; every log line goes to stderr.
 * - EOF on stdin (the editor went away), SIGINT or SIGTERM or `io.signal` end the agent: sessions
 *   detach, then the shared shutdown (surfaces/shared/startup.ts: pending questions stay stored
 *   for the next process, Q11); exit 0, or 130/143 after SIGINT/SIGTERM.
 * - Exit codes: 0 after a clean stop, 2 for usage errors; a runtime that cannot start exits as
 *   startup.ts says (1 without an API key, 2 for configuration).
 */
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { watchStreams } from "../../util/log-wire.js";
import { runSurface, runtimeArgs, type StdioSurfaceIO, tandemVersion } from "../shared/startup.js";
import { AcpAgent } from "./agent.js";

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

export type AcpIO = StdioSurfaceIO;

export async function runAcp(argv: string[], io: Partial<AcpIO> = {}): Promise<number> {
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const args = runtimeArgs("acp", ACP_USAGE, argv, { stdout, stderr });
  if (typeof args === "number") return args;

  return runSurface(
    { name: "acp", flags: args, io: { ...io, stderr } },
    async ({ runtime, stopped, log }) => {
      const acp = new AcpAgent({ runtime, version: tandemVersion(), log });
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
      }
      return 0;
    },
  );
}
