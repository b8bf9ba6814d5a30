import { describe, expect, it } from "vitest";
import { assignToolNames, MAX_TOOL_NAME } from "./names.js";

describe("MCP tool names", () => {
  // Fails if names are not mcp__<server>__<tool> when they already fit the rules.
  it("keeps plain names", () => {
    expect(assignToolNames("everything", ["echo", "get-sum"])).toEqual([
      "mcp__everything__echo",
      "mcp__everything__get-sum",
    ]);
  });

  // Fails if characters outside [a-zA-Z0-9_-] reach the model, or if two tools that sanitise
  // alike share a name (the clean one must keep the plain name whatever the order).
  it("sanitises, and a hash keeps colliding names apart", () => {
    const [dotted, plain] = assignToolNames("s", ["a.b", "a_b"]);
    expect(plain).toBe("mcp__s__a_b");
    expect(dotted).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
    for (const n of [dotted, plain]) expect(n).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  // Fails if a long name is not cut to 64 characters, or two long names with the same prefix
  // end up equal, or the name changes between runs.
  it("cuts long names to 64 characters, unique and stable", () => {
    const long = "x".repeat(80);
    const names = assignToolNames("server", [`${long}1`, `${long}2`]);
    for (const n of names) expect(n.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
    expect(new Set(names).size).toBe(2);
    expect(assignToolNames("server", [`${long}1`, `${long}2`])).toEqual(names);
  });

  // Fails if names taken by another server are handed out again.
  it("respects names already taken", () => {
    const taken = new Set(["mcp__s__t"]);
    const [n] = assignToolNames("s", ["t"], taken);
    expect(n).not.toBe("mcp__s__t");
    expect(taken.has(n)).toBe(true);
  });
});
