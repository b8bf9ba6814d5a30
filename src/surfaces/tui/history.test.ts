import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ComposerHistory, HISTORY_FILE } from "./history.js";

const home = () => mkdtempSync(join(tmpdir(), "tandem-history-"));
const fileLines = (h: string) => readFileSync(join(h, HISTORY_FILE), "utf8").trim().split("\n");

describe("ComposerHistory", () => {
  it("appends {ts, cwd, text} lines with mode 0600 and reloads them", () => {
    const h = home();
    const a = new ComposerHistory(h);
    a.record("first", "/w");
    a.record("  second\nline  ", "/w");
    a.record("second\nline", "/w"); // consecutive duplicate: once
    a.record("   ", "/w");
    const lines = fileLines(h).map((l) => JSON.parse(l));
    expect(lines.map((l) => l.text)).toEqual(["first", "second\nline"]);
    expect(lines[0]).toMatchObject({ cwd: "/w" });
    expect(Math.abs(lines[0].ts - Date.now() / 1000)).toBeLessThan(5);
    expect(statSync(join(h, HISTORY_FILE)).mode & 0o777).toBe(0o600);
    expect(new ComposerHistory(h).entries()).toEqual(["first", "second\nline"]);
  });

  it("skips malformed lines", () => {
    const h = home();
    writeFileSync(
      join(h, HISTORY_FILE),
      `{"ts":1,"cwd":"/","text":"ok"}\nnot json\n{"ts":2}\n{"ts":3,"cwd":"/","text":"also"`,
    );
    expect(new ComposerHistory(h).entries()).toEqual(["ok"]);
  });

  it("keeps the newest entries in memory and trims the file past maxLines", () => {
    const h = home();
    const a = new ComposerHistory(h, { keep: 5, maxLines: 10 });
    for (let i = 1; i <= 10; i++) a.record(`p${i}`, "/");
    expect(fileLines(h)).toHaveLength(10);
    expect(a.entries()).toEqual(["p6", "p7", "p8", "p9", "p10"]);
    a.record("p11", "/");
    expect(fileLines(h).map((l) => JSON.parse(l).text)).toEqual(["p7", "p8", "p9", "p10", "p11"]);
    expect(statSync(join(h, HISTORY_FILE)).mode & 0o777).toBe(0o600);
    const b = new ComposerHistory(h, { keep: 5, maxLines: 10 });
    expect(b.entries()).toEqual(["p7", "p8", "p9", "p10", "p11"]);
  });

  it("stays in memory, silently, when the home is not writable", () => {
    // A home below a regular file cannot be created, even by root.
    const blocker = join(home(), "a-file");
    writeFileSync(blocker, "");
    const a = new ComposerHistory(join(blocker, "home"));
    expect(() => a.record("kept in memory", "/")).not.toThrow();
    expect(a.entries()).toEqual(["kept in memory"]);
    expect(a.persistent).toBe(false);
    a.record("still fine", "/");
    expect(a.entries()).toEqual(["kept in memory", "still fine"]);
    if (process.getuid?.() !== 0) {
      const h = home();
      chmodSync(h, 0o500);
      const b = new ComposerHistory(h);
      b.record("x", "/");
      expect(b.persistent).toBe(false);
      expect(existsSync(join(h, HISTORY_FILE))).toBe(false);
      chmodSync(h, 0o700);
    }
  });

  it("memory only without a home", () => {
    const a = new ComposerHistory(undefined);
    a.record("x", "/");
    expect(a.entries()).toEqual(["x"]);
    expect(a.file).toBeUndefined();
  });

  it("a resumed thread's messages join as the newest, deduplicated, not written, and notify", () => {
    const h = home();
    const a = new ComposerHistory(h);
    a.record("shared", "/");
    a.record("mine", "/");
    let calls = 0;
    const off = a.subscribe(() => calls++);
    a.addThread(["shared", "from thread", ""]);
    expect(a.entries()).toEqual(["mine", "shared", "from thread"]);
    expect(calls).toBe(1);
    off();
    a.addThread(["more"]);
    expect(calls).toBe(1);
    expect(fileLines(h)).toHaveLength(2);
  });
});
