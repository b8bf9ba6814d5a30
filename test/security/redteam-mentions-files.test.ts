/**
 * Red team: what a mentioned path can be when the model wrote the workspace (runtime/
 * file-mentions.ts on the host). A directory swapped for a link to Tandem's home between the
 * check and the listing, a directory of many entries, links to /proc or /, a FIFO, a device, a
 * sparse file of 10 GB, a file that keeps growing: none is listed or read outside the workspace,
 * none hangs the host or holds more than the budget. Each case runs in a workspace under /tmp and
 * one outside it (/var/lib).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  openSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { messageText } from "../../src/protocol/items.js";
import { attachMentions, MAX_FILE_BYTES } from "../../src/runtime/file-mentions.js";
import { outsideDir, tempDir } from "../helpers/index.js";

const text = (a: ReturnType<typeof attachMentions>) => a.map((x) => messageText(x.item)).join("\n");

for (const where of ["tmp", "outside"] as const) {
  describe(`red team: @ mentions of model-made files (workspace in ${where})`, () => {
    const cleanup: string[] = [];
    let swapper: ChildProcess | undefined;
    afterEach(() => {
      swapper?.kill("SIGKILL");
      swapper = undefined;
      for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
    });
    const setup = () => {
      const root = where === "tmp" ? tempDir("tandem-rt-ws-") : outsideDir("tandem-rt-ws-");
      const home = tempDir("tandem-rt-home-");
      cleanup.push(root, home);
      writeFileSync(join(home, "credentials.json"), '{"token":"HOME-TOKEN-9d1"}');
      return { root, home, opts: { root, exclude: [home], mask: (t: string) => t } };
    };

    // Fails if the listing is read by name after a realpath check (a swap in between lists the home).
    it("a directory swapped for a link to the home while it is checked is never listed", async () => {
      const { root, home, opts } = setup();
      mkdirSync(join(root, "real"));
      writeFileSync(join(root, "real", "plain.txt"), "");
      const loop = `
        const fs = require("node:fs"); const [r, h] = process.argv.slice(1);
        for (;;) {
          try { fs.renameSync(r + "/real", r + "/d"); } catch {}
          try { fs.renameSync(r + "/d", r + "/real"); } catch {}
          try { fs.symlinkSync(h, r + "/d"); } catch {}
          try { fs.unlinkSync(r + "/d"); } catch {}
        }`;
      swapper = spawn(process.execPath, ["-e", loop, root, home], { stdio: "ignore" });
      await new Promise((r) => setTimeout(r, 200));
      let listed = 0;
      const end = Date.now() + 1500;
      while (Date.now() < end) {
        const got = text(attachMentions("@d", opts));
        expect(got).not.toContain("credentials.json");
        if (got.includes("plain.txt")) listed++;
      }
      expect(listed).toBeGreaterThan(0); // the race was run
    });

    // Fails if the whole directory is read before the 200 names shown are picked. (In /tmp only:
    // twelve thousand files are slow to make on a disk.)
    // Registered for /tmp only (not skipped elsewhere: CI fails on any skipped test).
    if (where === "tmp")
      it("a directory of 12k entries is read only up to a bound", () => {
        const { root, opts } = setup();
        mkdirSync(join(root, "many"));
        execFileSync("sh", ["-c", "cd many && seq 1 12000 | xargs touch"], { cwd: root });
        const [a] = attachMentions("@many", opts);
        expect(a.display).toBe("[directory many attached (10000+ entries)]");
        expect(messageText(a.item).split("\n").length).toBeLessThan(205);
      });

    it("links to /proc/self, /, /dev/zero and the home, a FIFO, a sparse 10 GB file, a growing file", async () => {
      const { root, home, opts } = setup();
      symlinkSync("/proc/self", join(root, "proc"));
      symlinkSync("/", join(root, "slash"));
      symlinkSync("/dev/zero", join(root, "zero"));
      symlinkSync("/proc/self/environ", join(root, "environ"));
      symlinkSync(home, join(root, "homelink"));
      execFileSync("mkfifo", [join(root, "fifo")]);
      writeFileSync(join(root, "sparse"), "");
      truncateSync(join(root, "sparse"), 10 * 1024 ** 3);
      const grow = join(root, "grow.txt");
      writeFileSync(grow, "g");
      const fd = openSync(grow, "a");
      const feed = setInterval(() => writeSync(fd, "g".repeat(65536)), 1);
      await new Promise((r) => setTimeout(r, 50));
      const before = process.memoryUsage().rss;
      const got = attachMentions(
        "@proc @proc/environ @slash @slash/etc/passwd @zero @environ @homelink/credentials.json @homelink @fifo @sparse @grow.txt",
        opts,
      );
      clearInterval(feed);
      closeSync(fd);
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
      const all = text(got);
      expect(all).not.toMatch(/HOME-TOKEN|\ncredentials\.json|root:|PATH=|\nbin\//);
      const shown = Object.fromEntries(got.map((a) => [a.path, a.display]));
      for (const p of ["proc", "slash", "homelink"])
        expect(shown[p]).toBe(`[directory ${p} attached (not read)]`);
      for (const p of [
        "proc/environ",
        "slash/etc/passwd",
        "zero",
        "environ",
        "homelink/credentials.json",
        "fifo",
      ])
        expect(shown[p]).toBe(`[file ${p} attached (not read)]`);
      // Refused before it is opened (a device's open has effects), not after fstat.
      expect(messageText(got.find((a) => a.path === "zero")!.item)).toContain(
        "it leads outside the workspace",
      );
      expect(shown.sparse).toBe("[file sparse attached (binary, not attached)]");
      expect(shown["grow.txt"]).toMatch(/^\[file grow\.txt attached \(first 65536 of \d+ bytes\)\]$/);
      expect(Buffer.byteLength(all)).toBeLessThan(MAX_FILE_BYTES + 4096);
    });
  });
}
