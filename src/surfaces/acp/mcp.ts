/**
 * The MCP servers an ACP client passes to `session/new` / `session/load`, as Tandem's
 * `[mcp_servers.NAME]` configuration (pure).
 *
 * Contract:
 * - stdio servers `{name, command, args, env: [{name, value}]}` → `{command, args, env}`; HTTP servers
 *   `{type: "http", name, url, headers}` → `{url, http_headers}`; defaults (enabled, timeouts) as for
 *   a configured server. SSE servers are refused (-32602): Tandem speaks streamable HTTP only.
 * - Names become valid server names (anything outside [A-Za-z0-9_-] → "_"); two client servers
 *   with the same resulting name are refused. The runtime lays them over the configured servers
 *   (`StartThreadOptions.mcpServers`): a client server replaces a configured one of the same name.
 */
import { type McpServer, RequestError } from "@agentclientprotocol/sdk";
import { McpServerConfig } from "../../config/schema.js";

export function mcpServerName(name: string): string {
  const cleaned = name.trim().replace(/[^A-Za-z0-9_-]+/g, "_");
  return cleaned === "" || /^_+$/.test(cleaned) ? "server" : cleaned;
}

/** The client's servers as configuration, by name. Throws RequestError (-32602) for what cannot run. */
export function clientMcpServers(servers: McpServer[]): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  servers.forEach((s, i) => {
    const name = mcpServerName(s.name);
    if (Object.hasOwn(out, name))
      throw RequestError.invalidParams(
        { index: i, name: s.name },
        `mcpServers[${i}]: two servers are named "${name}"; give each a distinct name`,
      );
    let raw: Record<string, unknown>;
    if ("type" in s && s.type === "sse")
      throw RequestError.invalidParams(
        { index: i, name: s.name },
        `mcpServers[${i}] (${s.name}): SSE servers are not supported; use a streamable HTTP (type "http") or stdio server`,
      );
    if ("url" in s) raw = { url: s.url, ...(s.headers.length ? { http_headers: pairs(s.headers) } : {}) };
    else
      raw = {
        command: s.command,
        ...(s.args.length ? { args: s.args } : {}),
        ...(s.env.length ? { env: pairs(s.env) } : {}),
      };
    const parsed = McpServerConfig.safeParse(raw);
    if (!parsed.success)
      throw RequestError.invalidParams(
        { index: i, name: s.name },
        `mcpServers[${i}] (${s.name}): ${parsed.error.issues.map((x) => `${x.path.join(".") || "server"}: ${x.message}`).join("; ")}`,
      );
    out[name] = parsed.data;
  });
  return out;
}

function pairs(list: Array<{ name: string; value: string }>): Record<string, string> {
  return Object.fromEntries(list.map((p) => [p.name, p.value]));
}
