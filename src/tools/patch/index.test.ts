import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeCtx } from "../exec/test-helpers.js";
import { ToolRegistry } from "../registry.js";
import { benchPatch, benchPatchText, benchSource } from "./bench.js";
import { nodePatchFs, type PatchFs } from "./fs.js";
import {
  APPLY_PATCH_GRAMMAR,
  applyPatch,
  createApplyPatchTools,
  type FileChange,
  TurnDiffTracker,
} from "./index.js";
import { pathGuard } from "./paths.js";

const scratch = mkdtempSync(join(tmpdir(), "tandem-patch-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const ws = () => mkdtempSync(join(scratch, "ws-"));
const patch = (body: string) => `*** Begin Patch\n${body}\n*** End Patch\n`;
const read = (p: string) => readFileSync(p, "utf8");

describe("apply_patch tool definitions", () => {
  it("offers a freeform tool with the Lark grammar and a function tool taking {input}", () => {
    const { custom, fn } = createApplyPatchTools();
    expect(custom).toMatchObject({ kind: "custom", name: "apply_patch" });
    expect(custom.format).toEqual({ type: "grammar", syntax: "lark", definition: APPLY_PATCH_GRAMMAR });
    expect(APPLY_PATCH_GRAMMAR).toContain('begin_patch: "*** Begin Patch" LF');
    expect(custom.description).toContain("FREEFORM");
    for (const d of [custom.description, fn.description])
      for (const marker of ["*** Add File:", "*** Update File:", "*** Move to:", "*** End of File", "@@"])
        expect(d).toContain(marker);
    const wire = new ToolRegistry([fn]).wire()[0];
    expect(wire).toMatchObject({ type: "function", name: "apply_patch" });
    expect((wire as { parameters: unknown }).parameters).toMatchObject({
      type: "object",
      properties: { input: { type: "string" } },
      required: ["input"],
    });
  });

  it("starts with a generic in-progress tool_call item showing the patch", () => {
    const { custom, fn } = createApplyPatchTools();
    const text = patch("*** Add File: a\n+x");
    const item = { id: "c1", type: "tool_call", tool: "apply_patch", arguments: text, status: "in_progress" };
    expect(custom.displayStart?.(text, "c1")).toEqual(item);
    expect(fn.displayStart?.({ input: text }, "c1")).toEqual(item);
    expect(fn.displayStart?.({}, "c1")).toMatchObject({ arguments: "" });
  });
});

describe("apply_patch through the registry", () => {
  it("applies via the function tool and reports file_change display with diffs", async () => {
    const cwd = ws();
    writeFileSync(join(cwd, "a.py"), "x = 1\ny = 2\n");
    writeFileSync(join(cwd, "gone.txt"), "bye\n");
    const registry = new ToolRegistry([createApplyPatchTools().fn]);
    const input = patch(
      "*** Update File: a.py\n*** Move to: b.py\n@@\n x = 1\n-y = 2\n+y = 3\n*** Delete File: gone.txt\n*** Add File: n.txt\n+new",
    );
    const r = await registry.dispatch(
      { type: "function_call", name: "apply_patch", arguments: JSON.stringify({ input }), call_id: "c1" },
      makeCtx({ cwd }),
    );
    if (r.aborted) throw new Error("aborted");
    expect(r.result.output).toBe("Success. Updated the following files:\nA n.txt\nM b.py\nD gone.txt");
    expect(r.result.success).toBe(true);
    expect(r.result.display).toEqual({
      type: "file_change",
      status: "completed",
      changes: [
        {
          path: "a.py",
          kind: "move",
          move_path: "b.py",
          diff: "--- a/a.py\n+++ b/b.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n",
        },
        { path: "gone.txt", kind: "delete", diff: "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" },
        { path: "n.txt", kind: "add", diff: "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n" },
      ],
    });
    expect(readdirSync(cwd).sort()).toEqual(["b.py", "n.txt"]);
    expect(read(join(cwd, "b.py"))).toBe("x = 1\ny = 3\n");
  });

  it("applies via the custom tool; a kind mismatch is refused by the registry", async () => {
    const cwd = ws();
    const registry = new ToolRegistry([createApplyPatchTools().custom]);
    const input = patch("*** Add File: hello.txt\n+hi");
    const ok = await registry.dispatch(
      { type: "custom_tool_call", name: "apply_patch", input, call_id: "c1" },
      makeCtx({ cwd }),
    );
    expect(ok.aborted ? undefined : ok.result.success).toBe(true);
    expect(read(join(cwd, "hello.txt"))).toBe("hi\n");
    const wrong = await registry.dispatch(
      { type: "function_call", name: "apply_patch", arguments: "{}", call_id: "c2" },
      makeCtx({ cwd }),
    );
    expect(wrong.aborted ? undefined : wrong.result.output).toContain("freeform tool");
  });

  it("aborted before it starts: nothing written, the call is reported aborted", async () => {
    const cwd = ws();
    const ctx = makeCtx({ cwd });
    ctx.controller.abort();
    const registry = new ToolRegistry([createApplyPatchTools().custom]);
    const r = await registry.dispatch(
      { type: "custom_tool_call", name: "apply_patch", input: patch("*** Add File: a\n+x"), call_id: "c1" },
      ctx,
    );
    expect(r.aborted).toBe(true);
    expect(existsSync(join(cwd, "a"))).toBe(false);
  });
});

describe("apply_patch side effects", () => {
  it("feeds onApplied (e.g. a TurnDiffTracker) and ignores a throwing listener", async () => {
    const cwd = ws();
    writeFileSync(join(cwd, "f.txt"), "1\n");
    const tracker = new TurnDiffTracker();
    const seen: FileChange[][] = [];
    const { custom } = createApplyPatchTools({
      onApplied: (changes) => {
        seen.push(changes);
        tracker.track(changes);
        throw new Error("listener bug");
      },
    });
    const one = await custom.execute(patch("*** Update File: f.txt\n-1\n+2"), makeCtx({ cwd }));
    const two = await custom.execute(patch("*** Update File: f.txt\n-2\n+3"), makeCtx({ cwd }));
    expect([one.success, two.success]).toEqual([true, true]);
    expect(seen).toHaveLength(2);
    expect(seen[0][0]).toMatchObject({ kind: "update", path: "f.txt", before: "1\n", after: "2\n" });
    expect(tracker.diff()).toBe("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-1\n+3\n");
    const failed = await custom.execute(patch("*** Update File: f.txt\n-9\n+10"), makeCtx({ cwd }));
    expect(failed.success).toBe(false);
    expect(seen).toHaveLength(2);
  });

  it("keeps permission bits and leaves no temp files", () => {
    const cwd = ws();
    writeFileSync(join(cwd, "run.sh"), "#!/bin/sh\necho a\n", { mode: 0o755 });
    const out = applyPatch(patch("*** Update File: run.sh\n@@\n #!/bin/sh\n-echo a\n+echo b"), cwd);
    expect(out.ok).toBe(true);
    expect(statSync(join(cwd, "run.sh")).mode & 0o777).toBe(0o755);
    expect(readdirSync(cwd)).toEqual(["run.sh"]);
  });

  it("writes through a symlink inside the workspace and refuses one that leads outside", () => {
    const root = ws();
    const cwd = join(root, "ws");
    mkdirSync(join(root, "outside"));
    mkdirSync(cwd);
    writeFileSync(join(cwd, "real.txt"), "a\n");
    symlinkSync(join(cwd, "real.txt"), join(cwd, "link.txt"));
    symlinkSync(join(root, "outside"), join(cwd, "out"));
    const ok = applyPatch(patch("*** Update File: link.txt\n-a\n+b"), cwd);
    expect(ok.ok).toBe(true);
    expect(read(join(cwd, "real.txt"))).toBe("b\n");
    expect(lstatSync(join(cwd, "link.txt")).isSymbolicLink()).toBe(true);
    const bad = applyPatch(patch("*** Add File: out/evil.txt\n+x"), cwd);
    expect(bad).toMatchObject({ ok: false, stage: "verify" });
    expect(bad.ok ? "" : bad.error).toContain("through a symbolic link, outside the working directory");
    expect(readdirSync(join(root, "outside"))).toEqual([]);
  });

  it("rolls back every file written when a later write fails", () => {
    const cwd = ws();
    writeFileSync(join(cwd, "a.txt"), "a\n");
    writeFileSync(join(cwd, "b.txt"), "b\n");
    writeFileSync(join(cwd, "c.txt"), "c\n");
    let writes = 0;
    const flaky: PatchFs = {
      ...nodePatchFs,
      write(path, text, mode) {
        if (++writes === 3) throw new Error("ENOSPC: no space left on device");
        nodePatchFs.write(path, text, mode);
      },
    };
    const out = applyPatch(
      patch(
        "*** Update File: a.txt\n-a\n+A\n*** Add File: deep/dir/new.txt\n+n\n*** Update File: b.txt\n-b\n+B\n*** Delete File: c.txt",
      ),
      cwd,
      flaky,
    );
    expect(out).toMatchObject({ ok: false, stage: "write" });
    expect(out.ok ? "" : out.error).toBe(
      "failed to write b.txt: ENOSPC: no space left on device. Every file already written was restored; nothing changed.",
    );
    expect(readdirSync(cwd).sort()).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect([read(join(cwd, "a.txt")), read(join(cwd, "b.txt")), read(join(cwd, "c.txt"))]).toEqual([
      "a\n",
      "b\n",
      "c\n",
    ]);
  });

  it("says which files it could not restore when the rollback fails too", async () => {
    const cwd = ws();
    writeFileSync(join(cwd, "a.txt"), "a\n");
    let writes = 0;
    const broken: PatchFs = {
      ...nodePatchFs,
      write(path, text, mode) {
        writes++;
        if (writes >= 2) throw new Error("EIO: i/o error");
        nodePatchFs.write(path, text, mode);
      },
    };
    const { custom } = createApplyPatchTools({ fs: broken });
    const r = await custom.execute(
      patch("*** Update File: a.txt\n-a\n+A\n*** Add File: b.txt\n+b"),
      makeCtx({ cwd }),
    );
    expect(r.success).toBe(false);
    expect(r.output).toBe(
      "apply_patch failed: failed to write b.txt: EIO: i/o error. Could not restore: a.txt — check them before retrying.",
    );
  });

  it("reports an unreadable file as a verification error", () => {
    const cwd = ws();
    const fs: PatchFs = {
      ...nodePatchFs,
      read: () => {
        throw new Error("EACCES: permission denied");
      },
    };
    const out = applyPatch(patch("*** Delete File: x"), cwd, fs);
    expect(out.ok ? "" : out.error).toBe(
      "'*** Delete File: x' (patch line 2): cannot read x: EACCES: permission denied",
    );
  });
});

describe("apply_patch path guard", () => {
  // fails if the guard counts `.git` above a root the user chose (a writable root inside .git),
  // or mistakes `.github`/`.gitignore` for .git, or if applyPatch ignores the guard it is given.
  it("refuses .git below a root but not a root the user placed inside .git, nor .git-like names", () => {
    const cwd = ws();
    mkdirSync(join(cwd, ".git", "hooks"), { recursive: true });
    const guard = pathGuard(nodePatchFs, {
      protectedPaths: [join(cwd, "home")],
      protectGit: true,
      roots: [cwd, join(cwd, ".git", "hooks")],
    });
    const bad = applyPatch(
      patch("*** Add File: ok.txt\n+x\n*** Add File: .git/config\n+y"),
      cwd,
      nodePatchFs,
      undefined,
      [],
      guard,
    );
    expect(bad).toMatchObject({ ok: false, stage: "verify" });
    expect(existsSync(join(cwd, "ok.txt"))).toBe(false);
    expect(
      applyPatch(patch("*** Add File: home/x\n+y"), cwd, nodePatchFs, undefined, [], guard),
    ).toMatchObject({ ok: false });
    const hook = join(cwd, ".git", "hooks", "pre-commit");
    const ok = applyPatch(
      patch(`*** Add File: .github/ci.yml\n+a\n*** Add File: .gitignore\n+b\n*** Add File: ${hook}\n+c`),
      cwd,
      nodePatchFs,
      undefined,
      [join(cwd, ".git", "hooks")],
      guard,
    );
    expect(ok.ok).toBe(true);
    expect(read(hook)).toBe("c\n");
  });
});

describe("benchPatch", () => {
  it("builds a patch that applies to the 10,000-line source and times it", () => {
    expect(benchSource().split("\n")).toHaveLength(10_001);
    expect(benchPatchText()).toContain("@@ function step");
    expect(benchPatch().ms).toBeGreaterThan(0);
  });
});
