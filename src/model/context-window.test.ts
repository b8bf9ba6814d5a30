import { describe, expect, it } from "vitest";
import { contextWindow } from "./context-window.js";

describe("context window", () => {
  // Fails if the config does not win, if the longest prefix does not win, or an unknown model gets a guess.
  it("config first, then the longest known prefix, else unknown", () => {
    expect(contextWindow("gpt-5.2-codex", 50_000)).toBe(50_000);
    expect(contextWindow("gpt-5.2-codex")).toBe(272_000);
    expect(contextWindow("gpt-4.1-mini")).toBe(1_047_576);
    expect(contextWindow("o4-mini-high")).toBe(200_000);
    expect(contextWindow("mock-model")).toBeUndefined();
  });
});
