/**
 * Red team: a hard link in the workspace to a file of Tandem's home. `readRegular` checks the
 * path the descriptor was opened by, so a hard link named in the workspace would pass — if the
 * model could make one. It cannot: inside bubblewrap the home is an empty tmpfs (nothing to
 * name) and a hidden store file is a read-only bind of a blank file (another mount: EXDEV), and
 * link(2) cannot reach an inode through a path it cannot name. This pins that: the model's `ln`
 * fails, and the user's later `@link` attaches nothing of the home or the store.
 *
 * Real loop (harness: Runtime, SQLite, scripted model over HTTP), real bubblewrap; home,
 * workspace and store on one file system (/tmp), so only the sandbox stands in the way.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, say } from "../helpers/agent-scripts.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const hasBwrap = missing("bwrap").length === 0;
const TOKEN = "HARDLINK-token-77c2";

describe.skipIf(!hasBwrap)("red team: no hard link to Tandem's home or store from the sandbox", () => {
  let h: Harness | undefined;
  const cleanup: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("the model's ln fails and a later @mention reads nothing hidden", async () => {
    const home = tempDir("tandem-rt-home-");
    const cwd = tempDir("tandem-rt-ws-");
    cleanup.push(home, cwd);
    writeFileSync(join(home, "credentials.json"), `{"token":"${TOKEN}"}`);
    // In a folder of its own: the store's directory is read-only to commands.
    mkdirSync(join(cwd, "db"));
    const store = join(cwd, "db", "state.db");
    const plant = [
      `ln ${home}/credentials.json cred-link; echo "home:$?"`,
      `ln ${store} store-link; echo "store:$?"`,
      `ln -s ${home}/credentials.json sym-link; echo "sym:$?"`,
      `echo w > mine.txt; echo "write:$?"`,
    ].join("; ");
    h = await harness({
      cwd,
      home,
      store,
      script: {
        steps: [
          { output: [call("exec_command", { cmd: plant }, "x1")] },
          { output: [say("planted")] },
          { output: [say("read them")] },
        ],
      } as any,
      overrides: ['sandbox_mode="workspace-write"'],
    });
    const thread = h.runtime.threads.start({ cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    const out = JSON.stringify(h.model.requests);
    expect(out).toMatch(/home:[1-9]/);
    expect(out).toMatch(/store:[1-9]/);
    expect(out).toContain("write:0"); // the workspace itself was writable
    expect(out).toContain("sym:0");
    expect(existsSync(join(cwd, "cred-link"))).toBe(false);
    expect(existsSync(join(cwd, "store-link"))).toBe(false);
    expect(
      (await thread.startTurn("look at @cred-link @store-link @sym-link @db/state.db @db").done).status,
    ).toBe("completed");
    const requests = JSON.stringify(h.model.requests);
    expect(requests).toContain("sym-link"); // the user's turn was sent
    expect(requests.includes(TOKEN), "a model request holds the home's token").toBe(false);
    expect(requests).not.toContain("SQLite format");
  });
});
