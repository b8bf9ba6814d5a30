/** Adversarial tests of the workspace watch: links, swapped directories, bounds, pacing, odd writes. */
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RULE_FILE_MAX } from "./ignore-rules.js";
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
    storeFile: join(mk("tandem-rt-state-"), "cp.db"),
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

const OUTSIDE = "TOP-SECRET-OUTSIDE-THE-WORKSPACE";

/** Every blob the store holds, as text. */
function blobs(ws: Workspace): string[] {
  const db = (ws.store as unknown as { db: { prepare(s: string): { all(): { hash: string }[] } } }).db;
  return db
    .prepare("SELECT hash FROM blobs")
    .all()
    .map((r) => ws.store.getBlob(r.hash)?.toString("utf8") ?? "");
}

describe("red team: the workspace watch never reads outside its root", () => {
  // Fails if a dirty path is read through a directory on its way that became a link (the
  // event names `d/sub/secret.key`; `root/d/sub/secret.key` now leads outside).
  it("a watched directory moved away and replaced by a symlink: its dirty entries are not read through the link", async () => {
    const outside = mk("tandem-rt-outside-");
    mkdirSync(join(outside, "sub"));
    writeFileSync(join(outside, "secret.key"), OUTSIDE);
    writeFileSync(join(outside, "sub", "secret.key"), OUTSIDE);
    const root = mk("tandem-rt-ws-");
    mkdirSync(join(root, "d", "sub"), { recursive: true });
    writeFileSync(join(root, "d", "keep.txt"), "k\n");
    const ws = workspace(root);
    await ws.ready();
    // One command: touch files in the watched dirs, move the dir away, put a link in its place.
    writeFileSync(join(root, "d", "secret.key"), "inside\n");
    writeFileSync(join(root, "d", "sub", "secret.key"), "inside\n");
    renameSync(join(root, "d"), join(root, "d2"));
    symlinkSync(outside, join(root, "d"));
    const changes = await ws.sync();
    const shown = changes.map((c) => ws.content(c.after)?.toString("utf8") ?? "");
    expect(shown.join("\n")).not.toContain(OUTSIDE);
    expect(blobs(ws).join("\n")).not.toContain(OUTSIDE);
    // What did happen is reported: the link, and the files under their new name.
    expect(changes.filter((c) => c.after).map((c) => [c.path, c.after?.kind])).toEqual([
      ["d", "link"],
      ["d2/keep.txt", "file"],
      ["d2/secret.key", "file"],
      ["d2/sub/secret.key", "file"],
    ]);
  });
});

describe("red team: the checkpoint store stays bounded", () => {
  // Fails if blobs nothing refers to any more (a file's earlier contents, overwritten before a
  // checkpoint kept them) are never dropped, or old checkpoints never go: a command that
  // rewrites one file with fresh random content makes the store grow by its size on every sync,
  // for ever, while the workspace stays one file.
  it("rewriting one file many times does not grow the store past its bound", async () => {
    const root = mk("tandem-rt-ws-");
    writeFileSync(join(root, "f.bin"), randomBytes(1 << 20));
    const ws = workspace(root, { limits: { maxCheckpointBytes: 4 << 20 } });
    await ws.ready();
    // One turn rewrites it 12 times (its checkpoint keeps the first and last states), then 12
    // turns rewrite it once each (every state is some checkpoint's before or after).
    const cp = ws.store.checkpoint("t1", "turn0");
    for (let i = 0; i < 24; i++) {
      writeFileSync(join(root, "f.bin"), randomBytes(1 << 20));
      const turn = i < 12 ? cp : ws.store.checkpoint("t1", `turn${i}`);
      for (const c of await ws.sync()) ws.store.recordChange(turn.id, c.path, c.before, c.after);
    }
    const db = (ws.store as unknown as { db: { prepare(s: string): { get(): { n: number } } } }).db;
    const bytes = db.prepare("SELECT sum(length(data)) AS n FROM blobs").get().n;
    // The baseline (1 MiB) plus at most the bound, plus what the last sync added before a prune.
    expect(bytes).toBeLessThan(7 << 20);
    // The baseline is intact: the current content is still there.
    const row = ws.store.file("f.bin");
    expect(ws.content(row ?? null)?.length).toBe(1 << 20);
  });
});

