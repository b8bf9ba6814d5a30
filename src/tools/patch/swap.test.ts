/**
 * Red team: apply_patch against a directory swapped for a link between its check and its use.
 *
 * A sandboxed command cannot reach Tandem's home, but apply_patch runs on the host. A session the
 * model left running swaps a workspace directory `d` for a link to the home, over and over:
 * the patch's paths are checked while `d` is real, then read, written or deleted while it is
 * the link. Measured with a real swapping loop, about 1 in 250 patches wrote the home's
 * config.toml (an MCP server command there runs on the host). Here the swap happens at the
 * exact moment, through a PatchFs that swaps and then calls the real one: every file
 * operation must act on the directory that was checked, or refuse.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nodePatchFs, type PatchFs } from "./fs.js";
import { applyPatch } from "./index.js";
import { pathGuard } from "./paths.js";

const dirs: string[] = [];
const mk = (p: string) => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), p)));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const HOME_CONFIG = "[core]\nSECRET-LINE-77\n";

function setup() {
  const home = mk("tandem-rt-home-");
  writeFileSync(join(home, "config.toml"), HOME_CONFIG);
  const ws = mk("tandem-rt-ws-");
  mkdirSync(join(ws, "d"));
  writeFileSync(join(ws, "d", "config.toml"), "[core]\nharmless\n");
  const guard = pathGuard(nodePatchFs, { protectedPaths: [home], protectGit: true, roots: [ws] });
  const swap = () => {
    renameSync(join(ws, "d"), join(ws, "d.real"));
    symlinkSync(home, join(ws, "d"));
  };
  return { home, ws, guard, swap };
}

/** The real file system, swapping `d` once, just before the first call of `op`. */
function swappingFs(op: keyof PatchFs, swap: () => void): PatchFs {
  let done = false;
  return new Proxy(nodePatchFs, {
    get(target, key) {
      const real = Reflect.get(target, key) as (...a: unknown[]) => unknown;
      if (key !== op) return real;
      return (...args: unknown[]) => {
        if (!done) {
          done = true;
          swap();
        }
        return real(...args);
      };
    },
  });
}

const update =
  "*** Begin Patch\n*** Update File: d/config.toml\n@@\n [core]\n-harmless\n+planted = 1\n*** End Patch";

describe("red team: apply_patch acts on the directory it checked", () => {
  // Fails if the write goes through the path again (it lands in the home).
  it("a swap between the check and the write does not write the home", () => {
    const { home, ws, guard, swap } = setup();
    const out = applyPatch(update, ws, swappingFs("mkdirp", swap), undefined, [], guard);
    expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(HOME_CONFIG);
    expect(out.ok).toBe(false);
  });

  // Fails if the write goes through the path again, the directories having been made.
  it("a swap between making the directories and the write does not write the home", () => {
    const { home, ws, guard, swap } = setup();
    const out = applyPatch(update, ws, swappingFs("write", swap), undefined, [], guard);
    expect(readFileSync(join(home, "config.toml"), "utf8")).toBe(HOME_CONFIG);
    expect(out.ok).toBe(false);
  });

  // Fails if the read goes through the path again (the home's lines reach the diff or error).
  it("a swap between the check and the read does not read the home", () => {
    const { ws, guard, swap } = setup();
    const out = applyPatch(update, ws, swappingFs("read", swap), undefined, [], guard);
    expect(JSON.stringify(out).includes("SECRET-LINE")).toBe(false);
    expect(out.ok).toBe(false);
  });

  // Fails if the delete goes through the path again (the home's file is removed).
  it("a swap between the check and a delete does not delete in the home", () => {
    const { home, ws, guard, swap } = setup();
    const del = "*** Begin Patch\n*** Delete File: d/config.toml\n*** End Patch";
    const out = applyPatch(del, ws, swappingFs("remove", swap), undefined, [], guard);
    expect(existsSync(join(home, "config.toml"))).toBe(true);
    expect(out.ok).toBe(false);
  });

  // What still works: links inside the workspace, new directories, deletes, rollback.
  it("without a swap, patches through in-workspace links and into new directories still apply", () => {
    const { ws, guard } = setup();
    mkdirSync(join(ws, "lib"));
    writeFileSync(join(ws, "lib", "a.txt"), "a\n");
    writeFileSync(join(ws, "lib", "old.txt"), "old\n");
    symlinkSync(join(ws, "lib"), join(ws, "src"));
    const out = applyPatch(
      "*** Begin Patch\n*** Update File: src/a.txt\n@@\n-a\n+A\n*** Add File: new/deep/b.txt\n+b\n*** Delete File: d/config.toml\n*** Delete File: src/old.txt\n*** End Patch",
      ws,
      nodePatchFs,
      undefined,
      [],
      guard,
    );
    expect(out.ok, JSON.stringify(out)).toBe(true);
    expect(readFileSync(join(ws, "lib", "a.txt"), "utf8")).toBe("A\n");
    expect(readFileSync(join(ws, "new", "deep", "b.txt"), "utf8")).toBe("b\n");
    expect(existsSync(join(ws, "d", "config.toml"))).toBe(false);
    expect(existsSync(join(ws, "lib", "old.txt"))).toBe(false);
  });
});
