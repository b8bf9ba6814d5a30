/** Smoke test of the TUI bench helpers `npm run bench` calls (shape only; no timing assertions). */
import { describe, expect, it } from "vitest";
import { benchOpen, benchRender, syntheticHistory } from "../../bench/tui.js";

describe("tui bench helpers", () => {
  it("benchRender streams tokens through the view store and Ink", async () => {
    const r = await benchRender(400);
    expect(r.frames).toBeGreaterThan(0);
    expect(r.bytes).toBeGreaterThan(1000);
    expect(r.ms).toBeGreaterThan(0);
    expect(r.tokensPerSec).toBeGreaterThan(0);
  });

  it("benchOpen loads, converts and prints a stored thread", async () => {
    expect(syntheticHistory(10)).toHaveLength(10);
    const r = await benchOpen(200);
    expect(r.cells).toBe(150);
    expect(r.bytes).toBeGreaterThan(10_000);
  });
});
