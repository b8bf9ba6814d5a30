/** Shared bits of the MCP client tests: real servers from npm and the odd fixture server. */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { stringify } from "smol-toml";
import type { Script } from "../../src/mock-model/index.js";
import { collectTree } from "../../src/util/process-tree.js";
import { type Harness, harness, tempDir } from "./index.js";

const modules = resolve(import.meta.dirname, "../../node_modules/@modelcontextprotocol");
export const EVERYTHING = join(modules, "server-everything/dist/index.js");
export const FILESYSTEM = join(modules, "server-filesystem/dist/index.js");
export const ODD = resolve(import.meta.dirname, "../fixtures/mcp-odd-server.mjs");
export const HOSTILE = resolve(import.meta.dirname, "../fixtures/mcp-hostile-server.mjs");

export const stdio = (script: string, ...args: string[]) => ({
  command: process.execPath,
  args: [script, ...args],
});

/** A harness whose config.toml holds `servers` as `[mcp_servers.*]`. */
export async function mcpHarness(
  servers: Record<string, Record<string, unknown>>,
  script: Script,
  overrides: string[] = [],
  cwd?: string,
): Promise<Harness> {
  const home = tempDir("tandem-home-");
  writeFileSync(join(home, "config.toml"), stringify({ mcp_servers: servers }));
  return harness({ script, home, overrides, ...(cwd ? { cwd } : {}) });
}

/** Pids of this process's descendants whose command line contains `marker`. */
export function serverPids(marker: string): number[] {
  return collectTree(process.pid)
    .filter((p) => p !== process.pid)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    });
}

/** The output the model got for `callId` in any request after the call. */
export function outputSent(h: Harness, callId: string): unknown {
  for (const body of h.model.requests as Array<{ input?: Array<Record<string, unknown>> }>) {
    const out = body.input?.find(
      (i) =>
        (i.type === "function_call_output" || i.type === "custom_tool_call_output") && i.call_id === callId,
    );
    if (out) return out.output;
  }
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/** server-everything in its streamable HTTP mode; resolves once it listens. */
export async function everythingHttp(): Promise<{ url: string; proc: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((res, rej) => {
    const t = setTimeout(() => rej(new Error("server-everything (HTTP) did not start")), 15_000);
    let err = "";
    proc.stderr!.on("data", (d) => {
      err += d;
      if (/listening on port/i.test(err)) {
        clearTimeout(t);
        res();
      }
    });
    proc.once("exit", (code) => rej(new Error(`server-everything exited ${code}: ${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    proc,
    stop: () =>
      new Promise<void>((r) => {
        if (proc.exitCode !== null) return r();
        proc.once("exit", () => r());
        proc.kill("SIGTERM");
      }),
  };
}
