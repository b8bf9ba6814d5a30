/** The host door: bounded, killable program runs; reads that never block or follow. */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "../util/process-tree.js";
import { openDirExact, readRegular } from "./files.js";
import { hostProgram, runHost } from "./run.js";

const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), "tandem-host-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const PATH = process.env.PATH ?? "/usr/bin:/bin";

describe("runHost", () => {
  it("returns the program's output and exit code, with exactly the environment given", async () => {
    const r = await runHost("/bin/sh", {
      args: ["-c", 'echo "out $ONLY ${HOME:-nohome}"; echo err >&2; exit 3'],
      cwd: tmpdir(),
      env: { ONLY: "this", PATH },
      timeoutMs: 10_000,
    });
    // fails if the parent's environment leaks in (HOME would be set)
    expect(r).toMatchObject({ code: 3, stdout: "out this nohome\n", stderr: "err\n" });
    expect(r.error).toBeUndefined();
  });

  it("kills the whole tree at the deadline: a program that hangs, and the child it forked", async () => {
    const d = dir();
    const pidFile = join(d, "child.pid");
    const r = await runHost("/bin/sh", {
      args: ["-c", `sleep 300 & echo $! > ${pidFile}; wait`],
      cwd: d,
      env: { PATH },
      timeoutMs: 300,
    });
    // fails if the deadline does not end the call
    expect(r.error?.kind).toBe("timeout");
    const child = Number(execFileSync("cat", [pidFile], { encoding: "utf8" }).trim());
    // fails if only the direct child is killed (the background sleep would survive)
    for (let i = 0; i < 50 && isAlive(child); i++) await new Promise((res) => setTimeout(res, 20));
    expect(isAlive(child)).toBe(false);
  });

  it("keeps at most maxOutputBytes and counts the rest", async () => {
    const r = await runHost("/bin/sh", {
      args: ["-c", "head -c 100000 /dev/zero | tr '\\0' x"],
      cwd: tmpdir(),
      env: { PATH },
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(r.stdout.length).toBe(1000);
    expect(r.dropped).toBe(99_000);
  });

  it("an abort stops it; a program that cannot start is an error, not a throw", async () => {
    const ctrl = new AbortController();
    const p = runHost("/bin/sleep", {
      args: ["300"],
      cwd: tmpdir(),
      env: {},
      timeoutMs: 60_000,
      signal: ctrl.signal,
    });
    setTimeout(() => ctrl.abort(), 50);
    expect((await p).error?.kind).toBe("aborted");
    const missing = await runHost("/nonexistent/prog", { cwd: tmpdir(), env: {}, timeoutMs: 1000 });
    expect(missing.error?.kind).toBe("spawn");
  });
});

describe("hostProgram", () => {
  it("skips relative PATH entries and untrusted directories", () => {
    const ws = dir();
    const trusted = dir();
    for (const d of [ws, trusted]) {
      writeFileSync(join(d, "tool"), "#!/bin/sh\n");
      chmodSync(join(d, "tool"), 0o755);
    }
    // fails if a relative entry or a workspace directory can supply the program
    expect(hostProgram("tool", `.:${ws}:${trusted}`, [ws])).toBe(join(trusted, "tool"));
    expect(hostProgram("tool", `.:${ws}`, [ws])).toBeUndefined();
    expect(hostProgram("./tool", trusted, [])).toBeUndefined();
  });
});

describe("readRegular", () => {
  it("refuses a FIFO at once, a symlink with noFollow, and a file over the limit", () => {
    const d = dir();
    execFileSync("mkfifo", [join(d, "fifo")]);
    writeFileSync(join(d, "big"), "x".repeat(100));
    symlinkSync(join(d, "big"), join(d, "link"));
    mkdirSync(join(d, "sub"));
    // fails if the FIFO is opened blocking (the test would hang) or read
    expect(readRegular(join(d, "fifo"), { maxBytes: 10 })).toMatchObject({
      ok: false,
      reason: "not_regular",
    });
    expect(readRegular(join(d, "sub"), { maxBytes: 10 })).toMatchObject({ ok: false, reason: "not_regular" });
    expect(readRegular(join(d, "link"), { maxBytes: 1000, noFollow: true })).toMatchObject({
      ok: false,
      reason: "symlink",
    });
    expect(readRegular(join(d, "link"), { maxBytes: 1000 })).toMatchObject({ ok: true });
    expect(readRegular(join(d, "big"), { maxBytes: 10 })).toMatchObject({ ok: false, reason: "too_large" });
    const cut = readRegular(join(d, "big"), { maxBytes: 10, truncate: true });
    expect(cut.ok && cut.data.toString()).toBe("xxxxxxxxxx");
    expect(readRegular(join(d, "none"), { maxBytes: 10 })).toMatchObject({ ok: false, reason: "missing" });
  });
});

describe("openDirExact", () => {
  it("refuses a path through a link; a handle keeps to the directory checked when it is swapped for one", () => {
    const d = realpathSync(dir());
    mkdirSync(join(d, "real"));
    writeFileSync(join(d, "real", "inside.txt"), "in\n");
    mkdirSync(join(d, "elsewhere"));
    writeFileSync(join(d, "elsewhere", "outside.txt"), "out\n");
    symlinkSync(join(d, "elsewhere"), join(d, "link"));
    // fails if a symlinked directory (last component or on the way) is accepted
    expect(openDirExact(join(d, "link"))).toBeUndefined();
    symlinkSync(d, join(d, "up"));
    expect(openDirExact(join(d, "up", "real"))).toBeUndefined();
    expect(openDirExact(join(d, "real", "inside.txt"))).toBeUndefined();
    const h = openDirExact(join(d, "real"));
    expect(h).toBeDefined();
    // The directory moves away and a link to elsewhere takes its place: the handle still
    // names the directory that was checked (fails if it is the path, followed again).
    renameSync(join(d, "real"), join(d, "moved"));
    symlinkSync(join(d, "elsewhere"), join(d, "real"));
    expect(readdirSync(h!.path)).toEqual(["inside.txt"]);
    expect(readRegular(join(h!.path, "inside.txt"), { maxBytes: 10, noFollow: true })).toMatchObject({
      ok: true,
    });
    h!.close();
  });
});

describe("readRegular within", () => {
  it("follows a link that stays inside the root, refuses one that leads out or into an excluded dir", () => {
    const d = realpathSync(dir());
    mkdirSync(join(d, "proj", "docs"), { recursive: true });
    mkdirSync(join(d, "proj", "home"));
    writeFileSync(join(d, "proj", "docs", "AGENTS.md"), "inside\n");
    writeFileSync(join(d, "proj", "home", "config.toml"), "hidden\n");
    writeFileSync(join(d, "outside.txt"), "outside\n");
    symlinkSync("docs/AGENTS.md", join(d, "proj", "AGENTS.md"));
    symlinkSync(join(d, "outside.txt"), join(d, "proj", "out.md"));
    symlinkSync(join(d, "proj", "home", "config.toml"), join(d, "proj", "home.md"));
    const within = { root: join(d, "proj"), exclude: [join(d, "proj", "home")] };
    const r = readRegular(join(d, "proj", "AGENTS.md"), { maxBytes: 100, within });
    expect(r.ok && r.data.toString()).toBe("inside\n");
    // fails if the opened file's real place is not checked
    expect(readRegular(join(d, "proj", "out.md"), { maxBytes: 100, within })).toMatchObject({
      ok: false,
      reason: "outside",
    });
    expect(readRegular(join(d, "proj", "home.md"), { maxBytes: 100, within })).toMatchObject({
      ok: false,
      reason: "outside",
    });
  });
});
