/**
 * Table-driven test over the real-world-style corpus in testdata/ (layout: testdata/README.md).
 * Each case either applies exactly (the workspace equals `after/`, byte for byte) or fails with
 * the expected message and leaves the workspace and its parent exactly as they were.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeCtx } from "../exec/test-helpers.js";
import { createApplyPatchTools } from "./index.js";

const DATA = join(import.meta.dirname, "testdata");
const cases = readdirSync(DATA, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** Every file (relative path → bytes as latin1, so CR and invalid UTF-8 compare exactly) and directory. */
function snapshot(root: string): { files: Record<string, string>; dirs: string[] } {
  const files: Record<string, string> = {};
  const dirs: string[] = [];
  const walk = (dir: string, prefix: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) {
        dirs.push(rel);
        walk(join(dir, e.name), rel);
      } else files[rel] = readFileSync(join(dir, e.name)).toString("latin1");
    }
  };
  walk(root, "");
  return { files, dirs: dirs.sort() };
}

const scratch = mkdtempSync(join(tmpdir(), "tandem-patch-corpus-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("apply_patch corpus", () => {
  it("has cases of both kinds", () => {
    expect(cases.filter((c) => existsSync(join(DATA, c, "after"))).length).toBeGreaterThanOrEqual(20);
    expect(cases.filter((c) => existsSync(join(DATA, c, "error.txt"))).length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)("%s", async (name) => {
    const dir = join(DATA, name);
    const parent = join(scratch, name);
    const cwd = join(parent, "ws");
    mkdirSync(cwd, { recursive: true });
    if (existsSync(join(dir, "before"))) cpSync(join(dir, "before"), cwd, { recursive: true });
    const fill = (s: string) => s.replaceAll("{{CWD}}", cwd).replaceAll("{{PARENT}}", parent);
    const input = fill(readFileSync(join(dir, "patch.txt"), "utf8"));
    const beforeWs = snapshot(cwd);
    const beforeParent = snapshot(parent);

    const tool = createApplyPatchTools().custom;
    const result = await tool.execute(
      input,
      makeCtx({
        cwd,
        safety: {
          sandbox: { mode: "workspace-write", writableRoots: [], network: false, protectedPaths: [] },
          approvalPolicy: "never",
          requestApproval: async () => "decline",
        },
      }),
    );
    const output = String(result.output);

    if (existsSync(join(dir, "after"))) {
      expect(output, output).toMatch(/^Success\. Updated the following files:\n/);
      expect(result.success).toBe(true);
      expect(snapshot(cwd).files).toEqual(snapshot(join(dir, "after")).files);
      expect((result.display as { status: string }).status).toBe("completed");
    } else {
      expect(result.success).toBe(false);
      const expected = fill(readFileSync(join(dir, "error.txt"), "utf8"))
        .split("\n")
        .filter((l) => l !== "");
      for (const line of expected) expect(output).toContain(line);
      expect(snapshot(cwd)).toEqual(beforeWs);
      expect(snapshot(parent)).toEqual(beforeParent);
      // The display carries the model's failure text, so every surface can say why (README "Use it").
      expect(result.display).toEqual({ type: "file_change", changes: [], status: "failed", error: output });
    }
  });
});
