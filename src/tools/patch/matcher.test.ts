import { describe, expect, it } from "vitest";
import { applyChunks, joinText, PatchApplyError, splitText } from "./applier.js";
import { closestMatch, foldPunctuation, lineSimilarity, seekSequence } from "./matcher.js";
import { type PatchOp, parsePatch } from "./parser.js";

describe("seekSequence", () => {
  const lines = ["a", "b  ", "  c", "d", "a", "b", "end"];

  it("tries exact, trim-end, trim, then unicode folding, first pass that matches wins", () => {
    expect(seekSequence(lines, ["a", "b"], 0, false)).toEqual({ index: 4, pass: "exact" });
    expect(seekSequence(lines, ["b", "  c"], 0, false)).toEqual({ index: 1, pass: "trim-end" });
    expect(seekSequence(lines, ["c", "d"], 0, false)).toEqual({ index: 2, pass: "trim" });
    expect(seekSequence(["say \u201chi\u201d \u2014 ok"], ['say "hi" - ok'], 0, false)).toEqual({
      index: 0,
      pass: "unicode",
    });
  });

  it("searches from start and returns undefined when absent or longer than the file", () => {
    expect(seekSequence(lines, ["a"], 1, false)).toEqual({ index: 4, pass: "exact" });
    expect(seekSequence(lines, ["zzz"], 0, false)).toBeUndefined();
    expect(seekSequence(["a"], ["a", "b"], 0, false)).toBeUndefined();
    expect(seekSequence(lines, ["a"], 5, false)).toBeUndefined();
  });

  it("matches an empty pattern at start", () => {
    expect(seekSequence(lines, [], 3, false)).toEqual({ index: 3, pass: "exact" });
  });

  it("with eof tries the end of the file first (any pass), then searches from start", () => {
    const f = ["x", "y", "mid", "x", "y "];
    expect(seekSequence(f, ["x", "y"], 0, false)?.index).toBe(0);
    expect(seekSequence(f, ["x", "y"], 0, true)).toEqual({ index: 3, pass: "trim-end" });
    expect(seekSequence(f, ["mid"], 0, true)).toEqual({ index: 2, pass: "exact" });
  });

  it("folds typographic punctuation and unicode spaces", () => {
    expect(foldPunctuation("\u2018a\u2019 \u201Cb\u201D c\u2013d\u2014e\u2212f\u00A0g\u2026 ")).toBe(
      "'a' \"b\" c-d-e-f g...",
    );
  });

  it("finds the most similar window for error messages", () => {
    const file = ["def f():", "    x = 1", "    return x", "", "def g():", "    y = 2", "    return y"];
    expect(closestMatch(file, ["    y = 3", "    return y"], 0)).toEqual({ index: 5, identical: 1 });
    expect(closestMatch(file, ["    return z"], 0)).toEqual({ index: 2, identical: 0 });
    expect(closestMatch(file, ["completely different text here"], 0)).toBeUndefined();
    expect(lineSimilarity("abc", "abc")).toBe(1);
    expect(lineSimilarity("abcd", "abXd")).toBe(0.75);
  });
});

describe("splitText / joinText", () => {
  it.each([
    ["", [], [], "\n", true],
    ["a", ["a"], [""], "\n", false],
    ["a\nb\n", ["a", "b"], ["\n", "\n"], "\n", true],
    ["a\r\nb\r\nc", ["a", "b", "c"], ["\r\n", "\r\n", ""], "\r\n", false],
    ["a\r\nb\nc\r\n", ["a", "b", "c"], ["\r\n", "\n", "\r\n"], "\r\n", true],
    ["\n\n", ["", ""], ["\n", "\n"], "\n", true],
  ])("%j round-trips", (text, lines, ends, eol, finalNewline) => {
    const doc = splitText(text);
    expect(doc).toEqual({ lines, ends, eol, finalNewline });
    expect(joinText(doc)).toBe(text);
  });
});

function chunksOf(body: string) {
  const op = parsePatch(`*** Begin Patch\n*** Update File: f\n${body}\n*** End Patch`)[0] as Extract<
    PatchOp,
    { type: "update" }
  >;
  return op.chunks;
}

describe("applyChunks", () => {
  it("keeps the file's own text for context lines matched fuzzily", () => {
    const text = "if x:\u00A0\n    say(\u201chi\u201d)  \n    done()\n";
    const out = applyChunks(text, chunksOf('@@\n if x:\n     say("hi")\n-    done()\n+    finish()'));
    expect(out).toBe("if x:\u00A0\n    say(\u201chi\u201d)  \n    finish()\n");
  });

  it("gives added lines the dominant line ending and keeps others untouched", () => {
    const out = applyChunks("a\r\nb\r\nc\n", chunksOf("@@\n a\n+new\n b"));
    expect(out).toBe("a\r\nnew\r\nb\r\nc\n");
  });

  it("preserves a missing final newline, and adds one to an empty file", () => {
    expect(applyChunks("a\nb", chunksOf("@@\n a\n-b\n+B\n+C"))).toBe("a\nB\nC");
    expect(applyChunks("a\nb", chunksOf("@@\n a\n b\n+c"))).toBe("a\nb\nc");
    expect(applyChunks("", chunksOf("@@\n+first"))).toBe("first\n");
  });

  it("inserts an add-only chunk below its @@ context, or at the end without one", () => {
    expect(applyChunks("a\nb\nc\n", chunksOf("@@ a\n+after a"))).toBe("a\nafter a\nb\nc\n");
    expect(applyChunks("a\nb\n", chunksOf("@@\n+tail"))).toBe("a\nb\ntail\n");
  });

  it("retries without a trailing blank context line", () => {
    expect(applyChunks("x\ny\n", chunksOf("@@\n x\n-y\n+z\n"))).toBe("x\nz\n");
  });

  it("applies chunks in order, each searched after the previous one", () => {
    const out = applyChunks("v\nv\nv\n", chunksOf("@@\n-v\n+1\n@@\n-v\n+2"));
    expect(out).toBe("1\n2\nv\n");
  });

  it("can delete every line", () => {
    expect(applyChunks("a\nb\n", chunksOf("@@\n-a\n-b"))).toBe("");
  });

  it("names the failing chunk, the expected lines and the closest text", () => {
    const text = "one\ntwo\nthree\nfour();\n";
    let err: unknown;
    try {
      applyChunks(text, chunksOf("@@\n one\n-two\n+2\n@@ three\n-four()\n+4"));
    } catch (e) {
      err = e;
    }
    expect(PatchApplyError.isInstance(err)).toBe(true);
    expect((err as Error).message).toBe(
      "chunk 2 of 2 '@@ three' (patch line 7) did not match. Expected these lines after line 3:\n" +
        "    four()\n" +
        "The most similar lines are at line 4:\n" +
        "    four();",
    );
  });

  it("reports a context line that is not found after the previous chunk", () => {
    expect(() => applyChunks("a\nb\n", chunksOf("@@\n-b\n+c\n@@ a\n+x"))).toThrow(
      "chunk 2 of 2 '@@ a' (patch line 6): context line '@@ a' was not found after line 2.",
    );
  });
});
