/**
 * One MCP server connection (README "MCP servers"): the SDK `Client` over stdio (Tandem's own
 * transport, stdio-transport.ts: bad frames fail the calls in flight, lines are capped) or
 * streamable HTTP.
 *
 * Contract:
 * - `McpConnection.connect` starts the server, initializes and lists its tools within
 *   `startup_timeout_sec` (and `signal`); it throws `McpStartError` with a one-line reason (the
 *   stdio server's last stderr line when it exited) and leaves no process behind when it fails.
 * - Capabilities declared: roots (the `roots()` directories, as file:// URIs) and, when an
 *   `onElicit` handler is given, elicitation (form and URL). `sampling/createMessage` and any
 *   other request Tandem does not serve are refused with a JSON-RPC error that says so.
 * - `callTool` honours its signal (the SDK sends `notifications/cancelled`) and throws what the
 *   SDK throws (a malformed result, an output-schema mismatch, a closed connection), and, over
 *   stdio, the transport's error for a bad line or a line over MAX_LINE_BYTES (at once; the
 *   connection stays usable).
 * - `close()` closes the session; a stdio server still running after a grace period is killed
 *   with its whole process tree. A process exiting without `close()` kills live servers too.
 * - The SDK is loaded on the first `connect`, not with this module (a runtime with no server pays
 *   nothing), and in two steps: the stdio transport first, so the server process starts at once,
 *   then the client (the larger part), while the server boots.
 */

import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ElicitRequest, ElicitResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../../config/schema.js";
import { log } from "../../util/log.js";
import { watchTransport } from "../../util/log-wire.js";
import { collectTree, isAlive, killTreeSync, listProcesses } from "../../util/process-tree.js";
import type { McpCallResult } from "./results.js";
import type { StdioTransport } from "./stdio-transport.js";

export type { McpTool };

export class McpStartError extends Error {
  override name = "McpStartError";
  /** Settles once the failed server's processes are gone (not awaited by `connect`). */
  closed: Promise<void> = Promise.resolve();
}

/** Answers one `elicitation/create` of this server (tools/mcp/elicit.ts asks the user). */
export type ElicitHandler = (params: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;

export interface ConnectOptions {
  name: string;
  config: McpServerConfig;
  /** Directories the server may treat as its roots (the thread's writable roots). */
  roots?(): string[];
  onElicit?: ElicitHandler;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

const CLIENT_INFO = { name: "tandem", version: "0.1.0" };
/** Tool calls are timed by the caller (pausable, tools/mcp/tool.ts), not by the SDK's 60 s default. */
const NO_SDK_TIMEOUT = 24 * 3600_000;
/** After stdin closes, a server gets this long to exit before SIGTERM (then SIGKILL after as long). */
const CLOSE_GRACE_MS = 300;

type Sdk = typeof import("@modelcontextprotocol/sdk/types.js");
let firstStep: Promise<[typeof import("./stdio-transport.js"), Sdk]> | undefined;
let clientStep: Promise<typeof import("@modelcontextprotocol/sdk/client/index.js")> | undefined;
let httpStep: Promise<typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")> | undefined;
/** What starting a stdio server needs (~50 ms of CPU): the transport and the message schemas. */
const loadFirst = () =>
  (firstStep ??= Promise.all([import("./stdio-transport.js"), import("@modelcontextprotocol/sdk/types.js")]));
/** The client (~100 ms of CPU, JSON Schema validation included): loaded while a server boots. */
const loadClient = () => (clientStep ??= import("@modelcontextprotocol/sdk/client/index.js"));
const loadHttp = () => (httpStep ??= import("@modelcontextprotocol/sdk/client/streamableHttp.js"));

/** Root pids of stdio servers still running in this process (exit safety net). */
const live = new Set<number>();
let exitHook = false;
function track(pid: number): void {
  live.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const p of live) killTreeSync(p);
  });
}

export class McpConnection {
  private closing: Promise<void> | undefined;

  private constructor(
    readonly name: string,
    readonly client: Client,
    private readonly transport: StdioTransport | StreamableHTTPClientTransport,
    readonly tools: McpTool[],
    private readonly pid: number | null,
  ) {}

  /** Called when the server's tool list changed (new tools to offer); set by the owner. */
  onToolsChanged?: (tools: McpTool[]) => void;

