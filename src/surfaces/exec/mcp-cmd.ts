/**
 * `tandem mcp list|get|add|remove` — the MCP servers in `$TANDEM_HOME/config.toml` (like
 * `codex mcp`). `list` connects to each enabled server (within its startup timeout, all at once)
 * and shows ok + its tool count or why it failed; `get` prints one server's settings; `add` and
 * `remove` edit the file (tools/mcp/config-file.ts). Usage errors exit 2; `get`/`remove` of an
 * unknown server exits 1; `list` exits 0 whatever the servers' status.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../config/load.js";
import type { McpServerConfig } from "../../config/schema.js";
import { removeServer, setServer } from "../../tools/mcp/config-file.js";
import { McpConnection } from "../../tools/mcp/connection.js";
import { argError } from "../../util/cli-args.js";
import { printable } from "../../util/printable.js";

export const MCP_USAGE = `Usage: tandem mcp list [--json]                  the configured MCP servers and whether they start
       tandem mcp get NAME [--json]              one server's settings
       tandem mcp add NAME [--env K=V]… -- COMMAND [ARGS…]
                                                 add (or replace) a stdio server
       tandem mcp add NAME --url URL [--bearer-token-env-var VAR]
                                                 add (or replace) a streamable HTTP server
       tandem mcp remove NAME                    remove a server

Servers live in $TANDEM_HOME/config.toml as [mcp_servers.NAME]; every thread offers their tools
to the model as mcp__NAME__TOOL. Editing rewrites the file: settings are kept, comments are not.

Options:
  --env K=V                    (add, stdio) set a variable for the server, repeatable
  --url URL                    (add) the server's streamable HTTP endpoint
  --bearer-token-env-var VAR   (add, HTTP) send $VAR as a bearer token
  --json                       (list, get) print JSON
  -c, --config key=value       override a config value (TOML value), repeatable
  -h, --help                   show this help`;

interface Status {
  status: "ok" | "failed" | "disabled";
  tools?: number;
  error?: string;
}

const target = (c: McpServerConfig) =>
  c.url ??
  [c.command, ...(c.args ?? [])]
    .map((w) => (/^[\w@%+=:,./-]+$/.test(w ?? "") ? w : JSON.stringify(w)))
    .join(" ");

/** Env values may be secrets: shown as their names only. */
function shown(name: string, c: McpServerConfig): Record<string, unknown> {
  const env = c.env ? Object.fromEntries(Object.keys(c.env).map((k) => [k, "*****"])) : undefined;
  return { name, transport: c.url ? "streamable_http" : "stdio", ...c, ...(env ? { env } : {}) };
}

async function check(name: string, config: McpServerConfig): Promise<Status> {
  if (!config.enabled) return { status: "disabled" };
  try {
    const c = await McpConnection.connect({ name, config, roots: () => [process.cwd()] });
    const tools = c.tools.length;
    await c.close();
    return { status: "ok", tools };
  } catch (err) {
    return { status: "failed", error: (err as Error).message };
  }
}

