/**
 * `tandem mcp-server [-c key=value]… [-m MODEL]` (requirements S7): Tandem as an MCP server over stdio, so
 * other agents can hand it tasks (tools.ts) and its questions reach their human (asker.ts).
 *
 * Contract:
 * - stdout carries MCP messages only; every log line goes to stderr.
 * - EOF on stdin (the host closing the connection), SIGINT or SIGTERM or `io.signal` end the
 *   server through the shared shutdown (surfaces/shared/startup.ts): running turns are
 *   interrupted (process trees killed), pending questions stay stored for the next process (Q11);
 *   exit 0, or 130/143 after SIGINT/SIGTERM.
 * - Questions go to the host as form elicitation only when it declared the `elicitation.form`
 *   capability at initialize; otherwise nobody is attached to answer (requirements Q3).
 * - Exit codes: 0 after a clean stop, 1 when it cannot serve, 2 for usage errors; a runtime that
 *   cannot start exits as startup.ts says (1 without an API key, 2 for configuration).
 */
import type { Readable, Writable } from "node:stream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Runtime } from "../../runtime/core.js";
import { watchTransport } from "../../util/log-wire.js";
import {
  runSurface,
  runtimeArgs,
  type StdioSurfaceIO,
  type SurfaceContext,
  tandemVersion,
} from "../shared/startup.js";
import { type McpAsker, mcpAsker } from "./asker.js";
import { registerTools } from "./tools.js";
import { TurnRunner } from "./turns.js";

export const MCP_SERVER_USAGE = `Usage: tandem mcp-server [-c key=value]... [-m MODEL]

Serves Tandem as an MCP server over stdio (for other agents and MCP hosts). Tools:
  tandem         run a task: a new thread, one turn to completion (prompt, cwd, mode, sandbox,
                 approval_policy, model); returns the final message and the thread id
  tandem_reply   continue a thread with a new prompt (threadId, prompt)
Tandem's questions and approvals go to the host as MCP elicitation forms when it supports them;
otherwise Tandem is told nobody can answer and approvals do not run (unavailable, not declined).

Options:
  -c, --config k=v      override a configuration value
  -m, --model MODEL     default model for new threads
  --log-file FILE       write the debug log to FILE (level: $TANDEM_LOG, else debug; README "Debugging")
  -h, --help            show this help

Example host configuration: {"command": "tandem", "args": ["mcp-server"]}`;

export type McpServerIO = StdioSurfaceIO;

export async function runMcpServer(argv: string[], io: Partial<McpServerIO> = {}): Promise<number> {
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;

  const args = runtimeArgs("mcp-server", MCP_SERVER_USAGE, argv, { stdout, stderr });
  if (typeof args === "number") return args;

  return runSurface({ name: "mcp-server", flags: args, io: { ...io, stderr } }, (ctx) =>
    serve(ctx.runtime, ctx, { stdin, stdout }),
  );
}

/** Serves MCP on stdin/stdout until the host goes away or the surface stops. */
async function serve(
  runtime: Runtime,
  ctx: Pick<SurfaceContext<never>, "stopped" | "log" | "after">,
  io: { stdin: Readable; stdout: Writable },
): Promise<number> {
  const { stdin, stdout } = io;
  const { log } = ctx;
  const server = new McpServer(
    { name: "tandem", title: "Tandem", version: tandemVersion() },
    {
      capabilities: { tools: {} },
      instructions:
        "Tandem is a coding agent. Call `tandem` with a task (and a cwd) to run it; continue with `tandem_reply` and the returned threadId.",
    },
  );
  // The runner needs to know whether the host answers forms, which it says at initialize.
  let runner: TurnRunner | undefined;
  let asker: McpAsker | undefined;
  const responder = { kind: "mcp-server" };
  const runnerFor = (): TurnRunner => {
    if (runner) return runner;
    const caps = server.server.getClientCapabilities();
    const client = server.server.getClientVersion()?.name;
    if (caps?.elicitation?.form)
      asker = mcpAsker({
        server: server.server,
        runtime,
        responder: { ...responder, id: client },
        log,
      });
    runner = new TurnRunner({
      runtime,
      asker,
      responder: { ...responder, ...(client ? { id: client } : {}) },
      defaultCwd: process.cwd(),
    });
    return runner;
  };
  registerTools(server, { runTurn: (spec, call) => runnerFor().runTurn(spec, call) });

  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
    void ctx.stopped.then(resolve);
  });
  // The SDK's stdio transport does not watch for EOF: the host closing stdin ends the server.
  stdin.once("end", stop);
  stdin.once("close", stop);

  let code = 0;
  const transport = watchTransport(new StdioServerTransport(stdin, stdout), "mcp-server", "stdio");
  transport.onerror = (err) => log(`transport: ${err.message}`);
  try {
    server.server.onclose = stop;
    // The SDK numbers this server's requests from 0, and its client side ignores
    // `notifications/cancelled` for request id 0 (a falsy check, modelcontextprotocol/typescript-sdk
    // #2283): a ping takes id 0, so every form (withdrawn when its question settles elsewhere) has
    // an id a host can cancel.
    server.server.oninitialized = () => void server.server.ping().catch(() => {});
    await server.connect(transport);
    await stopped;
  } catch (err) {
    log(`cannot serve: ${(err as Error).message}`);
    code = 1;
  } finally {
    stdin.off("end", stop);
    stdin.off("close", stop);
    asker?.close();
    ctx.after(() => server.close().catch(() => {}));
  }
  return code;
}
