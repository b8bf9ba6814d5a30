import { describe, expect, it } from "vitest";
import { parseThreadSettings, ThreadSettingsPatch } from "./threads.js";

describe("thread settings", () => {
  it("keeps every known key typed and unknown keys as they are", () => {
    const settings = {
      effort: "high",
      sandbox_mode: "workspace-write",
      writable_roots: ["/a"],
      question_policy: { type: "timeout", ms: 50, on_timeout: "decline" },
      agent: { nickname: "Ada", role: "explorer", depth: 2, task: "look", root_id: "r" },
      later_key: { any: true },
    };
    expect(parseThreadSettings(settings)).toEqual(settings);
  });

  it("drops a value that does not fit its key, so the configuration's applies", () => {
    const parsed = parseThreadSettings({ effort: 3, approval_policy: "always", offer_questions: false });
    expect(parsed).toEqual({ offer_questions: false });
    expect("effort" in parsed && parsed.effort).toBeFalsy();
  });

  it("reads a sub-agent's record leniently but not one without a nickname", () => {
    expect(
      parseThreadSettings({ agent: { nickname: "Ada", role: 1, depth: 0, root_id: "r" } }).agent,
    ).toEqual({
      nickname: "Ada",
      role: "default",
      depth: 1,
      task: "",
      root_id: "r",
    });
    expect(parseThreadSettings({ agent: { role: "x", root_id: "r" } }).agent).toBeUndefined();
  });

  it("reads anything but an object as no settings", () => {
    for (const raw of [null, 3, "x", [1, 2], undefined]) expect(parseThreadSettings(raw)).toEqual({});
  });

  it("patches: null removes, unknown keys and bad values are refused", () => {
    expect(ThreadSettingsPatch.parse({ effort: null, model: "m" })).toEqual({ effort: null, model: "m" });
    expect(ThreadSettingsPatch.safeParse({ archived: true }).success).toBe(false);
    expect(ThreadSettingsPatch.safeParse({ sandbox_mode: "open" }).success).toBe(false);
  });
});
