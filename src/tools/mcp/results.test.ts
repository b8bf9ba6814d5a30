import { describe, expect, it } from "vitest";
import { approxTokens } from "../../util/truncate.js";
import { MAX_OUTPUT_TOKENS, toToolResult } from "./results.js";

describe("MCP results as tool outputs", () => {
  // Fails if text parts are not joined into one string output.
  it("text only → a string", () => {
    expect(
      toToolResult({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({
      output: "a\nb",
      success: true,
    });
  });

  // Fails if structuredContent is dropped, or duplicated when a text part already is that JSON.
  it("structuredContent is included once, as JSON", () => {
    const r = toToolResult({ content: [{ type: "text", text: "hot" }], structuredContent: { t: 30 } });
    expect(r.output).toBe('hot\nstructuredContent: {"t":30}');
    const same = toToolResult({
      content: [{ type: "text", text: '{ "t": 30 }' }],
      structuredContent: { t: 30 },
    });
    expect(same.output).toBe('{ "t": 30 }');
  });

  // Fails if isError does not make an error output.
  it("isError → success false", () => {
    expect(toToolResult({ content: [{ type: "text", text: "no" }], isError: true }).success).toBe(false);
  });

  // Fails if images are not input_image parts, or resources lose their uri, or the display
  // carries base64.
  it("images and resources", () => {
    const r = toToolResult({
      content: [
        { type: "image", data: "AAAA", mimeType: "image/gif" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "hello" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/x" } },
        { type: "resource_link", uri: "file:///c", name: "c" },
      ],
    });
    expect(r.output).toEqual([
      { type: "input_image", image_url: "data:image/gif;base64,AAAA" },
      { type: "input_text", text: "[resource file:///a.txt]\nhello" },
      {
        type: "input_text",
        text: "[resource file:///b.bin: application/x, 3 bytes of binary data, not shown]",
      },
      { type: "input_text", text: "[resource link c: file:///c]" },
    ]);
    expect(String(r.display?.output)).not.toContain("AAAA");
  });
});

describe("MCP results: the output budget", () => {
  // Fails if each part gets the whole budget (many parts would add up past it), if small parts
  // are cut while there is room, or if a cut part does not say how much was cut.
  it("text parts share MAX_OUTPUT_TOKENS; small parts stay whole", () => {
    const big = "y".repeat(MAX_OUTPUT_TOKENS * 4 * 3);
    const r = toToolResult({
      content: [
        { type: "text", text: "short" },
        ...Array.from({ length: 20 }, () => ({ type: "text", text: big })),
      ],
    });
    const out = String(r.output);
    expect(out.startsWith("short\n")).toBe(true);
    expect(approxTokens(out)).toBeLessThan(MAX_OUTPUT_TOKENS * 1.05);
    expect(out.match(/…\d+ tokens truncated…/g)).toHaveLength(20);
  });
});
