/**
 * A thread's MCP servers (README "MCP servers"): started together when the thread is attached, their
 * tools registered as they come, closed with the thread.
 *
 * Contract:
 * - `startMcpServers` starts every enabled server concurrently and returns at once. `ready`
 *   resolves (never rejects) when each has connected or failed — at the latest after the slowest
 *   server's `startup_timeout_sec` — so a turn that waits on it never waits longer than that.
 * - Each server is reported exactly once through `emit`: `mcp.status` ready (with its tool count)
 *   or failed (with the reason); a failed server's tools are simply not offered.
 * - `close()` closes every connection, including ones still starting (they close as they arrive);
 *   after it, nothing is registered or emitted.
 */
import type { McpServerConfig } from "../../config/schema.js";
import type { Event } from "../../protocol/events.js";
import type { FunctionTool } from "../types.js";
// The MCP SDK (~12 MiB, ~200 ms of CPU to load) is imported when a server starts, not with the runtime.
import type { ElicitHandler, McpConnection, McpTool } from "./connection.js";
import { assignToolNames, sanitizeName } from "./names.js";
import { type ActiveCalls, mcpTool } from "./tool.js";

export interface StartMcpOptions {
  threadId: string;
  servers: Record<string, McpServerConfig>;
  register(tool: FunctionTool<Record<string, unknown>>): void;
  emit(event: Event): void;
  /** The thread's writable roots, asked when a server lists roots. */
  roots(): string[];
  /** Builds a server's elicitation handler from its running calls (tools/mcp/elicit.ts). */
  elicitation?(server: string, activeCalls: ActiveCalls): ElicitHandler;
  env?: NodeJS.ProcessEnv;
}

export interface McpServers {
  ready: Promise<void>;
  close(): Promise<void>;
}

export function startMcpServers(opts: StartMcpOptions): McpServers {
  const entries = Object.entries(opts.servers).filter(([, c]) => c.enabled);
  const closer = new AbortController();
  const connections: McpConnection[] = [];
  /** Failed servers' processes being killed: `close()` waits for them too. */
  const cleanups: Array<Promise<void>> = [];
  const taken = new Set<string>();
  let closed = false;

  const offer = (server: string, config: McpServerConfig, c: McpConnection, calls: ActiveCalls) => {
    const known = new Set<string>();
    return (tools: McpTool[]): number => {
      const fresh = tools.filter((t) => !known.has(t.name));
      const names = assignToolNames(
        sanitizeName(server),
        fresh.map((t) => t.name),
        taken,
      );
      fresh.forEach((tool, i) => {
        known.add(tool.name);
        opts.register(mcpTool({ name: names[i], server, tool, config, connection: c, activeCalls: calls }));
      });
      return known.size;
    };
  };

  const startOne = async ([server, config]: [string, McpServerConfig]): Promise<void> => {
    const calls: ActiveCalls = [];
    const status = (s: { status: "ready"; tools: number } | { status: "failed"; error: string }) =>
      !closed &&
      opts.emit({
        type: "mcp.status",
        thread_id: opts.threadId,
        server,
        ...(s.status === "ready"
          ? { status: "ready", tools: s.tools }
          : { status: "failed", tools: 0, error: s.error }),
      });
    const { McpConnection, McpStartError } = await import("./connection.js");
    try {
      const c = await McpConnection.connect({
        name: server,
        config,
        roots: opts.roots,
        signal: closer.signal,
        env: opts.env,
        ...(opts.elicitation ? { onElicit: opts.elicitation(server, calls) } : {}),
      });
      if (closed) {
        await c.close();
        return;
      }
      connections.push(c);
      const add = offer(server, config, c, calls);
      c.onToolsChanged = (tools) => {
        if (!closed) add(tools);
      };
      status({ status: "ready", tools: add(c.tools) });
    } catch (err) {
      if (err instanceof McpStartError) cleanups.push(err.closed);
      status({ status: "failed", error: (err as Error).message });
    }
  };

  const ready = Promise.all(entries.map(startOne)).then(() => {});
  return {
    ready,
    async close() {
      if (closed) return;
      closed = true;
      closer.abort();
      await ready;
      await Promise.all([...connections.map((c) => c.close()), ...cleanups]);
    },
  };
}
