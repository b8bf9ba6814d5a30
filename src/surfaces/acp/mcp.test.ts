/** ACP `mcpServers` → Tandem's `[mcp_servers.NAME]` configuration. */
import { describe, expect, it } from "vitest";
import { clientMcpServers } from "./mcp.js";

describe("ACP MCP servers as configuration", () => {
  // fails if stdio env pairs or HTTP headers are lost, names are not made valid, or the defaults
  // of a configured server (enabled, timeouts) are not applied.
  it("maps stdio and HTTP servers with defaults and valid names", () => {
    const got = clientMcpServers([
      { name: "My Files", command: "/usr/bin/fs", args: ["--root", "/w"], env: [{ name: "A", value: "1" }] },
      { type: "http", name: "web", url: "https://example.com/mcp", headers: [{ name: "X-Key", value: "k" }] },
    ]);
    expect(got).toEqual({
      My_Files: {
        command: "/usr/bin/fs",
        args: ["--root", "/w"],
        env: { A: "1" },
        enabled: true,
        startup_timeout_sec: 10,
        tool_timeout_sec: 60,
      },
      web: {
        url: "https://example.com/mcp",
        http_headers: { "X-Key": "k" },
        enabled: true,
        startup_timeout_sec: 10,
        tool_timeout_sec: 60,
      },
    });
  });

  // fails if an SSE server, a duplicate name or a bad URL is accepted instead of a clear -32602.
  it("refuses what cannot run, naming the server", () => {
    const refuse = (servers: Parameters<typeof clientMcpServers>[0]) => {
      try {
        clientMcpServers(servers);
      } catch (err) {
        return err as { code: number; message: string };
      }
      throw new Error("accepted");
    };
    const sse = refuse([{ type: "sse", name: "old", url: "https://x", headers: [] }]);
    expect(sse.code).toBe(-32602);
    expect(sse.message).toContain("SSE servers are not supported");
    const dup = refuse([
      { name: "a b", command: "x", args: [], env: [] },
      { name: "a_b", command: "y", args: [], env: [] },
    ]);
    expect(dup.message).toContain('two servers are named "a_b"');
    expect(refuse([{ type: "http", name: "bad", url: "ftp://x", headers: [] }]).message).toContain(
      "http(s) URL",
    );
  });
});
