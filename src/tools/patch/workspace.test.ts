/** WorkspaceWatch against real directories: git work trees and plain ones, limits, apply_patch hand-off. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WATCH_LIMITS, WorkspaceWatch } from "./workspace.js";

const dirs: string[] = [];
function ws(files: Record<string, string>, gitRepo: boolean): string {
  const root = mkdtempSync(join(tmpdir(), "tandem-watch-"));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  if (gitRepo) {
    const g = (...a: string[]) => execFileSync("git", ["-C", root, ...a], { stdio: "ignore" });
    g("init", "-q");
    g("add", "-A");
    g("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
  }
  return root;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const summary = (cs: Awaited<ReturnType<WorkspaceWatch["changes"]>>) =>
  cs.map((c) => [c.kind, c.path, c.before, c.after]).sort();

describe.each([true, false])("WorkspaceWatch (git: %s)", (gitRepo) => {
  it("reports adds, edits and deletes with their before/after text, once", async () => {
    const root = ws({ "a.txt": "a\n", "src/b.txt": "b\n", "gone.txt": "x\n" }, gitRepo);
    if (gitRepo) writeFileSync(join(root, "dirty.txt"), "untracked before\n");
    const watch = (await WorkspaceWatch.take(root))!;
    writeFileSync(join(root, "src/b.txt"), "b2\n");
    writeFileSync(join(root, "new.txt"), "n\n");
    rmSync(join(root, "gone.txt"));
    if (gitRepo) writeFileSync(join(root, "dirty.txt"), "untracked after\n");
    // fails if a clean tracked file's baseline (its index blob) or a dirty file's stored text is lost
    expect(summary(await watch.changes())).toEqual(
      [
        ["delete", "gone.txt", "x\n", null],
        ["add", "new.txt", null, "n\n"],
        ["update", "src/b.txt", "b\n", "b2\n"],
        ...(gitRepo ? [["update", "dirty.txt", "untracked before\n", "untracked after\n"]] : []),
      ].sort(),
    );
    // fails if changes() does not move its state forward (the same change reported twice)
    expect(await watch.changes()).toEqual([]);
  });

  it("skips what apply_patch already reported (observe)", async () => {
    const root = ws({ "a.txt": "a\n" }, gitRepo);
    const watch = (await WorkspaceWatch.take(root))!;
    writeFileSync(join(root, "a.txt"), "patched\n");
    await watch.observe([
      { kind: "update", path: "a.txt", absPath: join(root, "a.txt"), before: "a\n", after: "patched\n" },
    ]);
    // fails if observe() does not record apply_patch's writes
    expect(await watch.changes()).toEqual([]);
  });
});

it("ignores git-ignored files and gives up on a workspace over maxFiles", async () => {
  const root = ws({ ".gitignore": "build/\n", "a.txt": "a\n" }, true);
  const watch = (await WorkspaceWatch.take(root))!;
  mkdirSync(join(root, "build"));
  writeFileSync(join(root, "build/out.txt"), "x\n");
  // fails if ignored files are listed (build outputs would flood the turn diff)
  expect(await watch.changes()).toEqual([]);
  // fails if the file limit is not enforced
  expect(await WorkspaceWatch.take(root, { ...WATCH_LIMITS, maxFiles: 1 })).toBeUndefined();
});

it("a plain directory that becomes a work tree mid-turn is listed by git from then on", async () => {
  const root = ws({ "a.txt": "a\n" }, false);
  const watch = (await WorkspaceWatch.take(root))!;
  writeFileSync(join(root, "b.txt"), "b\n");
  // fails if a plain directory's new file is missed (the walk)
  expect(summary(await watch.changes())).toEqual([["add", "b.txt", null, "b\n"]]);
  // The command makes it a work tree that ignores its build output: git lists it again, so
  // the ignored file stays out of the turn diff.
  execFileSync("git", ["-C", root, "init", "-q"], { stdio: "ignore" });
  writeFileSync(join(root, ".gitignore"), "*.log\n");
  writeFileSync(join(root, "out.log"), "built\n");
  // fails if changes() keeps walking after a .git appeared (ignored files flood the diff)
  expect(summary(await watch.changes())).toEqual([["add", ".gitignore", null, "*.log\n"]]);
});

it("lists a work tree's tracked and untracked files in one git call, ignoring what git ignores", async () => {
  const root = ws({ ".gitignore": "*.log\n", "a.txt": "a\n" }, true);
  const watch = (await WorkspaceWatch.take(root))!;
  writeFileSync(join(root, "a.txt"), "a2\n");
  writeFileSync(join(root, "new.txt"), "n\n");
  writeFileSync(join(root, "x.log"), "ignored\n");
  // fails if tracked or untracked-not-ignored files are missed, or ignored ones listed
  expect(summary(await watch.changes())).toEqual(
    [
      ["update", "a.txt", "a\n", "a2\n"],
      ["add", "new.txt", null, "n\n"],
    ].sort(),
  );
});

it("costs little on a 2,000-file git workspace (measured, printed; no threshold)", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 2000; i++) files[`d${i % 40}/f${i}.ts`] = `export const v${i} = ${i};\n`.repeat(20);
  for (const gitRepo of [true, false]) {
    const root = ws(files, gitRepo);
    const t0 = performance.now();
    const watch = (await WorkspaceWatch.take(root))!;
    const t1 = performance.now();
    writeFileSync(join(root, "d1/f1.ts"), "changed\n");
    const changes = await watch.changes();
    const t2 = performance.now();
    expect(changes.map((c) => c.path)).toEqual(["d1/f1.ts"]);
    console.log(
      `workspace watch, 2000 files, git=${gitRepo}: take ${(t1 - t0).toFixed(0)} ms, compare ${(t2 - t1).toFixed(0)} ms`,
    );
  }
});