describe("red team: a sync never holds the event loop for the whole change", () => {
  // Fails if the loop over the watcher's dirty paths never yields: a command that touches many
  // files (each costly to judge against a huge .gitignore) would then freeze the process —
  // signals, other threads, the HTTP server — until every path was examined.
  it("examining many dirty paths lets other work run in between", async () => {
    const root = mk("tandem-rt-ws-");
    const ws = workspace(root);
    await ws.ready();
    for (let i = 0; i < 2000; i++) writeFileSync(join(root, `f${i}.txt`), `${i}\n`);
    const seen = new Set<number>();
    let running = true;
    const probe = () => {
      if (!running) return;
      seen.add(ws.store.countFiles());
      setImmediate(probe);
    };
    setImmediate(probe);
    const changes = await ws.sync();
    running = false;
    expect(changes).toHaveLength(2000);
    // Some tick ran while the sync was half way.
    expect(
      [...seen].some((n) => n > 0 && n < 2000),
      `counts seen: ${[...seen].join(",")}`,
    ).toBe(true);
  });
});

describe("red team: a huge .gitignore", () => {
  // Fails if a rule file is read whole however large (a megabyte of patterns cost seconds per
  // compile and ~90 ms per path), or if the cut applies half a pattern.
  it("only its first RULE_FILE_MAX bytes apply, cut at a line", async () => {
    const filler = Array.from({ length: 4000 }, (_, i) => `filler-${i}-*.tmp`).join("\n");
    expect(filler.length).toBeGreaterThan(RULE_FILE_MAX);
    const head = "early.log\n";
    const root = mk("tandem-rt-ws-");
    const ws = workspace(root);
    await ws.ready();
    writeFileSync(join(root, ".gitignore"), `${head}${filler}\nlate.log\n`);
    await ws.sync();
    for (const f of ["early.log", "late.log", "filler-1-x.tmp"]) writeFileSync(join(root, f), "x\n");
    const paths = (await ws.sync()).map((c) => c.path).sort();
    // early.log and the first fillers are ignored; late.log, past the cut, is tracked.
    expect(paths).toEqual(["late.log"]);
  });
});

describe("red team: a change made through a hard link", () => {
  // Events cannot see it: written through a second name in an ignored directory (node_modules/
  // is never watched), src/app.js changes with no event on src/. Fails if verify's stat pass
  // does not find it either (the turn diff would never show it).
  it("a tracked file changed through its hard link in node_modules: sync misses it, verify finds it", async () => {
    const root = mk("tandem-rt-ws-");
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "app.js"), "ok();\n");
    const ws = workspace(root);
    await ws.ready();
    mkdirSync(join(root, "node_modules"));
    linkSync(join(root, "src", "app.js"), join(root, "node_modules", "h"));
    await ws.sync();
    appendFileSync(join(root, "node_modules", "h"), "backdoor();\n");
    expect(await ws.sync()).toEqual([]);
    const changes = await ws.verify();
    expect(changes.map((c) => [c.path, ws.content(c.after)?.toString()])).toEqual([
      ["src/app.js", "ok();\nbackdoor();\n"],
    ]);
  });
});

describe("red team: a write the file's stat does not show", () => {
  // On a file system with coarse timestamps (a jiffy, before Linux 6.13's fine-grained ones), a
  // write in the same tick as Tandem's last read leaves size, mtime and ctime as recorded.
  // Simulated: the baseline row is given the new stat. Fails if a path an event named is
  // skipped because its stat matches.
  it("a dirty path is read again even when its stat matches the baseline", async () => {
    const root = mk("tandem-rt-ws-");
    writeFileSync(join(root, "a.txt"), "one\n");
    const ws = workspace(root);
    await ws.ready();
    writeFileSync(join(root, "a.txt"), "two\n");
    const st = lstatSync(join(root, "a.txt"));
    const row = ws.store.file("a.txt")!;
    ws.store.putFile({ ...row, size: st.size, mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino });
    const changes = await ws.sync();
    expect(
      changes.map((c) => [c.path, ws.content(c.before)?.toString(), ws.content(c.after)?.toString()]),
    ).toEqual([["a.txt", "one\n", "two\n"]]);
  });
});
