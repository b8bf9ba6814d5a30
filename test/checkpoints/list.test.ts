/**
 * Checkpoints as `runtime.checkpoints.list` shows them (README "Undo, redo, fork and rewind"):
 * one per turn that changed files, named by the turn and the user message that started it,
 * kept in `$TANDEM_HOME/checkpoints/` so a new process lists them too, and dropped once older
 * than `[checkpoints] max_age_days`. Real loop: Runtime, SQLite, scripted model over HTTP.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";

const patch = (id: string, body: string[]) => ({
  type: "custom_tool_call" as const,
  name: "apply_patch",
  call_id: id,
  input: ["*** Begin Patch", ...body, "*** End Patch"].join("\n"),
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

const SCRIPT = {
  steps: [
    {
      output: [patch("p1", ["*** Update File: a.txt", "@@", "-one", "+ONE", "*** Add File: b.txt", "+bee"])],
    },
    say("first done"),
    say("nothing changed"),
    { output: [patch("p2", ["*** Delete File: a.txt"])] },
    say("second done"),
  ],
};

describe("runtime.checkpoints.list", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("lists one checkpoint per file-changing turn, with its message, and again after a restart", async () => {
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-cwd-");
    writeFileSync(join(cwd, "a.txt"), "one\n");
    h = await harness({ home, cwd, script: SCRIPT });
    const t = h.runtime.threads.start({ cwd });
    for (const text of ["edit a, add b", "just talk", "delete a"])
      expect((await t.startTurn(text).done).status).toBe("completed");
    const turns = h.runtime.threads.turns(t.id);
    const listed = h.runtime.checkpoints.list(t.id);
    const shape = listed.map((c) => ({ turn: c.turnId, message: c.message, state: c.state, files: c.files }));
    const expected = [
      {
        turn: turns[0].id,
        message: "edit a, add b",
        state: "live",
        files: [
          { path: "a.txt", change: "modified", restorable: true },
          { path: "b.txt", change: "created", restorable: true },
        ],
      },
      {
        turn: turns[2].id,
        message: "delete a",
        state: "live",
        files: [{ path: "a.txt", change: "deleted", restorable: true }],
      },
    ];
    expect(shape).toEqual(expected);
    await h.close();

    // A new process on the same home lists the same checkpoints.
    h = await harness({ home, cwd, script: { steps: [] } });
    const again = h.runtime.checkpoints.list(t.id);
    expect(
      again.map((c) => ({ turn: c.turnId, message: c.message, state: c.state, files: c.files })),
    ).toEqual(expected);
    expect(() => h?.runtime.checkpoints.list("thr_nope")).toThrow(/no thread with id thr_nope/);
  });

  it("drops checkpoints older than [checkpoints] max_age_days when the workspace opens", async () => {
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-cwd-");
    writeFileSync(join(cwd, "a.txt"), "one\n");
    h = await harness({ home, cwd, script: { steps: SCRIPT.steps.slice(0, 2) } });
    const t = h.runtime.threads.start({ cwd });
    expect((await t.startTurn("edit a, add b").done).status).toBe("completed");
    expect(h.runtime.checkpoints.list(t.id)).toHaveLength(1);
    const storeFile = runtimeInternals(h.runtime).workspaces.storeFile(
      h.runtime.threads.get(t.id)?.record.cwd ?? cwd,
    );
    await h.close();
    // Age the checkpoint by two days.
    const db = new Database(storeFile.replace(/^(?!\/)/, ""));
    db.prepare("UPDATE checkpoints SET created_at = created_at - ?").run(2 * 86_400_000);
    db.close();
    // Kept under the default (30 days)…
    h = await harness({ home, cwd, script: { steps: [] } });
    expect(h.runtime.checkpoints.list(t.id)).toHaveLength(1);
    await h.close();
    // …dropped under max_age_days = 1.
    h = await harness({ home, cwd, script: { steps: [] }, overrides: ["checkpoints.max_age_days=1"] });
    const { workspaces } = runtimeInternals(h.runtime);
    const ws = workspaces.acquire(cwd);
    await ws?.ready();
    if (ws) workspaces.release(ws);
    expect(h.runtime.checkpoints.list(t.id)).toEqual([]);
  });
});
