/**
 * MCP startup cost (README "MCP servers"): time from thread start to the first model request with none, one
 * and five stdio MCP servers configured. Servers start concurrently when the thread starts and the
 * first request waits for them, so five should cost about what one does.
 *
 * To tell the server's own startup from Tandem's client, the same servers are also timed outside
 * Tandem (spawn → `initialize` answered → `tools/list` answered, raw JSON-RPC lines), and a minimal
 * server (test/fixtures/mcp-odd-server.mjs: raw JSON-RPC, no SDK, answers at once) stands in for a
 * server that costs only a node process. Tandem's own part is what a server adds inside Tandem
 * beyond what it costs alone. The servers alone get the environment Tandem gives a server without
 * `env` (the SDK's default: HOME, PATH, …), since variables such as NODE_EXTRA_CA_CERTS can slow a
 * node process's start by a few hundred milliseconds. The very first thread of the process is
 * printed on its own: it also loads the MCP SDK (the runtime loads it only when a server starts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
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
const MINIMAL = join(import.meta.dirname, "../test/fixtures/mcp-odd-server.mjs");
type Server = { script: string; args: string[] };
const everything: Server = { script: EVERYTHING, args: [] };
const minimal: Server = { script: MINIMAL, args: ["malformed"] };

async function firstRequestMs(servers: Server[]): Promise<number> {
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
  servers.forEach((s, i) => {
    overrides.push(
      `mcp_servers.s${i}.command=${JSON.stringify(process.execPath)}`,
      `mcp_servers.s${i}.args=${JSON.stringify([s.script, ...s.args])}`,
    );
  });
  const { settings } = loadConfig({ home, overrides });
  const rt = new Runtime({
    settings,
    store: openStore(join(home, "state.db")),
    model,
    provider: resolveProvider(settings, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }),
  });
  const t0 = performance.now();
  const thread = rt.threads.start({ cwd: home });
  const turn = thread.startTurn("hi");
  await first;
  const ms = performance.now() - t0;
  await turn.done;
  await rt.shutdown();
  return ms;
}

/** A server alone, outside Tandem: spawn → `initialize` answered, and → `tools/list` answered. */
async function standaloneMs(s: Server): Promise<{ init: number; list: number }> {
  // Imported here, not with this module, so the first thread's figure includes loading the SDK.
  const { getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const t0 = performance.now();
  const p = spawn(process.execPath, [s.script, ...s.args], {
    stdio: ["pipe", "pipe", "ignore"],
    env: getDefaultEnvironment(),
  });
  const lines = createInterface({ input: p.stdout });
  const answered = (id: number) =>
    new Promise<void>((r) =>
      lines.on("line", (l) => {
        try {
          if (JSON.parse(l).id === id) r();
        } catch {}
      }),
    );
  const send = (m: object) => p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  const init = answered(1);
  send({
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: { roots: {}, elicitation: {} },
      clientInfo: { name: "bench", version: "1" },
    },
  });
  await init;
  const tInit = performance.now() - t0;
  send({ method: "notifications/initialized" });
  const list = answered(2);
  send({ id: 2, method: "tools/list", params: {} });
  await list;
  const tList = performance.now() - t0;
  await new Promise<void>((r) => {
    p.once("exit", () => r());
    p.kill();
  });
  return { init: tInit, list: tList };
}

const signed = (ms: number) => (ms < 0 ? `-${fmt(-ms)}` : fmt(ms));

export async function mcpStartup(runs = 5): Promise<void> {
  const cold = await firstRequestMs([minimal]);
  const t = { base: [], one: [], five: [], min: [], alone: [], aloneMin: [] } as Record<string, number[]>;
  const initAlone: number[] = [];
  const initAloneMin: number[] = [];
  for (let i = 0; i < runs; i++) {
    t.base.push(await firstRequestMs([]));
    t.one.push(await firstRequestMs([everything]));
    t.five.push(await firstRequestMs(Array(5).fill(everything)));
    t.min.push(await firstRequestMs([minimal]));
    const a = await standaloneMs(everything);
    initAlone.push(a.init);
    t.alone.push(a.list);
    const m = await standaloneMs(minimal);
    initAloneMin.push(m.init);
    t.aloneMin.push(m.list);
  }
  const base = median(t.base);
  const plus = (xs: number[]) => `p50 ${fmt(median(xs))} (+${fmt(median(xs) - base)})`;
  line(`thread start → first model request, no MCP server (n=${runs})`, `p50 ${fmt(base)}`);
  line(
    `thread start → first model request, 1 stdio MCP server (n=${runs})`,
    plus(t.one),
    "one server adds < 150 ms",
  );
  line(`thread start → first model request, 5 stdio MCP servers (n=${runs})`, plus(t.five));
  line(
    "  server-everything alone: spawn → initialize → tools/list",
    `${fmt(median(initAlone))} → ${fmt(median(t.alone))}`,
  );
  line(
    "  Tandem's part with server-everything (added − alone)",
    signed(median(t.one) - base - median(t.alone)),
  );
  line(`thread start → first model request, 1 minimal stdio server (n=${runs})`, plus(t.min));
  line(
    "  minimal server alone: spawn → initialize → tools/list",
    `${fmt(median(initAloneMin))} → ${fmt(median(t.aloneMin))}`,
  );
  line(
    "  Tandem's part with the minimal server (added − alone)",
    signed(median(t.min) - base - median(t.aloneMin)),
  );
  line("  the same, first thread of this process (loads the MCP SDK)", `${fmt(cold)} (+${fmt(cold - base)})`);
}