  static async connect(opts: ConnectOptions): Promise<McpConnection> {
    const { name, config } = opts;
    const ms = config.startup_timeout_sec * 1000;
    const timeout = AbortSignal.timeout(ms);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const [{ StdioTransport }, types] = await loadFirst();
    const { ElicitRequestSchema, ErrorCode, ListRootsRequestSchema, McpError } = types;
    let stderr = "";
    const transport = watchTransport(
      config.command
        ? stdioTransport(StdioTransport, config)
        : await httpTransport(config, opts.env ?? process.env),
      "mcp",
      name,
    );
    // The pid as soon as the server is spawned, for the exit safety net and closeAll.
    let pid: number | null = null;
    if (transport instanceof StdioTransport) {
      transport.stderr.on("data", (d: Buffer) => {
        stderr = (stderr + d.toString("utf8")).slice(-2000);
      });
      // Spawned now, so the server boots while the client loads; `client.connect`'s start()
      // returns this same promise.
      transport
        .start()
        .then(() => {
          pid = transport.pid;
          if (pid) track(pid);
        })
        .catch(() => {}); // reported by `client.connect`, which awaits it
    }
    const { Client } = await loadClient();
    const client = new Client(CLIENT_INFO, {
      capabilities: {
        roots: { listChanged: false },
        ...(opts.onElicit ? { elicitation: { form: {}, url: {} } } : {}),
      },
    });
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: (opts.roots?.() ?? []).map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })),
    }));
    if (opts.onElicit) {
      const onElicit = opts.onElicit;
      client.setRequestHandler(ElicitRequestSchema, (req, extra) => onElicit(req.params, extra.signal));
    }
    client.fallbackRequestHandler = async (req) => {
      throw new McpError(
        ErrorCode.MethodNotFound,
        req.method === "sampling/createMessage"
          ? "Tandem refuses sampling/createMessage: MCP servers cannot use Tandem's model (no sampling capability)"
          : `Tandem does not serve ${req.method}`,
      );
    };
    try {
      await client.connect(transport, { signal, timeout: ms });
      const tools = filterTools(await listAllTools(client, signal, ms), config);
      const c = new McpConnection(name, client, transport, tools, pid);
      watchToolList(c, config, types.ToolListChangedNotificationSchema);
      return c;
    } catch (err) {
      // Not awaited: a failed server must not hold up the turn past its startup timeout.
      const closed = closeAll(client, transport, pid);
      const lastLine = stderrReason(stderr);
      const failure = new McpStartError(
        timeout.aborted
          ? `did not start within ${config.startup_timeout_sec} s (startup_timeout_sec)`
          : `${errorText(err)}${lastLine ? ` (stderr: ${lastLine.slice(0, 300)})` : ""}`,
      );
      failure.closed = closed;
      throw failure;
    }
  }

  /** Calls the server's tool `name` (its own name, not the model-facing one). */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    return this.client.callTool({ name, arguments: args }, undefined, {
      signal,
      timeout: NO_SDK_TIMEOUT,
    }) as Promise<McpCallResult>;
  }

  /** Closes the session and makes sure a stdio server's processes are gone. Idempotent. */
  close(): Promise<void> {
    this.closing ??= closeAll(this.client, this.transport, this.pid);
    return this.closing;
  }
}

function stdioTransport(Transport: typeof StdioTransport, config: McpServerConfig): StdioTransport {
  return new Transport({
    command: config.command!,
    args: config.args ?? [],
    ...(config.env ? { env: config.env } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
  });
}

async function httpTransport(
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
): Promise<StreamableHTTPClientTransport> {
  const headers: Record<string, string> = { ...(config.http_headers ?? {}) };
  if (config.bearer_token_env_var) {
    const token = env[config.bearer_token_env_var];
    if (!token)
      throw new McpStartError(
        `bearer_token_env_var ${config.bearer_token_env_var} is not set; export it or remove the setting`,
      );
    headers.Authorization = `Bearer ${token}`;
  }
  for (const value of Object.values(headers))
    for (const v of [value, value.replace(/^Bearer\s+/i, "")]) log.secret(v);
  const { StreamableHTTPClientTransport } = await loadHttp();
  return new StreamableHTTPClientTransport(new URL(config.url!), { requestInit: { headers } });
}

async function listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<McpTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const out: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { signal, timeout });
    out.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

function filterTools(tools: McpTool[], config: McpServerConfig): McpTool[] {
  return tools.filter(
    (t) =>
      (!config.enabled_tools || config.enabled_tools.includes(t.name)) &&
      !config.disabled_tools?.includes(t.name),
  );
}

/** Servers that add tools after initialization (server-everything does) announce it: list again. */
function watchToolList(
  c: McpConnection,
  config: McpServerConfig,
  schema: Sdk["ToolListChangedNotificationSchema"],
): void {
  c.client.setNotificationHandler(schema, async () => {
    try {
      const tools = filterTools(await listAllTools(c.client, AbortSignal.timeout(30_000), 30_000), config);
      c.onToolsChanged?.(tools);
    } catch {
      /* a failed refresh keeps the tools offered so far */
    }
  });
}

/** The line of a server's stderr that most likely says why it stopped. */
function stderrReason(stderr: string): string | undefined {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^Node\.js v\d/.test(l) && !/^at /.test(l));
  return (
    [...lines].reverse().find((l) => /error|cannot|can't|fail|not found|denied|invalid/i.test(l)) ??
    lines.pop()
  );
}

function errorText(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return (
    m
      .replace(/^MCP error -?\d+: /, "")
      .replace(/\s+/g, " ")
      .trim() || "failed"
  );
}

async function closeAll(
  client: Client,
  transport: StdioTransport | StreamableHTTPClientTransport,
  pid: number | null,
): Promise<void> {
  // The tree as it is now: once the root exits, its children lose their link to it.
  const procs = pid ? listProcesses() : [];
  const tree = pid
    ? collectTree(pid, { procs }).map((p) => ({ pid: p, start: procs.find((x) => x.pid === p)?.start }))
    : [];
  let timer: NodeJS.Timeout | undefined;
  const closed = (async () => {
    // An HTTP session is ended on the server too (DELETE), then the stream closed.
    if ("terminateSession" in transport) await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  })();
  await Promise.race([
    closed,
    new Promise<void>((r) => {
      timer = setTimeout(r, CLOSE_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  if (pid) live.delete(pid);
  if (!tree.length) return;
  const now = listProcesses();
  const same = (t: { pid: number; start?: string }) => {
    const p = now.find((x) => x.pid === t.pid);
    return p !== undefined && p.state !== "Z" && (t.start === undefined || p.start === t.start);
  };
  let left = tree.filter(same).map((t) => t.pid);
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    for (const p of left) {
      try {
        process.kill(p, signal);
      } catch {
        /* gone */
      }
    }
    for (let i = 0; i < CLOSE_GRACE_MS / 10 && left.some(isAlive); i++)
      await new Promise((r) => setTimeout(r, 10));
    left = left.filter(isAlive);
    if (!left.length) return;
  }
}