export async function runMcpCommand(argv: string[]): Promise<number> {
  const err = (s: string) => process.stderr.write(`tandem mcp: ${s}\n`);
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: own,
      allowPositionals: true,
      options: {
        env: { type: "string", multiple: true },
        url: { type: "string" },
        "bearer-token-env-var": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        config: { type: "string", short: "c", multiple: true },
      },
    });
  } catch (e) {
    err(`${argError(e)}\n\n${MCP_USAGE}`);
    return 2;
  }
  const v = parsed.values as {
    env?: string[];
    url?: string;
    "bearer-token-env-var"?: string;
    json?: boolean;
    help?: boolean;
    config?: string[];
  };
  if (v.help) {
    process.stdout.write(`${MCP_USAGE}\n`);
    return 0;
  }
  const [action = "list", name, ...extra] = parsed.positionals;
  if (!["list", "get", "add", "remove"].includes(action)) {
    err(`unknown action '${action}' (list, get, add or remove)\n\n${MCP_USAGE}`);
    return 2;
  }
  if (action === "list" ? name !== undefined : extra.length) {
    err(
      `unexpected argument '${action === "list" ? name : extra[0]}'${action === "add" ? " (put the server's command after --)" : ""}`,
    );
    return 2;
  }
  if (action !== "list" && !name) {
    err(`${action} needs a server NAME`);
    return 2;
  }
  if (action !== "add" && (command.length || v.env || v.url || v["bearer-token-env-var"])) {
    err("--, --env, --url and --bearer-token-env-var are for `tandem mcp add`");
    return 2;
  }
  const { settings, home, warnings } = loadConfig({ overrides: v.config ?? [] });
  for (const w of warnings) err(`warning: ${w}`);
  const file = join(home, "config.toml");
  const servers = settings.mcp_servers;

  if (action === "add") return add(file, name!, command, v, err);
  if (action === "remove") {
    if (!removeServer(file, name!)) {
      err(`no MCP server "${name}" in ${file}${known(servers)}`);
      return 1;
    }
    process.stdout.write(`Removed MCP server "${name}" from ${file}.\n`);
    return 0;
  }
  if (action === "get") {
    const c = servers[name!];
    if (!c) {
      err(`no MCP server "${name}"${known(servers)}`);
      return 1;
    }
    const info = shown(name!, c);
    if (v.json) process.stdout.write(`${JSON.stringify(info)}\n`);
    else
      for (const [k, val] of Object.entries(info))
        process.stdout.write(`${k}: ${typeof val === "string" ? printable(val) : JSON.stringify(val)}\n`);
    return 0;
  }
  const names = Object.keys(servers);
  const statuses = await Promise.all(names.map((n) => check(n, servers[n])));
  if (v.json) {
    const out = names.map((n, i) => ({ ...shown(n, servers[n]), ...statuses[i] }));
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  }
  if (!names.length) {
    process.stdout.write(
      "No MCP servers configured. Add one with `tandem mcp add NAME -- COMMAND [ARGS…]`.\n",
    );
    return 0;
  }
  const rows = names.map((n, i) => {
    const s = statuses[i];
    const status =
      s.status === "ok"
        ? `ok (${s.tools} tool${s.tools === 1 ? "" : "s"})`
        : s.status === "failed"
          ? `failed: ${s.error}`
          : "disabled";
    return [n, servers[n].url ? "http" : "stdio", target(servers[n]), status].map(printable);
  });
  const table = [["Name", "Transport", "Target", "Status"], ...rows];
  const widths = [0, 1, 2].map((c) => Math.max(...table.map((r) => r[c].length)));
  for (const r of table)
    process.stdout.write(`${r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c]) : cell)).join("  ")}\n`);
  return 0;
}

const known = (servers: Record<string, unknown>) => {
  const names = Object.keys(servers);
  return names.length ? `; configured: ${names.join(", ")}` : "; none is configured";
};

function add(
  file: string,
  name: string,
  command: string[],
  v: { env?: string[]; url?: string; "bearer-token-env-var"?: string },
  err: (s: string) => void,
): number {
  if (!command.length === !v.url) {
    err("add needs either `-- COMMAND [ARGS…]` (a stdio server) or `--url URL` (an HTTP server), not both");
    return 2;
  }
  if (v.url && v.env) {
    err("--env is for stdio servers (`-- COMMAND`)");
    return 2;
  }
  if (command.length && v["bearer-token-env-var"]) {
    err("--bearer-token-env-var is for HTTP servers (`--url`)");
    return 2;
  }
  const env: Record<string, string> = {};
  for (const kv of v.env ?? []) {
    const eq = kv.indexOf("=");
    if (eq <= 0) {
      err(`--env expects KEY=VALUE, got '${kv}'`);
      return 2;
    }
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const entry: Record<string, unknown> = v.url
    ? {
        url: v.url,
        ...(v["bearer-token-env-var"] ? { bearer_token_env_var: v["bearer-token-env-var"] } : {}),
      }
    : { command: command[0], args: command.slice(1), ...(Object.keys(env).length ? { env } : {}) };
  let replaced: boolean;
  try {
    replaced = setServer(file, name, entry);
  } catch (e) {
    err((e as Error).message);
    return 2;
  }
  process.stdout.write(`${replaced ? "Replaced" : "Added"} MCP server "${name}" in ${file}.\n`);
  return 0;
}
