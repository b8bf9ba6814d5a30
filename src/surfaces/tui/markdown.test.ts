import { describe, expect, it } from "vitest";
import { fenceAfter, inline, NO_FENCE, parseLines, plain, softBreak } from "./markdown.js";

describe("markdown", () => {
  it("parses headings, lists, quotes, rules and paragraphs", () => {
    const { out } = parseLines([
      "# Title",
      "- one",
      "  - nested",
      "2. two",
      "> quoted",
      "---",
      "",
      "plain **bold**",
    ]);
    expect(out.map((l) => l.kind)).toEqual([
      "heading",
      "list",
      "list",
      "list",
      "quote",
      "rule",
      "blank",
      "text",
    ]);
    expect(plain(out[2])).toBe("  • nested");
    expect(plain(out[3])).toBe("2. two");
  });

  it("carries the code-fence state across chunks", () => {
    const a = parseLines(["text", "```ts", "const x = 1;"]);
    expect(a.end).toMatchObject({ inCode: true, lang: "ts" });
    const b = parseLines(["# not a heading", "```", "after"], a.end);
    expect(b.out.map((l) => l.kind)).toEqual(["code", "fence", "text"]);
    expect(b.end).toEqual(NO_FENCE);
    expect(fenceAfter(["~~~~", "```", "~~~~"])).toEqual(NO_FENCE);
    expect(fenceAfter(["````", "```"])).toMatchObject({ inCode: true });
  });

  it("parses inline code, bold, italic, strike and links; unclosed markers stay literal", () => {
    expect(inline("a `b` **c** *d* ~~e~~ [f](http://x)")).toEqual([
      { text: "a " },
      { text: "b", code: true },
      { text: " " },
      { text: "c", bold: true },
      { text: " " },
      { text: "d", italic: true },
      { text: " " },
      { text: "e", strike: true },
      { text: " " },
      { text: "f", link: true },
      { text: " (http://x)" },
    ]);
    expect(inline("2 * 3 and snake_case_name and **open")).toEqual([
      { text: "2 * 3 and snake_case_name and **open" },
    ]);
  });
});

describe("softBreak", () => {
  it("splits a long line after a sentence, else at a space, never inside a span", () => {
    const text = `${"word ".repeat(30)}end. ${"more ".repeat(40)}`;
    const cut = softBreak(text, 100)!;
    expect(text.slice(0, cut.end).endsWith("end.")).toBe(true);
    expect(text.slice(cut.next).startsWith("more")).toBe(true);
    const noSentence = "x ".repeat(120);
    const c2 = softBreak(noSentence, 100)!;
    expect(noSentence.slice(0, c2.end).endsWith("x")).toBe(true);
    const code = `${"a ".repeat(20)}\`${"b ".repeat(100)}`;
    expect(softBreak(code, 100)).toBeUndefined();
    expect(softBreak(`- item ${"y ".repeat(100)}`, 100)).toBeUndefined();
  });
});
