/**
 * Markdown tables in the TUI (README "Use it"): parsed as one block, rendered as aligned
 * columns, and held back while streaming until the table is complete.
 */
import { describe, expect, it } from "vitest";
import type { Event } from "../../protocol/events.js";
import { displayWidth } from "./ansi.js";
import type { Cell } from "./cells.js";
import { makeCell } from "./cells.js";
import { type MdLine, parseLines, tableTail } from "./markdown.js";
import { renderCell } from "./render-cell.js";
import { ViewStore } from "./view-store.js";

const TABLE = [
  "| Name | Size | Note |",
  "| :--- | ---: | :---: |",
  "| a.ts | 12 | **new** |",
  "| bb.rs | 3400 | x |",
];

describe("markdown tables", () => {
  // Fails if table rows parse as plain text, or alignment / inline spans are lost.
  it("parses a GFM table as one line with alignment and inline spans", () => {
    const { out } = parseLines(["before", ...TABLE, "after"]);
    expect(out.map((l) => l.kind)).toEqual(["text", "table", "text"]);
    const t = out[1] as Extract<MdLine, { kind: "table" }>;
    expect(t.align).toEqual(["left", "right", "center"]);
    expect(t.header.map((c) => c.map((s) => s.text).join(""))).toEqual(["Name", "Size", "Note"]);
    expect(t.rows).toHaveLength(2);
    expect(t.rows[0][2]).toEqual([{ text: "new", bold: true }]);
    // Without a separator row it is not a table.
    expect(parseLines(["| a | b |", "| c | d |"]).out.map((l) => l.kind)).toEqual(["text", "text"]);
    // Inside code it is code.
    expect(parseLines(["```", ...TABLE, "```"]).out.every((l) => l.kind !== "table")).toBe(true);
  });

  // Fails if columns are not padded to one width, right alignment is ignored, or a narrow
  // terminal makes rows wrap instead of cutting cells.
  it("renders aligned columns, and cuts cells to fit a narrow terminal", () => {
    const cell = makeCell({ kind: "agent", lines: parseLines(TABLE).out, first: false });
    const rows = renderCell(cell, { width: 60, color: false })
      .split("\n")
      .filter((l) => l.trim());
    expect(rows).toHaveLength(4);
    const widths = rows.map((l) => displayWidth(l));
    expect(new Set(widths).size).toBe(1);
    expect(rows[1]).toMatch(/─+┼─+┼─+/);
    expect(rows[2]).toMatch(/a\.ts\s+│\s+12 │/);
    expect(rows[3]).toMatch(/bb\.rs │ 3400 │/);
    const narrow = renderCell(cell, { width: 20, color: false })
      .split("\n")
      .filter((l) => l.trim());
    expect(narrow).toHaveLength(4);
    expect(narrow.every((l) => displayWidth(l) <= 20)).toBe(true);
    expect(narrow.join("\n")).toContain("…");
  });

  it("tableTail counts the trailing rows that may still grow, outside code", () => {
    expect(tableTail(["text", TABLE[0], TABLE[1]])).toBe(2);
    expect(tableTail(["text", TABLE[0], "after"])).toBe(0);
    expect(tableTail(["```", TABLE[0]])).toBe(0);
  });

  // Fails if a streaming table is committed row by row (then it renders as text lines).
  it("a streaming table is committed once, whole", () => {
    const T = { thread_id: "t1", turn_id: "turn1" };
    const s = new ViewStore({ id: "t1", model: "m", mode: "default", cwd: "/w" });
    const text = `Here:\n${TABLE.join("\n")}\nDone.`;
    s.handle({ type: "item.started", ...T, item: { id: "m1", type: "agent_message", text: "" } } as Event);
    for (const ch of text.match(/[\s\S]{1,7}/g)!) {
      s.handle({ type: "agent_message.delta", ...T, item_id: "m1", delta: ch } as Event);
      s.flushNow();
      const lines = s
        .getSnapshot()
        .committed.filter((c): c is Extract<Cell, { kind: "agent" }> => c.kind === "agent")
        .flatMap((c) => c.lines);
      // Never a table row committed as text.
      expect(lines.some((l) => l.kind === "text" && l.spans.some((sp) => sp.text.includes("|")))).toBe(false);
    }
    s.handle({ type: "item.completed", ...T, item: { id: "m1", type: "agent_message", text } } as Event);
    s.flushNow();
    const kinds = s
      .getSnapshot()
      .committed.filter((c): c is Extract<Cell, { kind: "agent" }> => c.kind === "agent")
      .flatMap((c) => c.lines.map((l) => l.kind));
    expect(kinds).toEqual(["text", "table", "text"]);
    s.dispose();
  });
});
