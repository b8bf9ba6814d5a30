/**
 * README.md's runnable shell blocks, run as written (CONTRIBUTING.md "Runnable README blocks"): a
 * ```sh fence directly after a `<!-- runnable -->` line. Each runs with `sh -e` in a fresh temp
 * directory holding `bin/` (a link to this repository's built bin/, so `./bin/tandem` works) with
 * `tandem` on PATH, a temp HOME and TANDEM_HOME, and OPENAI_BASE_URL / OPENAI_API_KEY pointing at
 * `tandem mock-model` serving the default model — so `tandem doctor` in a block can pass offline.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { hasTool } from "../helpers/system-tools.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MARKER = "<!-- runnable -->";

/** The runnable blocks of `markdown`, each with the line its fence opens on. */
function runnableBlocks(markdown: string): Array<{ line: number; code: string }> {
  const lines = markdown.split("\n");
  const blocks: Array<{ line: number; code: string }> = [];
  for (let i = 0; i < lines.length - 1; i++) {
    if (lines[i].trim() !== MARKER || !/^```(sh|bash)\s*$/.test(lines[i + 1])) continue;
    const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith("```"));
    if (end < 0) throw new Error(`README.md:${i + 2}: a runnable block is never closed`);
    blocks.push({ line: i + 2, code: lines.slice(i + 2, end).join("\n") });
  }
  return blocks;
}

const blocks = runnableBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
let mock: MockProcess | undefined;
afterAll(async () => mock?.stop());

function run(
  code: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const p = spawn("sh", ["-e", "-c", code], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      out += "\n[test: the block was still running after 60 s and was killed]";
      p.kill("SIGKILL");
    }, 60_000);
    p.on("exit", (c) => {
      clearTimeout(timer);
      done({ code: c, out });
    });
  });
}

describe("README.md runnable blocks", () => {
  // Fails if the marker convention is broken (no block found: the test would prove nothing).
  it("finds the runnable blocks", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
  });

  for (const block of blocks) {
    it(`README.md:${block.line} runs`, { timeout: 90_000 }, async () => {
      mock ??= await startMockProcess({
        model: "gpt-5.2-codex",
        loop: true,
        steps: [{ output: [{ type: "message", text: "ok" }] }],
      });
      const dir = tempDir("tandem-readme-");
      const home = join(dir, "home");
      const tandemHome = join(dir, "tandem-home");
      const cwd = join(dir, "cwd");
      const path = join(dir, "path");
      for (const d of [home, cwd, path]) mkdirSync(d);
      symlinkSync(join(ROOT, "bin"), join(cwd, "bin"));
      symlinkSync(BIN, join(path, "tandem"));
      // Without bubblewrap the sandbox cannot run: say so in config, as a newcomer would.
      if (!hasTool("bwrap")) {
        mkdirSync(tandemHome);
        writeFileSync(join(tandemHome, "config.toml"), 'sandbox_mode = "danger-full-access"\n');
      }
      const env: Record<string, string> = {
        PATH: `${path}${delimiter}${process.env.PATH ?? ""}`,
        HOME: home,
        TANDEM_HOME: tandemHome,
        TMPDIR: dir,
        NO_COLOR: "1",
        OPENAI_BASE_URL: mock.url,
        OPENAI_API_KEY: "sk-readme-test",
      };
      const r = await run(block.code, env, cwd);
      expect(r.out, `README.md:${block.line}\n${block.code}`).not.toContain("[test:");
      expect(r.code, `README.md:${block.line} exited ${r.code}:\n${r.out}`).toBe(0);
    });
  }
});
