/** The pure parts of the settings and information commands (session.ts). */
import { describe, expect, it } from "vitest";
import type { ThreadRecord } from "../../store/types.js";
import { contextWindow, parseApprovalArgs, parseModelArgs, threadByPrefix } from "./session.js";

const rec = (id: string) => ({ id }) as ThreadRecord;

describe("threadByPrefix", () => {
  // fails if an ambiguous prefix picked one thread, or an exact id lost to a longer one
  it("takes an exact id or a unique prefix, and names the candidates otherwise", () => {
    const threads = [rec("thr_abc1"), rec("thr_abc12"), rec("thr_xyz")];
    expect(threadByPrefix(threads, "thr_x")).toEqual({ ok: true, id: "thr_xyz" });
    expect(threadByPrefix(threads, "thr_abc1")).toEqual({ ok: true, id: "thr_abc1" });
    const amb = threadByPrefix(threads, "thr_a");
    expect(amb.ok).toBe(false);
    expect(!amb.ok && amb.error).toContain("matches 2 threads (thr_abc1, thr_abc12)");
    expect(threadByPrefix(threads, "nope")).toMatchObject({ ok: false });
  });
});

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
