/** The pure parts of the settings and information commands (session.ts). */
import { describe, expect, it } from "vitest";
import { contextWindow, parseApprovalArgs, parseModelArgs } from "./session.js";

describe("command arguments", () => {
  // fails if an effort alone were taken as a model name, or a bad effort were accepted
  it("parses /model NAME [EFFORT] and /model EFFORT", () => {
    expect(parseModelArgs("gpt-x high")).toEqual({ ok: true, patch: { model: "gpt-x", effort: "high" } });
    expect(parseModelArgs("low")).toEqual({ ok: true, patch: { effort: "low" } });
    expect(parseModelArgs("gpt-x")).toEqual({ ok: true, patch: { model: "gpt-x" } });
    expect(parseModelArgs("gpt-x turbo")).toMatchObject({ ok: false });
  });

  // fails if a preset did not expand, a word were ignored, or an unknown word accepted
  it("parses /approvals policies, sandboxes and presets", () => {
    expect(parseApprovalArgs("never workspace-write")).toEqual({
      ok: true,
      patch: { approval_policy: "never", sandbox_mode: "workspace-write" },
    });
    expect(parseApprovalArgs("full-access")).toEqual({
      ok: true,
      patch: { approval_policy: "never", sandbox_mode: "danger-full-access" },
    });
    expect(parseApprovalArgs("sometimes")).toMatchObject({ ok: false });
  });

  // fails if a window were invented for an unknown model
  it("knows context windows only for published models", () => {
    expect(contextWindow("gpt-5.2-codex")).toBe(272_000);
    expect(contextWindow("my-local-llama")).toBeUndefined();
  });
});
