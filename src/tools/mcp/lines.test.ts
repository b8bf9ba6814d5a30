import { describe, expect, it } from "vitest";
import { EDGE_BYTES, type Frame, LineSplitter } from "./lines.js";

const push = (s: LineSplitter, ...chunks: string[]): Frame[] => chunks.flatMap((c) => s.push(Buffer.from(c)));

describe("LineSplitter", () => {
  // Fails if lines split across chunks are not joined, \r\n is not handled, or blank lines are reported.
  it("joins chunks into lines, strips \\r, skips blank lines", () => {
    const s = new LineSplitter(1024);
    expect(push(s, '{"a":', "1}\r\n\n  \n", '{"b":2}\n{"c"')).toEqual([
      { line: '{"a":1}' },
      { line: '{"b":2}' },
    ]);
    expect(push(s, ":3}\n")).toEqual([{ line: '{"c":3}' }]);
  });

  // Fails if a multi-byte character split between chunks is garbled.
  it("decodes UTF-8 split across chunks", () => {
    const s = new LineSplitter(1024);
    const bytes = Buffer.from('"héllo ✓"\n');
    expect([...s.push(bytes.subarray(0, 3)), ...s.push(bytes.subarray(3))]).toEqual([{ line: '"héllo ✓"' }]);
  });

  // Fails if a line over the bound is kept (returned as a line), its size is miscounted, its edges
  // are lost, or the line after it is not read normally.
  it("drops a line over the bound up to its newline, keeping its size and edges", () => {
    const s = new LineSplitter(100);
    const long = `HEAD${"x".repeat(1000)}TAIL`;
    const frames = push(s, long.slice(0, 50), long.slice(50, 700), `${long.slice(700)}\n{"next":1}\n`);
    expect(frames).toHaveLength(2);
    const dropped = (frames[0] as Extract<Frame, { dropped: unknown }>).dropped;
    expect(dropped.bytes).toBe(long.length);
    expect(dropped.head).toBe(long.slice(0, EDGE_BYTES));
    expect(dropped.tail).toBe(long.slice(-EDGE_BYTES));
    expect(frames[1]).toEqual({ line: '{"next":1}' });
  });

  // Fails if the bound is off by one: a line of exactly maxBytes is still a line.
  it("a line of exactly the bound is kept", () => {
    const s = new LineSplitter(10);
    expect(push(s, "0123456789\n", "0123456789a\n")).toEqual([
      { line: "0123456789" },
      { dropped: { bytes: 11, head: "0123456789a", tail: "0123456789a" } },
    ]);
  });
});
