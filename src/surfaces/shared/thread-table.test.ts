import { describe, expect, it } from "vitest";
import { shortThreadId, threadTable } from "./thread-table.js";

const T0 = Date.UTC(2026, 11, 2, 13, 40);
const row = (id: string, over: Partial<Parameters<typeof threadTable>[0][number]> = {}) => ({
  id,
  parent_id: null,
  updated_at: T0,
  status: "completed",
  title: "",
  cwd: "/w",
  pending: 0,
  ...over,
});

describe("threadTable", () => {
  it("short ids are the random end of a uuidv7, not its shared time prefix", () => {
    expect(shortThreadId("01a236f7-f864-70c6-a133-69a257abe821")).toBe("57abe821");
    expect(shortThreadId("thread_001")).toBe("thread_001");
  });

  it("aligns the columns, shows titles, and nests sub-agents under their parent", () => {
    const parent = "01a236f7-f864-70c6-a133-69a257abe821";
    const lines = threadTable(
      [
        row(parent, {
          title: "Fix the\nparser",
          pending: 1,
          status: "waiting",
          usage: { total_tokens: 240 },
        }),
        row("01a236f7-0000-70c6-a133-000000000002", { title: "other work", cwd: "/elsewhere" }),
        row("01a236f7-1111-70c6-a133-00000000c0de", { parent_id: parent, title: "explorer: find tests" }),
        row("01a236f7-2222-70c6-a133-00000000beef", { parent_id: "gone-parent-id", title: "lost child" }),
      ],
      { ids: "short", shown: parent },
    );
    expect(lines).toEqual([
      "   ID        UPDATED           STATUS                  TOKENS      TITLE                                     DIRECTORY",
      "*  57abe821  2026-12-02 13:40  waiting, 1 question(s)  240 tokens  Fix the parser                            /w",
      "   0000c0de  2026-12-02 13:40  completed                           └ explorer: find tests                    /w",
      "   00000002  2026-12-02 13:40  completed                           other work                                /elsewhere",
      "   0000beef  2026-12-02 13:40  completed                           (sub-agent of gone-parent-id) lost child  /w",
    ]);
  });
});
