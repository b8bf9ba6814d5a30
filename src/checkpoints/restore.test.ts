/**
 * The restore engine (restore.ts): attacks first — a restore never writes through a link the
 * model planted, never leaves the workspace, never writes a withheld file — then what undo and
 * redo put back, byte for byte, and the conflicts they report.
 */
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyRestore, planRestore } from "./restore.js";
import { Workspace, type WorkspaceOptions } from "./workspace.js";

const dirs: string[] = [];
const open: Workspace[] = [];
function mk(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
function workspace(root: string, opts: Partial<WorkspaceOptions> = {}): Workspace {
  const ws = Workspace.open(root, {
    storeFile: join(mk("tandem-rs-state-"), "cp.db"),
    globalExcludes: null,
    ...opts,
  });
  open.push(ws);
  return ws;
}
afterEach(() => {
  for (const w of open.splice(0)) w.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs `change` as one turn of thread "thr": its changes go into that turn's checkpoint. */
async function turn(ws: Workspace, turnId: string, change: () => void): Promise<number> {
  await ws.sync();
  change();
  const changes = await ws.sync();
  const cp = ws.store.checkpoint("thr", turnId);
  for (const c of changes) ws.store.recordChange(cp.id, c.path, c.before, c.after);
  return cp.id;
}

/** Every entry under `dir` (names, recursively), for "nothing was written here". */
const listing = (dir: string) => readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();

describe("red team: a restore never writes through a planted link", () => {
  // Fails if the restore opens `a.txt` for writing (following the link) instead of replacing it.
  it("a file swapped for a link to a file outside: overwriting replaces the link, the outside file is untouched", async () => {
    const outside = mk("tandem-rs-outside-");
    writeFileSync(join(outside, "config.toml"), "token = 'keep'\n");
    const root = mk("tandem-rs-ws-");
    writeFileSync(join(root, "a.txt"), "before\n");
    const ws = workspace(root);
    await ws.ready();
    const id = await turn(ws, "t1", () => writeFileSync(join(root, "a.txt"), "after\n"));
    // The model, after the turn, plants a link where the file was.
    unlinkSync(join(root, "a.txt"));
    symlinkSync(join(outside, "config.toml"), join(root, "a.txt"));
    const plan = planRestore(ws, id, "undo");
    expect(plan.steps).toEqual([]);
    expect(plan.conflicts.map((c) => [c.path, c.reason])).toEqual([["a.txt", "it is a symbolic link now"]]);
    const r = await applyRestore(ws, plan, { overwrite: true });
    expect(r.applied).toEqual(["a.txt"]);
    expect(readFileSync(join(outside, "config.toml"), "utf8")).toBe("token = 'keep'\n");
    expect(lstatSync(join(root, "a.txt")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("before\n");
  });

  // Fails if the restore writes into the existing inode (open + write) instead of renaming a new
  // file over the name: a hard link the model made to a file outside would carry the write out.
  it("a file hard-linked to a file outside: the outside file keeps its bytes", async () => {
    const outside = mk("tandem-rs-outside-");
    const root = mk("tandem-rs-ws-");
    writeFileSync(join(outside, "victim.txt"), "outside, keep\n");
    writeFileSync(join(root, "a.txt"), "before\n");
    const ws = workspace(root);
    await ws.ready();
    const id = await turn(ws, "t1", () => {
      unlinkSync(join(root, "a.txt"));
      linkSync(join(outside, "victim.txt"), join(root, "a.txt"));
    });
    const plan = planRestore(ws, id, "undo");
    expect(plan.steps.map((s) => s.path)).toEqual(["a.txt"]);
    await applyRestore(ws, plan, { overwrite: false });
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("outside, keep\n");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("before\n");
  });

  // Fails if a directory on the way is followed (the write lands in the outside directory).
  it("a directory swapped for a link after the plan: nothing is written through it", async () => {
    const outside = mk("tandem-rs-outside-");
    const root = mk("tandem-rs-ws-");
    mkdirSync(join(root, "d"));
    writeFileSync(join(root, "d", "f.txt"), "before\n");
    const ws = workspace(root);
    await ws.ready();
    const id = await turn(ws, "t1", () => writeFileSync(join(root, "d", "f.txt"), "after\n"));
    const plan = planRestore(ws, id, "undo");
    expect(plan.steps.map((s) => s.path)).toEqual(["d/f.txt"]);
    // Between the plan and the write, `d` becomes a link to a directory outside.
    renameSync(join(root, "d"), join(root, "d-moved"));
    symlinkSync(outside, join(root, "d"));
    const r = await applyRestore(ws, plan, { overwrite: true });
    expect(r.applied).toEqual([]);
    expect(r.failed.map((f) => f.path)).toEqual(["d/f.txt"]);
    expect(r.failed[0].reason).toMatch(/symbolic link/);
    expect(listing(outside)).toEqual([]);
    expect(ws.store.checkpointById(id)?.state).toBe("live");
  });

  // Fails if a deleted file's directory is recreated through a link (mkdir/open follow it).
  it("a deleted file whose directory is now a link to the home: not recreated there", async () => {
    const home = mk("tandem-rs-home-");
    const root = mk("tandem-rs-ws-");
    mkdirSync(join(root, "sub"));
    writeFileSync(join(root, "sub", "gone.txt"), "was here\n");
    const ws = workspace(root);
    await ws.ready();
    const id = await turn(ws, "t1", () => rmSync(join(root, "sub"), { recursive: true }));
    symlinkSync(home, join(root, "sub"));
    const plan = planRestore(ws, id, "undo");
    expect(plan.conflicts.map((c) => c.path)).toEqual(["sub/gone.txt"]);
    const r = await applyRestore(ws, plan, { overwrite: true });
    expect(r.failed.map((f) => f.path)).toEqual(["sub/gone.txt"]);
    expect(listing(home)).toEqual([]);
  });

  // Fails if the link check of an intermediate component is dropped (only the last is O_NOFOLLOW).
  it("a link two levels up: a created file is not removed through it", async () => {
    const outside = mk("tandem-rs-outside-");
    mkdirSync(join(outside, "b"));
    writeFileSync(join(outside, "b", "new.txt"), "outside, keep\n");
    const root = mk("tandem-rs-ws-");
    mkdirSync(join(root, "a", "b"), { recursive: true });
    const ws = workspace(root);
    await ws.ready();
    const id = await turn(ws, "t1", () => writeFileSync(join(root, "a", "b", "new.txt"), "outside, keep\n"));
    rmSync(join(root, "a"), { recursive: true });
    symlinkSync(outside, join(root, "a"));
    const r = await applyRestore(ws, planRestore(ws, id, "undo"), { overwrite: true });
    expect(r.applied).toEqual([]);
    expect(readFileSync(join(outside, "b", "new.txt"), "utf8")).toBe("outside, keep\n");
  });

  // Fails if a withheld file is "restored" (with nothing, or whatever a missing blob yields).
  it("a file that held a secret is reported as not restorable and left alone", async () => {
    const SECRET = "sk-live-7f1e";
    const root = mk("tandem-rs-ws-");
    writeFileSync(join(root, ".env"), `KEY=${SECRET}\n`);
    writeFileSync(join(root, "plain.txt"), "one\n");
    const ws = workspace(root, { withhold: (d) => d.includes(SECRET) });
    await ws.ready();
    const id = await turn(ws, "t1", () => {
      writeFileSync(join(root, ".env"), "KEY=\n");
      writeFileSync(join(root, "plain.txt"), "two\n");
    });
    const plan = planRestore(ws, id, "undo");
    expect(plan.unrestorable.map((u) => u.path)).toEqual([".env"]);
    expect(plan.unrestorable[0].reason).toMatch(/secret value.*cannot be restored/);
    expect(plan.diff).not.toContain(SECRET);
    const r = await applyRestore(ws, plan, { overwrite: true });
    expect(r.applied).toEqual(["plain.txt"]);
    expect(readFileSync(join(root, ".env"), "utf8")).toBe("KEY=\n");
    expect(readFileSync(join(root, "plain.txt"), "utf8")).toBe("one\n");
  });
});

describe("undo and redo of one turn", () => {
  it("puts back modified, created, deleted files, links and modes byte for byte; redo re-applies", async () => {
    const root = mk("tandem-rs-ws-");
    const bin = Buffer.from([0, 1, 2, 255, 10, 13]);
    writeFileSync(join(root, "mod.txt"), "a\nb\nc\n");
    writeFileSync(join(root, "bin.dat"), bin);
    mkdirSync(join(root, "deep", "er"), { recursive: true });
    writeFileSync(join(root, "deep", "er", "del.txt"), "deleted\n");
    writeFileSync(join(root, "run.sh"), "#!/bin/sh\n");
    chmodSync(join(root, "run.sh"), 0o755);
    symlinkSync("mod.txt", join(root, "ln"));
    const ws = workspace(root);
    await ws.ready();
    const id = await turn(ws, "t1", () => {
      writeFileSync(join(root, "mod.txt"), "a\nB\nc\n");
      writeFileSync(join(root, "bin.dat"), Buffer.from([9, 9]));
      rmSync(join(root, "deep"), { recursive: true });
      writeFileSync(join(root, "new.txt"), "new\n");
      chmodSync(join(root, "run.sh"), 0o644);
      unlinkSync(join(root, "ln"));
      symlinkSync("bin.dat", join(root, "ln"));
    });
    const plan = planRestore(ws, id, "undo");
    expect(plan.conflicts).toEqual([]);
    expect(plan.steps.map((s) => s.path)).toEqual([
      "bin.dat",
      "deep/er/del.txt",
      "ln",
      "mod.txt",
      "new.txt",
      "run.sh",
    ]);
    expect(plan.diff).toContain("--- a/mod.txt\n+++ b/mod.txt\n@@ -1,3 +1,3 @@\n a\n-B\n+b\n c\n");
    expect(plan.diff).toContain("--- /dev/null\n+++ b/deep/er/del.txt\n");
    expect(plan.diff).toContain("--- a/new.txt\n+++ /dev/null\n");
    expect(plan.diff).toContain("old mode 100644\nnew mode 100755\n");
    const r = await applyRestore(ws, plan, { overwrite: false });
    expect(r).toEqual({ applied: plan.steps.map((s) => s.path), skipped: [], failed: [], unrestorable: [] });
    expect(readFileSync(join(root, "mod.txt"), "utf8")).toBe("a\nb\nc\n");
    expect(readFileSync(join(root, "bin.dat")).equals(bin)).toBe(true);
    expect(readFileSync(join(root, "deep", "er", "del.txt"), "utf8")).toBe("deleted\n");
    expect(existsSync(join(root, "new.txt"))).toBe(false);
    expect(lstatSync(join(root, "run.sh")).mode & 0o777).toBe(0o755);
    expect(readlinkSync(join(root, "ln"))).toBe("mod.txt");
    expect(ws.store.checkpointById(id)?.state).toBe("undone");
    // No temporary file is left behind.
    expect(listing(root).filter((n) => n.includes("tandem-restore"))).toEqual([]);
    // What the restore wrote is nobody's change: the next sync reports nothing.
    expect(await ws.sync()).toEqual([]);

    const redo = planRestore(ws, id, "redo");
    expect(redo.conflicts).toEqual([]);
    await applyRestore(ws, redo, { overwrite: false });
    expect(readFileSync(join(root, "mod.txt"), "utf8")).toBe("a\nB\nc\n");
    expect(readFileSync(join(root, "bin.dat")).equals(Buffer.from([9, 9]))).toBe(true);
    expect(existsSync(join(root, "deep", "er", "del.txt"))).toBe(false);
    expect(readFileSync(join(root, "new.txt"), "utf8")).toBe("new\n");
    expect(lstatSync(join(root, "run.sh")).mode & 0o777).toBe(0o644);
    expect(readlinkSync(join(root, "ln"))).toBe("bin.dat");
    expect(ws.store.checkpointById(id)?.state).toBe("live");
  });

  it("a file edited since the turn is a conflict: skipped unless overwritten", async () => {
    const root = mk("tandem-rs-ws-");
    writeFileSync(join(root, "a.txt"), "one\n");
    writeFileSync(join(root, "b.txt"), "bee\n");
    const ws = workspace(root);
    await ws.ready();
    const id = await turn(ws, "t1", () => {
      writeFileSync(join(root, "a.txt"), "two\n");
      writeFileSync(join(root, "b.txt"), "BEE\n");
    });
    writeFileSync(join(root, "a.txt"), "the user's edit\n");
    const plan = planRestore(ws, id, "undo");
    expect(plan.steps.map((s) => s.path)).toEqual(["b.txt"]);
    expect(plan.conflicts.map((c) => [c.path, c.reason])).toEqual([["a.txt", "it was edited since"]]);
    expect(plan.diff).toContain("-the user's edit\n+one\n");
    const skipped = await applyRestore(ws, plan, { overwrite: false });
    expect(skipped.skipped).toEqual(["a.txt"]);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("the user's edit\n");
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("bee\n");
    // Already restored files are not steps again; the conflict is still one.
    const again = planRestore(ws, id, "undo");
    expect(again.unchanged).toEqual(["b.txt"]);
    await applyRestore(ws, again, { overwrite: true });
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("one\n");
  });
});
