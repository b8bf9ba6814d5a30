/**
 * `tandem demo`, the README's first command, as a newcomer runs it: a real `./bin/tandem`
 * process on the built-in scripted model, with and without bubblewrap on the PATH.
 */
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTandem } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

/** A PATH with every command of the current PATH except `bwrap` (a machine without bubblewrap). */
function pathWithoutBwrap(): string {
  const dir = tempDir("tandem-nobwrap-");
  for (const d of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      if (n === "bwrap" || existsSync(join(dir, n))) continue;
      symlinkSync(join(d, n), join(dir, n));
    }
  }
  return dir;
}

const tmp = tempDir("tandem-demo-tmp-");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the demo with its temp dirs under a fresh TMPDIR, so leftovers can be counted. */
async function demo(args: string[], env: Record<string, string> = {}) {
  const dir = tempDir("tandem-demo-tmpdir-");
  const r = await runTandem(["demo", ...args], { env: { TMPDIR: dir, ...env } });
  return { ...r, dir, left: readdirSync(dir) };
}

const workspaceOf = (stderr: string) => /│ workspace: (\S+)/.exec(stderr)?.[1] ?? "";

describe("tandem demo", () => {
  // Fails if the demo announces "no sandbox" but still asks for one (every command refused and
  // README.md never written), or if its temp dirs are left behind.
  it("works without bubblewrap: says so, writes README.md with full access in its temp dir, cleans up", async () => {
    const r = await demo([], { PATH: pathWithoutBwrap() });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("The model is SCRIPTED");
    expect(r.stderr).toContain("bubblewrap is not installed (apt-get install bubblewrap)");
    expect(r.stderr).toMatch(/── \S+README\.md ──\n# Tandem Demo\n\nAn agent project written in Rust\.\n/);
    expect(r.stdout).toContain("README.md is created and verified");
    expect(r.stderr).not.toMatch(/sandbox unavailable|refused/i);
    expect(r.left).toEqual([]);
  });

  // Fails if --keep is ignored (or the workspace is not where the banner says).
  it("--keep keeps the workspace and its history", async () => {
    const r = await demo(["--keep"], { PATH: pathWithoutBwrap() });
    expect(r.code).toBe(0);
    const ws = workspaceOf(r.stderr);
    expect(readFileSync(join(ws, "README.md"), "utf8")).toBe(
      "# Tandem Demo\n\nAn agent project written in Rust.\n",
    );
    expect(r.left).toHaveLength(2);
    expect(r.left.filter((n) => n.startsWith("tandem-demo-home-"))).toHaveLength(1);
    expect(existsSync(join(r.dir, r.left.find((n) => n.includes("home"))!, "state.db"))).toBe(true);
  });

  // Fails if --seed stops replaying the seed's own (Chinese) words.
  it("--seed replays the seed's walkthrough", async () => {
    const r = await demo(["--seed", "--json"], { PATH: pathWithoutBwrap() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("README.md 已创建并完成验证");
    expect(r.left).toEqual([]);
  });

  it("--help lists its flags; an unknown flag is a usage error", async () => {
    const h = await runTandem(["demo", "--help"]);
    expect(h.code).toBe(0);
    for (const flag of ["--json", "--seed", "--keep", "--tui"]) expect(h.stdout).toContain(flag);
    const bad = await runTandem(["demo", "--nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option '--nope'");
  });

  // Fails if the demo stops using the sandbox where bubblewrap is installed.
  it.skipIf(missing("bwrap").length > 0)("runs sandboxed where bubblewrap is installed", async () => {
    const r = await demo([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("sandbox: workspace-write (bubblewrap)");
    expect(r.stdout).toContain("README.md is created and verified");
    expect(r.left).toEqual([]);
  });
});
