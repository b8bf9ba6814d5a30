/**
 * Red team, app-server `fuzzyFileSearch` (runtime.files, checkpoints/file-index.ts):
 * - Tandem's home (config.toml with its keys, credentials, the checkpoints and the store) is
 *   hidden from every sandboxed command; the file list must not name what is in it either,
 *   whether a client's `roots` names the home itself, a directory inside it, or a workspace that
 *   holds it.
 * - The walk is bounded: a hostile model can fill the workspace with empty directories (no file
 *   counts against `maxEntries`), which must not make the walk unbounded.
 * - Symbolic links (to /etc, to the home, loops) and FIFOs in the workspace are listed, never
 *   followed or opened.
 * Workspaces under /tmp and under /var/lib (outside every writable root).
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileIndex } from "../../src/checkpoints/file-index.js";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { outsideDir, tempDir } from "../helpers/index.js";

describe("red team: fuzzyFileSearch never lists Tandem's home, and its walk is bounded", () => {
  const served: Served[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      await s.close();
    }
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  for (const where of ["/tmp", "outside"] as const) {
    // Fails if the index walks into $TANDEM_HOME (as a root, below a root, or inside it).
    it(`leaves Tandem's home out of every root (workspace ${where})`, async () => {
      const ws = where === "/tmp" ? tempDir("tandem-ws-") : outsideDir("tandem-ws-");
      dirs.push(ws);
      const home = join(ws, "tandem-home");
      mkdirSync(join(home, "checkpoints"), { recursive: true });
      writeFileSync(join(home, "config.toml"), 'model = "m"\n');
      writeFileSync(join(home, "credentials.json"), "{}");
      writeFileSync(join(home, "checkpoints", "secret-copy.db"), "x");
      writeFileSync(join(ws, "credentials-notes.md"), "x");
      // A link to the home and a FIFO: listed as names, never followed or opened.
      symlinkSync(home, join(ws, "homelink"));
      symlinkSync(ws, join(ws, "loop"));
      spawnSync("mkfifo", [join(ws, "fifo-credentials")]);
      const s = inProcessStdio({
        TANDEM_HOME: home,
        OPENAI_API_KEY: "k",
        OPENAI_BASE_URL: "http://127.0.0.1:9",
      });
      served.push(s);
      await s.client.initialize();
      const list = async (roots: string[], query: string): Promise<string[]> =>
        (await s.client.request("fuzzyFileSearch", { query, roots })).files.map((f: any) => f.path as string);

      const inWs = await list([ws], "credentials");
      expect(inWs).toContain("credentials-notes.md");
      expect(inWs.filter((p) => p.startsWith("tandem-home/") || p.startsWith("homelink/"))).toEqual([]);
      expect(await list([ws], "secret-copy")).toEqual([]);
      expect(await list([home], "config")).toEqual([]);
      expect(await list([join(home, "checkpoints")], "secret")).toEqual([]);
      expect(await list([join(ws, "homelink")], "config")).toEqual([]);
      expect(await list([ws], "loop/loop")).toEqual([]);
    });
  }

  // Fails if directories do not count against the walk's bound: the walk then visits every one.
  it("a tree of empty directories stops the walk at the bound", async () => {
    const ws = tempDir("tandem-ws-");
    dirs.push(ws);
    for (let i = 0; i < 300; i++) mkdirSync(join(ws, `d${i}`, "e"), { recursive: true });
    const index = new FileIndex(ws, { maxEntries: 50, globalExcludes: null });
    await index.ready();
    expect(index.truncated).toBe(true);
    index.close();
  });
});
