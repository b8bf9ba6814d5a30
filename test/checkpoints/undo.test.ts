/**
 * Undo and redo end to end (README "Undo, redo, fork and rewind"): a scripted turn edits three
 * files by apply_patch and one by a shell command (a delete and a new file among them); undo,
 * once the user applies it through the question protocol, restores all four byte for byte, redo
 * re-applies them, a file the user edited meanwhile raises the conflict question, and the git
 * repository around them — status, stash, index bytes, branches — is never touched. Headless,
 * undo refuses. Real loop: Runtime, SQLite, scripted model over HTTP, real git for checking.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import type { EventOf } from "../../src/protocol/events.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";

const PATCH = [
  "*** Begin Patch",
  "*** Update File: a.txt",
  "@@",
  " alpha",
  "-beta",
  "+BETA",
  "*** Delete File: b.txt",
  "*** Add File: c.txt",
  "+brand new",
  "*** End Patch",
].join("\n");

const SCRIPT: Script = {
  steps: [
    {
      output: [
        { type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "p1" },
        {
          type: "function_call",
          name: "exec_command",
          call_id: "x1",
          arguments: { cmd: "printf 'by shell\\n' >> d.txt" },
        },
      ],
    },
    { output: [{ type: "message", text: "edited" }] },
  ],
};

function hasGit(): boolean {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["--no-optional-locks", ...args], { cwd, encoding: "utf8" });

/** Everything git keeps that Tandem must never touch. */
function gitState(cwd: string) {
  return {
    status: git(cwd, "status", "--porcelain"),
    stash: git(cwd, "stash", "list"),
    branches: git(cwd, "branch", "-a", "-v"),
    index: readFileSync(join(cwd, ".git", "index")).toString("base64"),
  };
}

const files = (cwd: string) =>
  Object.fromEntries(
    ["a.txt", "b.txt", "c.txt", "d.txt"].map((f) => [
      f,
      existsSync(join(cwd, f)) ? readFileSync(join(cwd, f), "utf8") : null,
    ]),
  );

describe.skipIf(!hasGit())("undo and redo of a turn", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Answers the next restore question (`id`) with `label`; returns its prompt. */
  async function answer(id: string, label: string, seen: Set<string>): Promise<string> {
    const e = (await h!.waitFor(
      (x): x is EventOf<"question.requested"> =>
        x.type === "question.requested" &&
        x.request.questions[0]?.id === id &&
        !seen.has(x.request.request_id),
    )) as EventOf<"question.requested">;
    seen.add(e.request.request_id);
    // Asked in this process only: never stored (a restart drops it, nothing written).
    expect(h!.runtime.questions.get(e.request.request_id)).toBeUndefined();
    const r = h!.runtime.questions.reply(
      e.thread_id,
      e.request.request_id,
      { answers: { [id]: { selected: [label] } } },
      { kind: "test" },
    );
    if (!r.ok) throw new Error(`reply refused: ${r.message}`);
    return e.request.questions[0].prompt;
  }

  it("restores four files byte for byte, re-applies them, asks about the user's edit, leaves git alone", async () => {
    const cwd = tempDir("tandem-undo-");
    writeFileSync(join(cwd, "a.txt"), "alpha\nbeta\ngamma\n");
    writeFileSync(join(cwd, "b.txt"), "to be deleted\n");
    writeFileSync(join(cwd, "d.txt"), "dee\n");
    git(cwd, "init", "-q", "-b", "main");
    git(cwd, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A");
    git(cwd, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base");
    git(cwd, "branch", "side");
    const original = files(cwd);
    const gitBefore = gitState(cwd);
    h = await harness({ cwd, script: SCRIPT });
    const t = h.runtime.threads.start({ cwd });
    expect((await t.startTurn("edit four files").done).status).toBe("completed");
    const edited = files(cwd);
    expect(edited).toEqual({
      "a.txt": "alpha\nBETA\ngamma\n",
      "b.txt": null,
      "c.txt": "brand new\n",
      "d.txt": "dee\nby shell\n",
    });
    const gitEdited = gitState(cwd);
    expect(gitEdited.index).toBe(gitBefore.index);

    // Headless: refused, nothing written.
    await expect(h.runtime.checkpoints.undo(t.id)).rejects.toThrow(/headless/);
    expect(files(cwd)).toEqual(edited);

    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    const seen = new Set<string>();
    // Cancel: nothing written.
    let undo = h.runtime.checkpoints.undo(t.id);
    const prompt = await answer("restore", "Cancel", seen);
    expect(prompt).toContain("edit four files");
    expect(prompt).toContain("-BETA\n+beta");
    expect(prompt).toContain("--- /dev/null\n+++ b/b.txt");
    expect(prompt).toContain("--- a/c.txt\n+++ /dev/null");
    expect((await undo).status).toBe("cancelled");
    expect(files(cwd)).toEqual(edited);

    // Apply: all four back, byte for byte.
    undo = h.runtime.checkpoints.undo(t.id);
    await answer("restore", "Apply", seen);
    const done = await undo;
    expect(done.status).toBe("applied");
    expect(done.result?.applied.sort()).toEqual(["a.txt", "b.txt", "c.txt", "d.txt"]);
    expect(files(cwd)).toEqual(original);
    expect(gitState(cwd)).toEqual(gitBefore);
    expect(h.runtime.checkpoints.list(t.id).map((c) => c.state)).toEqual(["undone"]);

    // Redo: the turn's state again.
    const redo = h.runtime.checkpoints.redo(t.id);
    await answer("restore", "Apply", seen);
    expect((await redo).status).toBe("applied");
    expect(files(cwd)).toEqual(edited);
    expect(gitState(cwd)).toEqual(gitEdited);

    // The user edits a.txt; undo asks about it, and Skip leaves the edit alone.
    writeFileSync(join(cwd, "a.txt"), "the user's own\n");
    const again = h.runtime.checkpoints.undo(t.id);
    await answer("restore", "Apply", seen);
    const conflictPrompt = await answer("conflicts", "Skip them", seen);
    expect(conflictPrompt).toContain("a.txt: it was edited since");
    const skipped = await again;
    expect(skipped.result?.skipped).toEqual(["a.txt"]);
    expect(files(cwd)).toEqual({ ...original, "a.txt": "the user's own\n" });
    expect(gitState(cwd).index).toBe(gitBefore.index);
    expect(git(cwd, "stash", "list")).toBe("");
    expect(h.runtime.questions.stored(t.id)).toEqual([]);
  });
});
