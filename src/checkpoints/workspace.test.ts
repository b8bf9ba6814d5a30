/** Workspace tracking against real directories: events, ignore rules, persistence, odd files. */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CheckpointStore } from "./store.js";
import { Workspace, type WorkspaceChange, type WorkspaceOptions } from "./workspace.js";

const dirs: string[] = [];
const open: Workspace[] = [];
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "tandem-ws-"));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}
function workspace(root: string, opts: Partial<WorkspaceOptions> = {}): Workspace {
  const state = mkdtempSync(join(tmpdir(), "tandem-ws-state-"));
  dirs.push(state);
  const ws = Workspace.open(root, { storeFile: join(state, "cp.db"), globalExcludes: null, ...opts });
  open.push(ws);
  return ws;
}
afterEach(() => {
  for (const w of open.splice(0)) w.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const text = (ws: Workspace, s: WorkspaceChange["before"]) => ws.content(s)?.toString("utf8") ?? null;
const summary = (ws: Workspace, cs: WorkspaceChange[]) =>
  cs
    .map((c) => [c.path, text(ws, c.before), text(ws, c.after)])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe("Workspace", () => {
  it("reports what changed since the last sync, with content before and after, once", async () => {
    const root = tree({ "a.txt": "a\n", "src/b.txt": "b\n", "gone.txt": "x\n" });
    const ws = workspace(root);
    await ws.ready();
    // fails if the first scan reports the existing files as changes
    expect(await ws.sync()).toEqual([]);
    writeFileSync(join(root, "src/b.txt"), "b2\n");
    writeFileSync(join(root, "new.txt"), "n\n");
    rmSync(join(root, "gone.txt"));
    // fails if the watcher misses an event or the baseline lost a file's content
    expect(summary(ws, await ws.sync())).toEqual([
      ["gone.txt", "x\n", null],
      ["new.txt", null, "n\n"],
      ["src/b.txt", "b\n", "b2\n"],
    ]);
    // fails if sync does not move the baseline forward
    expect(await ws.sync()).toEqual([]);
  });

  it("a workspace that is Tandem's home, or inside it, is not tracked (its databases change on every event)", async () => {
    const home = tree({ "state.db": "s1", "sub/x.txt": "x\n" });
    for (const root of [home, join(home, "sub")]) {
      const ws = workspace(root, { protectedPaths: [home], ownRoots: [home] });
      await ws.ready();
      writeFileSync(join(root, "new.txt"), `${root}\n`);
      // fails if the home's own files are scanned, watched and recorded as changes
      expect(ws.tracked).toBe(false);
      expect(await ws.sync()).toEqual([]);
      expect(await ws.verify()).toEqual([]);
    }
    // a workspace that merely contains the home still tracks everything else
    const outer = tree({ "a.txt": "a\n", "home/state.db": "s" });
    const ws = workspace(outer, { protectedPaths: [join(outer, "home")], ownRoots: [join(outer, "home")] });
    await ws.ready();
    writeFileSync(join(outer, "a.txt"), "a2\n");
    writeFileSync(join(outer, "home/state.db"), "s2");
    expect(summary(ws, await ws.sync())).toEqual([["a.txt", "a\n", "a2\n"]]);
  });

  it("a new directory tree and a removed one are reported file by file", async () => {
    const root = tree({ "old/x.txt": "x\n", "old/deep/y.txt": "y\n" });
    const ws = workspace(root);
    await ws.ready();
    mkdirSync(join(root, "fresh/inner"), { recursive: true });
    writeFileSync(join(root, "fresh/inner/z.txt"), "z\n");
    rmSync(join(root, "old"), { recursive: true });
    expect(summary(ws, await ws.sync())).toEqual([
      ["fresh/inner/z.txt", null, "z\n"],
      ["old/deep/y.txt", "y\n", null],
      ["old/x.txt", "x\n", null],
    ]);
    // fails if the new directory is not watched after it was scanned
    writeFileSync(join(root, "fresh/inner/z.txt"), "z2\n");
    expect(summary(ws, await ws.sync())).toEqual([["fresh/inner/z.txt", "z\n", "z2\n"]]);
  });

  it("leaves out what git would ignore: .gitignore at every level, negation, node_modules, .git", async () => {
    const root = tree({
      ".gitignore": "*.log\nbuild/\n",
      "sub/.gitignore": "!keep.log\n",
      "kept.txt": "k\n",
    });
    const ws = workspace(root);
    await ws.ready();
    writeFileSync(join(root, "debug.log"), "noise\n");
    writeFileSync(join(root, "sub/keep.log"), "kept\n");
    mkdirSync(join(root, "build"));
    writeFileSync(join(root, "build/out.js"), "x\n");
    mkdirSync(join(root, "node_modules/pkg"), { recursive: true });
    writeFileSync(join(root, "node_modules/pkg/index.js"), "x\n");
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".git/config"), "[core]\n");
    // fails if ignore rules are not applied (or a deeper negation does not win)
    expect(summary(ws, await ws.sync())).toEqual([["sub/keep.log", null, "kept\n"]]);
  });

  it("stores symlinks as links without following them; FIFOs and sockets are skipped, never opened", async () => {
    const root = tree({ "a.txt": "a\n" });
    const ws = workspace(root);
    await ws.ready();
    symlinkSync("/etc", join(root, "etc-link"));
    execFileSync("mkfifo", [join(root, "pipe")]);
    const changes = await ws.sync();
    // fails if the link is followed (its target listed) or the FIFO blocks the sync
    expect(changes.map((c) => [c.path, c.after?.kind])).toEqual([["etc-link", "link"]]);
    expect(text(ws, changes[0].after)).toBe("/etc");
  });

  it("reports a mode change", async () => {
    const root = tree({ "run.sh": "echo\n" });
    const ws = workspace(root);
    await ws.ready();
    chmodSync(join(root, "run.sh"), 0o755);
    const [c] = await ws.sync();
    // fails if only content is compared
    expect([c.path, c.before?.mode, c.after?.mode]).toEqual(["run.sh", 0o644, 0o755]);
  });

  it("keeps its baseline across processes: a change made while closed is absorbed, not reported", async () => {
    const root = tree({ "a.txt": "a\n" });
    const state = mkdtempSync(join(tmpdir(), "tandem-ws-state-"));
    dirs.push(state);
    const storeFile = join(state, "cp.db");
    const first = Workspace.open(root, { storeFile, globalExcludes: null });
    await first.ready();
    first.close();
    writeFileSync(join(root, "a.txt"), "edited by the user\n");
    const second = Workspace.open(root, { storeFile, globalExcludes: null });
    open.push(second);
    await second.ready();
    expect(await second.sync()).toEqual([]);
    writeFileSync(join(root, "a.txt"), "by a command\n");
    // fails if the second scan did not update the stored baseline (the old text would show)
    expect(summary(second, await second.sync())).toEqual([
      ["a.txt", "edited by the user\n", "by a command\n"],
    ]);
  });

  it("never scans Tandem's own state inside the workspace", async () => {
    const root = tree({ "a.txt": "a\n", "home/config.toml": "secret = 1\n" });
    const ws = workspace(root, { protectedPaths: [join(root, "home")] });
    await ws.ready();
    writeFileSync(join(root, "home/state.db"), "x");
    writeFileSync(join(root, "b.txt"), "b\n");
    // fails if protected paths are scanned
    expect((await ws.sync()).map((c) => c.path)).toEqual(["b.txt"]);
    expect(ws.store.file("home/config.toml")).toBeUndefined();
  });

  it("without a trusted watcher (too many directories) it rescans and reports the same", async () => {
    const root = tree({ "a/x.txt": "x\n", "b/y.txt": "y\n" });
    const ws = workspace(root, { limits: { maxDirs: 1 } });
    await ws.ready();
    writeFileSync(join(root, "b/y.txt"), "y2\n");
    rmSync(join(root, "a"), { recursive: true });
    expect(summary(ws, await ws.sync())).toEqual([
      ["a/x.txt", "x\n", null],
      ["b/y.txt", "y\n", "y2\n"],
    ]);
  });

  it("examine() takes a caller's own writes into the baseline, so sync does not report them again", async () => {
    const root = tree({ "a.txt": "a\n" });
    const ws = workspace(root);
    await ws.ready();
    writeFileSync(join(root, "a.txt"), "patched\n");
    expect(summary(ws, await ws.examine(["a.txt"]))).toEqual([["a.txt", "a\n", "patched\n"]]);
    // fails if examine does not move the baseline
    expect(await ws.sync()).toEqual([]);
  });

  it("a workspace over maxFiles is not tracked", async () => {
    const root = tree({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    const ws = workspace(root, { limits: { maxFiles: 2 } });
    await ws.ready();
    writeFileSync(join(root, "d.txt"), "d\n");
    expect(ws.tracked).toBe(false);
    expect(await ws.sync()).toEqual([]);
  });

  it("close() stops a first scan still running: shutdown never waits for a large workspace", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`d${i % 60}/f${i}.txt`] = `${i}\n`;
    const root = tree(files);
    const ws = workspace(root);
    ws.close();
    await ws.ready();
    // fails if the scan runs to its end after close (every file would be stored)
    const reopened = new CheckpointStore(ws.store.path);
    expect(reopened.countFiles()).toBeLessThan(3000);
    reopened.close();
  });
});

describe("Workspace.verifyUnless", () => {
  // Fails if a pass stopped early counts the directories it did not reach as removed: their
  // files would be reported deleted and dropped from the baseline.
  it("a pass stopped before the end reports nothing gone and keeps the baseline", async () => {
    const root = tree({ "a/x.txt": "x\n", "b/y.txt": "y\n", "c/d/z.txt": "z\n" });
    const ws = workspace(root);
    await ws.ready();
    writeFileSync(join(root, "b", "y.txt"), "changed\n");
    let dirs = 0;
    const pass = await ws.verifyUnless(() => ++dirs > 2); // the root and one directory
    expect(pass.complete).toBe(false);
    expect(pass.changes.filter((c) => c.after === null)).toEqual([]);
    for (const p of ["a/x.txt", "b/y.txt", "c/d/z.txt"]) expect(ws.store.file(p), p).toBeDefined();
    // A full pass afterwards finds the change, once.
    const full = await ws.verifyUnless(() => false);
    expect(full.complete).toBe(true);
    expect(summary(ws, full.changes)).toEqual(pass.changes.length ? [] : [["b/y.txt", "y\n", "changed\n"]]);
  });
});
