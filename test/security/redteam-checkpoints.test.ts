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
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    const thread = h.runtime.threads.start({ cwd });
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

describe("red team: a file name cannot forge the turn diff", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Fails if paths go into the diff's `---`/`+++` lines raw: a name with newlines then reads
  // as a second file's header and hunk (here a harmless-looking edit of README.md, which the
  // command never touched), and a client that lists the diff per file shows that instead.
  it("a name holding newlines and a fake header stays one quoted path", async () => {
    const fake = "x\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-old\n+new";
    h = await harness({
      script: {
        steps: [
          {
            output: [
              exec(
                "x1",
                `F=$'${fake.replace(/\n/g, "\\n")}'; mkdir -p "$(dirname "$F")" && printf 'hi\\n' > "$F"`,
              ),
            ],
          },
          { output: [{ type: "message", text: "done" }] },
        ],
      } as any,
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    expect(existsSync(join(h.cwd, fake))).toBe(true); // the command made it
    const diff = h.events
      .map((s) => s.event)
      .filter((e) => e.type === "turn.diff")
      .map((e) => (e as { diff: string }).diff)
      .at(-1);
    expect(diff).toBeDefined();
    const lines = diff!.split("\n");
    expect(
      lines.filter((l) => l.startsWith("+++ ")),
      diff,
    ).toHaveLength(1);
    expect(lines).not.toContain("+++ b/README.md");
    expect(lines[1]).toBe('+++ "b/x\\n--- a/README.md\\n+++ b/README.md\\n@@ -1 +1 @@\\n-old\\n+new"');
  });
});

const hasPython = spawnSync("python3", ["--version"]).status === 0;

describe("red team: writes that raise no event in the file's directory", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function turn(cmds: string[]): Promise<string> {
    h = await harness({
      script: {
        steps: [
          ...cmds.map((cmd, i) => ({ output: [exec(`x${i}`, cmd)] })),
          { output: [{ type: "message", text: "done" }] },
        ],
      } as any,
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    mkdirSync(join(h.cwd, "src"));
    writeFileSync(join(h.cwd, "src", "app.js"), "ok();\n");
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    return (
      h.events
        .map((s) => s.event)
        .filter((e) => e.type === "turn.diff")
        .map((e) => (e as { diff: string }).diff)
        .at(-1) ?? ""
    );
  }

  // Fails if the turn diff trusts the events alone: written through a second name in
  // node_modules/ (never watched), src/app.js changes with no event on src/.
  it("a tracked file changed through its hard link in node_modules is in the turn diff", async () => {
    const diff = await turn([
      "mkdir -p node_modules && ln src/app.js node_modules/h",
      "echo 'backdoor();' >> node_modules/h",
    ]);
    expect(readFileSync(join(h!.cwd, "src", "app.js"), "utf8")).toBe("ok();\nbackdoor();\n");
    expect(diff).toContain("+++ b/src/app.js");
    expect(diff).toContain("+backdoor();");
  });

  // Fails likewise for a write through a shared mapping (mmap), which raises no event at all.
  it.skipIf(!hasPython)(
    "a tracked file changed through mmap is in the turn diff (needs python3)",
    async () => {
      const diff = await turn([
        `python3 -c "import mmap,os; fd=os.open('src/app.js',os.O_RDWR); m=mmap.mmap(fd,0); m[0:2]=b'no'; m.close(); os.close(fd)"`,
      ]);
      expect(readFileSync(join(h!.cwd, "src", "app.js"), "utf8")).toBe("no();\n");
      expect(diff).toContain("-ok();");
      expect(diff).toContain("+no();");
    },
  );
});
