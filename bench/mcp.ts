/**
 * MCP startup cost (issue 12): time from thread start to the first model request with none, one
 * and five stdio MCP servers (server-everything) configured. Servers start concurrently when the
 * thread starts and the first request waits for them, so five should cost about what one does.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, resolveProvider } from "../src/config/load.js";
import type { ModelClient } from "../src/model/types.js";
import { Runtime } from "../src/runtime/core.js";
import { openStore } from "../src/store/index.js";
import { fmt, line, median } from "./stats.js";

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));
const EVERYTHING = join(
  import.meta.dirname,
  "../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

async function firstRequestMs(servers: number): Promise<number> {
  let sent: (() => void) | undefined;
  const first = new Promise<void>((r) => {
    sent = r;
  });
  const model: ModelClient = {
    async *stream() {
      sent?.();
      yield { type: "completed" };
    },
  };
  const home = tmp("tandem-bench-mcp-");
  const overrides = ["include_environment_context=false", "include_agents_md=false"];
  for (let i = 0; i < servers; i++)
    overrides.push(
      `mcp_servers.s${i}.command=${JSON.stringify(process.execPath)}`,
      `mcp_servers.s${i}.args=[${JSON.stringify(EVERYTHING)}]`,
    );
  const { settings } = loadConfig({ home, overrides });
  const rt = new Runtime({
    settings,
    store: openStore(join(home, "state.db")),
    model,
    provider: resolveProvider(settings, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }),
  });
  const t0 = performance.now();
  const thread = rt.startThread({ cwd: home });
  const turn = thread.startTurn("hi");
  await first;
  const ms = performance.now() - t0;
  await turn.done;
  await rt.shutdown();
  return ms;
}

export async function mcpStartup(runs = 5): Promise<void> {
  const base: number[] = [];
  const one: number[] = [];
  const five: number[] = [];
  for (let i = 0; i < runs; i++) {
    base.push(await firstRequestMs(0));
    one.push(await firstRequestMs(1));
    five.push(await firstRequestMs(5));
  }
  line(`thread start → first model request, no MCP server (n=${runs})`, `p50 ${fmt(median(base))}`);
  line(
    `thread start → first model request, 1 stdio MCP server (n=${runs})`,
    `p50 ${fmt(median(one))} (+${fmt(median(one) - median(base))})`,
    "one server adds < 150 ms",
  );
  line(
    `thread start → first model request, 5 stdio MCP servers (n=${runs})`,
    `p50 ${fmt(median(five))} (+${fmt(median(five) - median(base))})`,
  );
}
