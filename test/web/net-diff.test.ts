/**
 * The thread's files-changed view (web/src/lib/net-diff.ts): the turns' diffs composed per file.
 * The property: for any file and any sequence of edits, each turn's diff made by jsdiff (as git
 * would write it), the composed net diff applied to the original gives the final text. Plus the
 * cases a reader sees: edits that cancel, add then delete, a rename, and diffs that do not line
 * up (the file changed between turns), which are shown turn by turn instead.
 */
import { applyPatch, createTwoFilesPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DiffFile, parseUnifiedDiff } from "../../web/src/lib/diff.js";
import { netDiff } from "../../web/src/lib/net-diff.js";

/** A turn's diff of one file as git writes it (a/ b/ prefixes, 3 lines of context). */
function turn(path: string, before: string | null, after: string | null, to = path): DiffFile[] {
  const text = createTwoFilesPatch(
    before === null ? "/dev/null" : `a/${path}`,
    after === null ? "/dev/null" : `b/${to}`,
    before ?? "",
    after ?? "",
    "",
    "",
    { context: 3 },
  ).replace(/^=+\n/, "");
  return parseUnifiedDiff(text);
}

/** A DiffFile back as unified diff text, for jsdiff to apply. */
function unified(f: DiffFile): string {
  const sign = { add: "+", del: "-", ctx: " " } as Record<string, string>;
  const body = f.lines.map((l) => (l.t === "hunk" || l.t === "meta" ? l.text : `${sign[l.t]}${l.text}`));
  return [`--- a/${f.path}`, `+++ b/${f.move_path ?? f.path}`, ...body, ""].join("\n");
}

const text = (lines: string[]) => (lines.length ? `${lines.join("\n")}\n` : "");

describe("netDiff", () => {
  // Fails if a hunk is placed by the wrong line numbers (offsets of earlier hunks or turns), if a
  // line added and changed again shows its intermediate text, or if unknown lines are miscounted.
  it("composes any sequence of edits into the net change (applied to the original it gives the final)", () => {
    const line = fc.constantFrom("a", "b", "c", "d", "e", "f", "g");
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 3 }),
      insert: fc.array(line, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.array(fc.array(edit, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        (orig, turns) => {
          let cur = [...orig];
          const diffs: DiffFile[][] = [];
          for (const edits of turns) {
            const next = [...cur];
            for (const e of edits) next.splice(e.at % (next.length + 1), e.remove, ...e.insert);
            if (text(next) === text(cur) || next.length === 0) continue;
            diffs.push(turn("f.txt", text(cur), text(next)));
            cur = next;
          }
          if (!diffs.length) return;
          const [net] = netDiff(diffs);
          expect(net.exact).toBe(true);
          expect(net.turns).toBe(diffs.length);
          const applied = applyPatch(text(orig), unified(net.file));
          expect(applied).toBe(text(cur));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("edits that cancel leave no hunk; edits in two turns sit at the original's line numbers", () => {
    const orig = text(Array.from({ length: 20 }, (_, i) => `line ${i + 1}`));
    const v1 = orig.replace("line 2\n", "two\n");
    const v2 = v1.replace("two\n", "line 2\n");
    const [cancelled] = netDiff([turn("x", orig, v1), turn("x", v1, v2)]);
    expect(cancelled).toMatchObject({ exact: true, file: { kind: "update", lines: [] } });

    const a = `top 1\ntop 2\n${orig}`.replace("line 15\n", "fifteen\n");
    const [both] = netDiff([turn("x", orig, `top 1\ntop 2\n${orig}`), turn("x", `top 1\ntop 2\n${orig}`, a)]);
    const hunks = both.file.lines.filter((l) => l.t === "hunk").map((l) => l.text);
    expect(hunks).toEqual(["@@ -1,3 +1,5 @@", "@@ -12,7 +14,7 @@"]);
    expect(both.file.lines.filter((l) => l.t === "del").map((l) => l.text)).toEqual(["line 15"]);
  });

  it("a file added then changed is one addition; added then deleted is no change; a deleted one is a deletion", () => {
    const [added] = netDiff([turn("n", null, "one\n"), turn("n", "one\n", "one\ntwo\n")]);
    expect(added.file.kind).toBe("add");
    expect(added.file.lines.filter((l) => l.t === "add").map((l) => l.text)).toEqual(["one", "two"]);
    expect(added.file.lines.some((l) => l.t === "del")).toBe(false);

    const [gone] = netDiff([turn("n", null, "one\n"), turn("n", "one\n", null)]);
    expect(gone.file.lines).toEqual([]);

    const [deleted] = netDiff([turn("d", "x\ny\n", "x\nz\n"), turn("d", "x\nz\n", null)]);
    expect(deleted.file.kind).toBe("delete");
    expect(deleted.file.lines.filter((l) => l.t === "del").map((l) => l.text)).toEqual(["x", "y"]);
  });

  it("follows a rename: later turns' changes to the new path join the file's entry", () => {
    const files = netDiff([
      turn("old.txt", "a\nb\n", "a\nB\n", "new.txt"),
      turn("new.txt", "a\nB\n", "A\nB\n"),
    ]);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ path: "new.txt", exact: true, turns: 2 });
    expect(files[0].file).toMatchObject({ kind: "move", path: "old.txt", move_path: "new.txt" });
    expect(applyPatch("a\nb\n", unified(files[0].file))).toBe("A\nB\n");
  });

  // Fails if diffs that do not line up are composed anyway (the view would show a change nobody
  // made) instead of each turn's own change.
  it("diffs that do not line up (changed between turns) are shown turn by turn", () => {
    const first = turn("x", "a\nb\nc\n", "a\nB\nc\n");
    const second = turn("x", "a\nsomething else\nc\n", "a\nsomething else\nC\n");
    const [f] = netDiff([first, second]);
    expect(f.exact).toBe(false);
    expect(f.file.lines.filter((l) => l.t === "meta").map((l) => l.text)).toEqual([
      "turn 1 of 2 that changed it",
      "turn 2 of 2 that changed it",
    ]);
    expect(f.file.lines.filter((l) => l.t === "add").map((l) => l.text)).toEqual(["B", "C"]);
    const binary = netDiff([
      [{ path: "img.png", kind: "update", lines: [{ t: "meta", text: "Binary files differ" }] }],
    ]);
    expect(binary[0].exact).toBe(false);
  });
});
