import { describe, expect, it } from "vitest";
import { approxTokens, truncateMiddle, truncationMarker } from "./truncate.js";

describe("approxTokens", () => {
  it("counts UTF-8 bytes / 4, rounded up", () => {
    expect(approxTokens("")).toBe(0);
    expect(approxTokens("abcd")).toBe(1);
    expect(approxTokens("abcde")).toBe(2);
    expect(approxTokens("é")).toBe(1); // 2 bytes
    expect(approxTokens("😀😀")).toBe(2); // 8 bytes
  });
});

describe("truncateMiddle", () => {
  it("returns text within budget unchanged", () => {
    const r = truncateMiddle("hello world", 10);
    expect(r).toEqual({ text: "hello world", truncated: false, originalTokens: 3 });
  });

  it("keeps head and tail halves and says how much was cut", () => {
    const text = `HEAD${"x".repeat(10_000)}TAIL`;
    const r = truncateMiddle(text, 10); // 40 bytes: 20 head, 20 tail
    expect(r.truncated).toBe(true);
    expect(r.originalTokens).toBe(Math.ceil(text.length / 4));
    expect(r.text.startsWith(`HEAD${"x".repeat(16)}…`)).toBe(true);
    expect(r.text.endsWith(`…${"x".repeat(16)}TAIL`)).toBe(true);
    expect(r.text).toContain(truncationMarker(Math.ceil((text.length - 40) / 4)));
  });

  it("never splits a multi-byte character", () => {
    const text = "é€😀a".repeat(500);
    for (let budget = 1; budget < 40; budget++) {
      const r = truncateMiddle(text, budget);
      expect(r.truncated).toBe(true);
      expect(r.text).not.toContain("\uFFFD");
      expect(Buffer.from(r.text, "utf8").toString("utf8")).toBe(r.text);
      const [head, tail] = r.text.split(/…\d+ tokens truncated…/);
      expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(budget * 4);
      expect(text.startsWith(head)).toBe(true);
      expect(text.endsWith(tail)).toBe(true);
    }
  });

  it("counts bytes omitted upstream and marks them even when the rest fits", () => {
    const r = truncateMiddle("abcdefgh", 100, { omittedBytes: 400 });
    expect(r).toEqual({ text: `abcd${truncationMarker(100)}efgh`, truncated: true, originalTokens: 102 });
  });

  it("treats a zero budget as cutting everything", () => {
    const r = truncateMiddle("abcdefgh", 0);
    expect(r.text).toBe(truncationMarker(2));
  });
});
