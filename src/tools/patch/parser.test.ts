import { describe, expect, it } from "vitest";
import { newLines, oldLines, type PatchOp, PatchParseError, parsePatch } from "./parser.js";

const wrap = (body: string) => `*** Begin Patch\n${body}\n*** End Patch\n`;

function parseError(text: string): PatchParseError {
  try {
    parsePatch(text);
  } catch (err) {
    expect(PatchParseError.isInstance(err)).toBe(true);
    return err as PatchParseError;
  }
  throw new Error("expected a parse error");
}

const update = (op: PatchOp) => {
  if (op.type !== "update") throw new Error(`expected update, got ${op.type}`);
  return op;
};

describe("parsePatch", () => {
  it("parses add, delete and update with move in patch order", () => {
    const ops = parsePatch(
      wrap(
        [
          "*** Add File: a/new.txt",
          "+line one",
          "+",
          "*** Delete File: old.txt",
          "*** Update File: src/x.py",
          "*** Move to: src/y.py",
          "@@ def f():",
          " keep",
          "-gone",
          "+added",
        ].join("\n"),
      ),
    );
    expect(ops).toEqual([
      { type: "add", path: "a/new.txt", contents: "line one\n\n", line: 2 },
      { type: "delete", path: "old.txt", line: 5 },
      {
        type: "update",
        path: "src/x.py",
        movePath: "src/y.py",
        line: 6,
        chunks: [
          {
            contexts: ["def f():"],
            endOfFile: false,
            line: 8,
            lines: [
              { kind: " ", text: "keep" },
              { kind: "-", text: "gone" },
              { kind: "+", text: "added" },
            ],
          },
        ],
      },
    ]);
  });

  it("splits chunks at @@ and collects consecutive @@ lines as narrowing contexts", () => {
    const op = update(
      parsePatch(
        wrap("*** Update File: f\n@@ class A\n@@   def m(self):\n-a\n+b\n@@\n c\n+d\n*** End of File"),
      )[0],
    );
    expect(op.chunks.map((c) => c.contexts)).toEqual([["class A", "  def m(self):"], []]);
    expect(op.chunks[1].endOfFile).toBe(true);
    expect(oldLines(op.chunks[0])).toEqual(["a"]);
    expect(newLines(op.chunks[1])).toEqual(["c", "d"]);
  });

  it("allows a first chunk without @@", () => {
    const op = update(parsePatch(wrap("*** Update File: f\n-a\n+b"))[0]);
    expect(op.chunks).toHaveLength(1);
    expect(op.chunks[0].contexts).toEqual([]);
  });

  it("reads a unified-diff header as its trailing context, ignoring line numbers", () => {
    const op = update(parsePatch(wrap("*** Update File: f\n@@ -10,7 +10,8 @@ fn main() {\n-a\n+b"))[0]);
    expect(op.chunks[0].contexts).toEqual(["fn main() {"]);
    const bare = update(parsePatch(wrap("*** Update File: f\n@@ -1 +1 @@\n-a\n+b"))[0]);
    expect(bare.chunks[0].contexts).toEqual([]);
  });

  it("treats blank lines inside a chunk as empty context lines", () => {
    const op = update(parsePatch(wrap("*** Update File: f\n@@\n a\n\n-b\n\t\n+c"))[0]);
    expect(op.chunks[0].lines).toEqual([
      { kind: " ", text: "a" },
      { kind: " ", text: "" },
      { kind: "-", text: "b" },
      { kind: " ", text: "" },
      { kind: "+", text: "c" },
    ]);
  });

  it("accepts a pure rename (Move to without chunks)", () => {
    expect(parsePatch(wrap("*** Update File: a\n*** Move to: b"))).toEqual([
      { type: "update", path: "a", movePath: "b", chunks: [], line: 2 },
    ]);
  });

  it("is lenient about wrappers, CRLF, padding and a missing final newline", () => {
    const body = "*** Begin Patch\n*** Add File: x\n+y\n*** End Patch";
    const expected = [{ type: "add", path: "x", contents: "y\n", line: 2 }];
    expect(parsePatch(body)).toEqual(expected);
    expect(parsePatch(`\n\n${body}\n\n`)).toEqual([{ ...expected[0], line: 4 }]);
    expect(parsePatch(body.replaceAll("\n", "\r\n"))).toEqual(expected);
    expect(parsePatch(`<<'EOF'\n${body}\nEOF\n`)).toEqual([{ ...expected[0], line: 3 }]);
    expect(parsePatch(`apply_patch <<"PATCH"\n${body}\nPATCH`)).toEqual([{ ...expected[0], line: 3 }]);
    expect(parsePatch(`\`\`\`diff\n${body}\n\`\`\``)).toEqual([{ ...expected[0], line: 3 }]);
    expect(parsePatch("  *** Begin Patch  \n*** Add File:   x  \n+y\n *** End Patch ")).toEqual(expected);
  });

  it("does not strip a heredoc whose delimiter does not close it", () => {
    expect(parseError("<<'EOF'\n*** Begin Patch\n*** Add File: x\n+y\n*** End Patch\nEND").message).toContain(
      "line 1: the first line must be '*** Begin Patch', got '<<'EOF''",
    );
  });

  it("skips blank lines between file operations and inside added files", () => {
    const ops = parsePatch(wrap("*** Add File: a\n+1\n\n+2\n\n*** Add File: b\n+3"));
    expect(ops.map((o) => (o.type === "add" ? o.contents : ""))).toEqual(["1\n\n2\n", "3\n"]);
  });

  it("keeps marker-like text inside context and added lines", () => {
    const op = update(parsePatch(wrap("*** Update File: f\n@@\n *** not a marker\n+*** End Patch"))[0]);
    expect(op.chunks[0].lines).toEqual([
      { kind: " ", text: "*** not a marker" },
      { kind: "+", text: "*** End Patch" },
    ]);
  });

  it.each([
    ["", "the patch is empty"],
    ["*** Add File: x\n+y\n*** End Patch", "line 1: the first line must be '*** Begin Patch'"],
    ["*** Begin Patch\n*** Add File: x\n+y", "line 3: the last line must be '*** End Patch'"],
    ["*** Begin Patch", "line 1: the last line must be '*** End Patch'"],
    ["*** Begin Patch\n*** End Patch", "the patch contains no file operations"],
    [wrap("*** Frobnicate File: x"), "line 2: unexpected '*** Frobnicate File: x'"],
    [wrap("*** Add File: x\n+a\n*** End Patch\n*** Add File: y\n+b"), "line 4: unexpected '*** End Patch'"],
    [wrap("*** Add File: \n+a"), "line 2: '*** Add File:' needs a path"],
    [wrap("*** Update File: f"), "line 2: '*** Update File: f' has no changes"],
    [wrap("*** Update File: f\n@@\n*** Delete File: g"), "line 4: chunk of 'f' has no lines after its '@@'"],
    [wrap("*** Update File: f\n@@ ctx\n@@\n a\nb"), "line 6: unexpected line 'b' in the update of 'f'"],
    [
      wrap("*** Update File: f\n*** End of File"),
      "line 3: '*** End of File' must follow the lines of a chunk",
    ],
    [wrap("+orphan"), "line 2: unexpected '+orphan'"],
  ])("rejects %j with a precise message", (text, message) => {
    const err = parseError(text);
    expect(err.message).toContain(message);
    expect(err.message.startsWith("invalid patch: ")).toBe(true);
  });
});
