/** The TUI's line for a `hook.warning` (README "Hooks"): a failing or skipped hook is reported, not lost. */
import { describe, expect, it } from "vitest";
import { ViewStore } from "../../src/surfaces/tui/view-store.js";

const info = { id: "t1", model: "m", mode: "default" as const, cwd: "/w" };

describe("TUI: hook.warning", () => {
  // Fails if the TUI drops hook.warning events (a hook that failed or a project hooks file that
  // was skipped would go unnoticed), or shows another thread's.
  it("shows the thread's hook warnings as warning notices", () => {
    const s = new ViewStore(info);
    s.handle({
      type: "hook.warning",
      thread_id: "t1",
      turn_id: "u1",
      message: "hook `x.sh` (Stop) timed out",
    });
    s.handle({ type: "hook.warning", thread_id: "other", message: "elsewhere" });
    s.flushNow();
    const notices = s
      .getSnapshot()
      .committed.filter((c) => c.kind === "notice")
      .map((c) => ({ text: (c as { text: string }).text, tone: (c as { tone: string }).tone }));
    expect(notices).toEqual([{ text: "hook: hook `x.sh` (Stop) timed out", tone: "warn" }]);
    s.dispose();
  });
});
