/**
 * A hostile stdio MCP server (test/fixtures/mcp-hostile-server.mjs) against a real Runtime and the
 * scripted model: a line that is not JSON instead of an answer, a 100 MiB answer on one line, and a
 * large answer under the line cap. Each must fail or truncate the one call at once, keep Tandem's
 * memory bounded, and leave the server usable for the next call (README "MCP servers").
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_LINE_BYTES } from "../../src/tools/mcp/stdio-transport.js";
import type { Harness } from "../helpers/index.js";
import { HOSTILE, mcpHarness, outputSent, stdio } from "../helpers/mcp.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const call = (name: string, args: Record<string, unknown>, call_id: string) => ({
  output: [{ type: "function_call" as const, name, arguments: args, call_id }],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });
const MiB = 1 << 20;

/** Runs one turn against the hostile server; a call left waiting would hit tool_timeout_sec (600 s), far past the test's bound. */
async function run(steps: unknown[]) {
  h = await mcpHarness({ hostile: { ...stdio(HOSTILE), tool_timeout_sec: 600 } }, { steps } as never);
  const thread = h.runtime.threads.start({ cwd: h.cwd });
  return thread.startTurn("go").done;
}

describe("a hostile stdio MCP server", () => {
  // Fails if a line that is not JSON is skipped (the SDK's behaviour): the call would wait for
  // tool_timeout_sec (600 s) and the test would time out; or if the server is dropped after it.
  it("a garbage line instead of an answer fails that call at once; the next call works", async () => {
    const outcome = await run([
      call("mcp__hostile__stall", {}, "bad"),
      call("mcp__hostile__echo", { text: "after" }, "next"),
      say("ok"),
    ]);
    expect(outcome.status).toBe("completed");
    const bad = String(outputSent(h!, "bad"));
    expect(bad).toContain('MCP server "hostile" failed the call of stall');
    expect(bad).toContain("not JSON");
    expect(bad).toContain("Traceback (most recent call last)");
    expect(bad).not.toContain("tool_timeout_sec (");
    expect(outputSent(h!, "next")).toBe("echo: after");
  });

  // Fails if a line over the cap is buffered whole (RSS grows by ~100 MiB or more), cuts the
  // server off (the SDK closes the transport: the next call fails), or leaves the call waiting.
  it("a 100 MiB answer fails with 'result too large', memory stays bounded, the next call works", async () => {
    h = await mcpHarness({ hostile: { ...stdio(HOSTILE), tool_timeout_sec: 600 } }, {
      steps: [
        call("mcp__hostile__echo", { text: "warm up" }, "warm"),
        call("mcp__hostile__flood", { bytes: 100 * MiB }, "huge"),
        call("mcp__hostile__echo", { text: "still here" }, "next"),
        say("ok"),
      ],
    } as never);
    const turn = h.runtime.threads.start({ cwd: h.cwd }).startTurn("go");
    // Measured from the flood call's start: everything Tandem loads for a turn is loaded by then.
    await h.waitFor((e) => e.type === "item.started" && e.item.id === "huge");
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 2);
    try {
      expect((await turn.done).status).toBe("completed");
    } finally {
      clearInterval(sampler);
    }
    const huge = String(outputSent(h!, "huge"));
    expect(huge).toContain('MCP server "hostile" failed the call of flood');
    expect(huge).toContain("result too large");
    expect(huge).toMatch(/100(\.\d)? MiB/);
    expect(huge).toContain(`${MAX_LINE_BYTES / MiB} MiB`);
    expect(outputSent(h!, "next")).toBe("echo: still here");
    // A resource bound, not a timing one: the line cap plus working room, far under the answer's size.
    expect((peak - base) / MiB).toBeLessThan(MAX_LINE_BYTES / MiB + 48);
  });

  // Fails if a large answer under the cap reaches the model whole, is cut without saying how
  // much, or costs the server its connection.
  it("a 4 MiB answer is truncated with a marker that says how much was cut", async () => {
    const outcome = await run([
      call("mcp__hostile__flood", { bytes: 4 * MiB }, "big"),
      call("mcp__hostile__echo", { text: "next" }, "next"),
      say("ok"),
    ]);
    expect(outcome.status).toBe("completed");
    const big = String(outputSent(h!, "big"));
    expect(big.length).toBeLessThan(64 * 1024);
    expect(big).toMatch(/…\d+ tokens truncated…/);
    const cut = Number(/…(\d+) tokens truncated…/.exec(big)![1]);
    expect(cut).toBeGreaterThan((4 * MiB) / 4 - 20_000);
    expect(big.startsWith("xxxx")).toBe(true);
    expect(outputSent(h!, "next")).toBe("echo: next");
  });
});
