import { describe, expect, it } from "vitest";
import { optionRows, scrollWindow } from "./overlay-layout.js";
import { edit } from "./text-field.js";

describe("overlay layout", () => {
  it("keeps the number column fixed and wrapped descriptions in their column", () => {
    // Fails if numbers are not padded (10 rows: " 1." vs "10.") or wrapped lines lose their indent.
    const rows = optionRows(
      Array.from({ length: 10 }, (_, i) => ({
        label: `opt${i}`,
        description: "word ".repeat(12).trim(),
        mark: "( )",
      })),
      40,
    );
    expect(rows[0][0].head.startsWith(" 1. ( ) opt0")).toBe(true);
    expect(rows[9][0].head.startsWith("10. ( ) opt9")).toBe(true);
    const col = rows[0][0].head.length;
    for (const line of rows[0]) expect(line.head.length).toBe(col);
    expect(rows[0].length).toBeGreaterThan(1);
  });

  it("puts the description below the label when no column is left", () => {
    // Fails if a narrow terminal squeezes descriptions into a sliver beside a long label.
    const rows = optionRows(
      [{ label: "a rather long label here", description: "explained below", mark: "( )" }],
      30,
    );
    expect(rows[0][0].desc).toBe("");
    expect(rows[0].at(-1)).toEqual({ head: "       ", desc: "explained below" });
  });

  it("windows rows around the focus, counting the more-above/below lines", () => {
    // Fails if the window can hide the focused row or overflows its budget.
    const heights = [2, 2, 2, 2, 2];
    expect(scrollWindow(heights, 0, 20)).toEqual({ start: 0, end: 5, lastLines: 2 });
    const w = scrollWindow(heights, 4, 5);
    expect(w.end).toBe(5);
    expect(w.start).toBeGreaterThan(0);
    expect(1 + (w.end - w.start) * 2).toBeLessThanOrEqual(5);
    // Moving up inside the window keeps it still.
    expect(scrollWindow(heights, 3, 5, w.start).start).toBe(w.start);
    // A row taller than the budget is cut, not dropped.
    expect(scrollWindow([9], 0, 3).lastLines).toBeLessThanOrEqual(3);
  });
});

describe("text field", () => {
  it("inserts, deletes and jumps words at the cursor", () => {
    // Fails if edits act at the end instead of the cursor.
    let f = { text: "hllo wrld", at: 0 };
    f = edit(edit(f, { type: "right" }), { type: "insert", text: "e" });
    expect(f).toEqual({ text: "hello wrld", at: 2 });
    f = edit(f, { type: "wordRight" });
    expect(f.at).toBe(5);
    f = edit(edit(f, { type: "end" }), { type: "wordLeft" });
    expect(f.at).toBe(6);
    f = edit(f, { type: "deleteForward" });
    expect(f.text).toBe("hello rld");
    f = edit(edit(f, { type: "home" }), { type: "deleteBack" });
    expect(f).toEqual({ text: "hello rld", at: 0 });
    expect(edit({ text: "a😀b", at: 2 }, { type: "deleteBack" })).toEqual({ text: "ab", at: 1 });
  });
});
