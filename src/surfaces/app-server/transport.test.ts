import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineSplitter, MessageTooLargeError, StdioTransport } from "./transport.js";

function split(chunks: Array<string | Buffer>, max = 64) {
  const lines: string[] = [];
  const tooLarge: number[] = [];
  const s = new LineSplitter(
    max,
    (l) => lines.push(l),
    (n) => tooLarge.push(n),
  );
  for (const c of chunks) s.push(typeof c === "string" ? Buffer.from(c) : c);
  s.end();
  return { lines, tooLarge };
}

describe("LineSplitter", () => {
  it("splits lines across chunks, strips CR, skips blank lines, flushes the last line at end", () => {
    expect(split(['{"a":', '1}\r\n\n  \n{"b"', ":2}\n{", '"c":3}']).lines).toEqual([
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
    ]);
  });

  it("keeps a multi-byte character split between chunks intact", () => {
    const bytes = Buffer.from('"héllo ✓"\n');
    expect(split([bytes.subarray(0, 3), bytes.subarray(3, 10), bytes.subarray(10)]).lines).toEqual([
      '"héllo ✓"',
    ]);
  });

  it("drops an oversized line without buffering it, reports its size once, and reads the next line", () => {
    const big = "x".repeat(100);
    const { lines, tooLarge } = split(["ok1\n", big.slice(0, 40), big.slice(40), "\nok2\n"], 64);
    expect(lines).toEqual(["ok1", "ok2"]);
    expect(tooLarge).toEqual([100]);
    expect(split([`${"y".repeat(65)}`], 64).tooLarge).toEqual([65]);
    expect(split([`${"y".repeat(64)}\n`], 64).lines).toHaveLength(1);
  });
});

describe("StdioTransport", () => {
  it("delivers lines, writes one line per message, reports oversized input, closes once on EOF", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new StdioTransport(input, output, 16);
    const got: string[] = [];
    const errors: Error[] = [];
    let closes = 0;
    t.onmessage = (m) => got.push(m);
    t.onerror = (e) => errors.push(e);
    t.onclose = () => closes++;
    await t.start();
    input.write('{"x":1}\n');
    input.write(`${"z".repeat(40)}\n{"y":2}\n`);
    t.send('{"out":true}');
    input.end();
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['{"x":1}', '{"y":2}']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(MessageTooLargeError);
    expect(errors[0].message).toMatch(/40 bytes exceeds the 16-byte limit/);
    expect(output.read().toString()).toBe('{"out":true}\n');
    await t.close();
    t.send("ignored after close");
    expect(closes).toBe(1);
    expect(output.read()).toBeNull();
  });
});
