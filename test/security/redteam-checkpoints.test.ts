/**
 * Red team: the turn-diff watch and checkpoint store follow a link a sandboxed command made.
 *
 * A sandboxed command cannot read Tandem's home (it is hidden), but the watch reads files on the
 * host, outside the sandbox. The command touches a file in a directory the watch already
 * watches, moves the directory away and puts a symbolic link to the home in its place: the
 * event names `d/config.toml`, and a watch that reads `root/d/config.toml` by path follows the
 * link into the home — config.toml's token would land in the turn diff (every surface, the
 * stored turn) and in the checkpoint store. Tandem must read the entry through the directory as
 * it really is, and find nothing there.
 *
 * Real loop (harness: Runtime, SQLite, scripted model over HTTP), real bubblewrap.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointBlobs } from "../helpers/checkpoints.js";
import { type Harness, harness, outsideDir, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const hasBwrap = missing("bwrap").length === 0;
const TOKEN = "HUSH-bearer-0c9a71d3";

const exec = (id: string, cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd },
});

describe.skipIf(!hasBwrap)("red team: the watch never follows a link out of the workspace", () => {
  let h: Harness | undefined;
  const cleanup: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  // Fails if the watch reads a dirty path through a directory that became a link (the token of
  // the hidden home's config.toml shows in the turn diff and the checkpoint store).
  it("a watched directory swapped for a link to the home: nothing of the home is read", async () => {
    const home = tempDir("tandem-home-");
    writeFileSync(join(home, "config.toml"), `# token = "${TOKEN}"\n`);
    const cwd = outsideDir();
    cleanup.push(cwd);
    mkdirSync(join(cwd, "d"));
    writeFileSync(join(cwd, "d", "keep.txt"), "keep\n");
    h = await harness({
      cwd,
      home,
      script: {
        steps: [
          {
            output: [
              exec("x1", `echo planted > d/config.toml && mv d d2 && ln -s ${home} d && echo SWAPPED`),
              exec("x2", "echo more > note.txt"),
            ],
          },
          { output: [{ type: "message", text: "done" }] },
        ],
      } as any,
      overrides: ['sandbox_mode="workspace-write"'],
    });
    const thread = h.runtime.startThread({ cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    const diffs = h.events
      .map((s) => s.event)
      .filter((e) => e.type === "turn.diff")
      .map((e) => (e as { diff: string }).diff);
    const last = diffs.at(-1) ?? "";
    // The command ran, and the diff shows what it did in the workspace.
    expect(last).toContain("d2/config.toml");
    expect(last).toContain("note.txt");
    // Nothing of the home: not in any diff, any event, the checkpoint store.
    expect(JSON.stringify(h.events).includes(TOKEN), "an event holds the home's token").toBe(false);
    await h.close();
    const blobs = checkpointBlobs(home);
    expect(blobs.length).toBeGreaterThan(0);
    for (const b of blobs) expect(b.includes(TOKEN), "a checkpoint blob holds the home's token").toBe(false);
    h = undefined;
  });
});
