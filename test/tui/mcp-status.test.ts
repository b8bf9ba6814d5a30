/** The TUI's line for an MCP server's status (README "MCP servers"): one notice per server report. */
import { describe, expect, it } from "vitest";
import { ViewStore } from "../../src/surfaces/tui/view-store.js";

const info = { id: "t1", model: "m", mode: "default" as const, cwd: "/w" };

describe("TUI: mcp.status", () => {
  // Fails if the TUI drops mcp.status events (a failed server would go unnoticed) or shows a
  // failure without its reason.
  it("shows a failed server with its reason and a ready one with its tool count", () => {
    const s = new ViewStore(info);
    s.handle({
      type: "mcp.status",
      thread_id: "t1",
      server: "db",
      status: "failed",
      tools: 0,
      error: "did not start within 1 s (startup_timeout_sec)",
    });
    s.handle({ type: "mcp.status", thread_id: "t1", server: "everything", status: "ready", tools: 13 });
    s.handle({
      type: "mcp.status",
      thread_id: "other",
      server: "x",
      status: "failed",
      tools: 0,
      error: "elsewhere",
    });
    s.flushNow();
    const notices = s
      .getSnapshot()
      .committed.filter((c) => c.kind === "notice")
      .map((c) => ({ text: (c as { text: string }).text, tone: (c as { tone: string }).tone }));
    expect(notices).toEqual([
      {
        text: 'MCP server "db" failed to start: did not start within 1 s (startup_timeout_sec)',
        tone: "warn",
      },
      { text: 'MCP server "everything" ready: 13 tools', tone: "dim" },
    ]);
    s.dispose();
  });
});
