/**
 * A host of `tandem mcp-server` for tests: the MCP SDK's own client over stdio, as an agent host
 * would run it, against a real `./bin/tandem mcp-server` and a real scripted-model process.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Script } from "../../src/mock-model/index.js";
import { BIN, jsonLines, type MockProcess, startMockProcess } from "./cli.js";
import { tempDir } from "./index.js";
import { sandboxFallback } from "./system-tools.js";

export type Form = ElicitRequest["params"] & {
  requestedSchema: { properties: Record<string, any>; required?: string[] };
};

export interface Host {
  client: Client;
  transport: StdioClientTransport;
  mock: MockProcess;
  home: string;
  cwd: string;
  /** Every form the server sent, in order. */
  forms: Form[];
  stderr: () => string;
}

const hosts: Host[] = [];

/**
 * Starts the scripted model and `tandem mcp-server` under the SDK client. `answer` set: the client
 * declares form elicitation and answers each form with it; absent: no elicitation capability.
 */
export async function startHost(
  script: Script | MockProcess,
  answer?: (form: Form, n: number, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>,
  opts: { home?: string; args?: string[] } = {},
): Promise<Host> {
  const mock = "proc" in script ? script : await startMockProcess(script);
  const home = opts.home ?? tempDir("tandem-mcp-home-");
  sandboxFallback(home);
  const cwd = tempDir("tandem-mcp-cwd-");
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp-server", ...(opts.args ?? [])],
    cwd,
    env: { TANDEM_HOME: home, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: mock.url, NO_COLOR: "1" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => {
    stderr += d;
  });
  const client = new Client(
    { name: "test-host", version: "1.0.0" },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  const forms: Form[] = [];
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
      forms.push(req.params as Form);
      return answer(req.params as Form, forms.length, extra.signal);
    });
  await client.connect(transport);
  const host = { client, transport, mock, home, cwd, forms, stderr: () => stderr };
  hosts.push(host);
  return host;
}

/** Closes every host started so far and stops its model (call in afterEach). */
export async function closeHosts(): Promise<void> {
  for (const h of hosts.splice(0)) {
    await h.client.close().catch(() => {});
    await h.mock.stop();
  }
}

/** Forgets `host` (the test closed it itself), so closeHosts does not close it again. */
export function dropHost(host: Host): void {
  hosts.splice(hosts.indexOf(host), 1);
}

/** A host's form that nobody answers; resolves as cancel once the server withdraws it. */
export const unanswered = (_form: Form, _n: number, signal: AbortSignal) =>
  new Promise<ElicitResult>((resolve) => {
    signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true });
  });

export function modelRequests(h: Host): any[] {
  return jsonLines(readFileSync(h.mock.log, "utf8"));
}

/** The output the model received for `callId` in its `n`-th request (1-based). */
export function outputOf(h: Host, n: number, callId: string): string {
  const req = modelRequests(h)[n - 1];
  const out = req?.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
  return out?.output ?? "";
}

export async function call(
  h: Host,
  name: string,
  args: Record<string, unknown>,
  opts: Record<string, unknown> = {},
) {
  return (await h.client.callTool({ name, arguments: args }, undefined, opts)) as any;
}

export const message = (text: string, expect?: string[]) => ({
  output: [{ type: "message" as const, text }],
  ...(expect ? { expect: { input_contains: expect } } : {}),
});

export const execCall = (callId: string, cmd: string, extra: Record<string, unknown> = {}) => ({
  output: [
    {
      type: "function_call" as const,
      call_id: callId,
      name: "exec_command",
      arguments: { cmd, yield_time_ms: 1000, ...extra },
    },
  ],
});
