/**
 * `tandem exec --add-dir DIR` (README "Sandbox and approvals"): under workspace-write a
 * command may write into an added directory, and only there — a sibling of it stays
 * read-only, and without the flag the same directory is read-only too. Real processes:
 * `./bin/tandem exec` (run `npm run build` first) against `tandem mock-model`, under real
 * bubblewrap. The directories live outside /tmp, which is a writable root of its own.
 *
 * The other sandbox promises have their tests elsewhere: `.git` read-only with `git status`
 * still working in test/security/sandbox.test.ts, `network_access = true` reaching a host
 * listener in test/sandbox.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const cleanup: string[] = [];

describe.skipIf(missing("bwrap").length > 0)("tandem exec --add-dir (bubblewrap)", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** Runs one `exec --json` turn whose model runs `cmd`; returns the command's output. */
  async function runCommand(cmd: string, extraArgs: string[]): Promise<string> {
    await mock?.stop();
    mock = await startMockProcess({
      steps: [
        { output: [{ type: "function_call", name: "exec_command", call_id: "c1", arguments: { cmd } }] },
        { output: [{ type: "message", text: "done" }] },
      ],
    });
    const r = await runTandem(
      ["exec", "--json", "--sandbox", "workspace-write", "--cd", tempDir("tandem-ws-"), ...extraArgs, "go"],
      { env: { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url } },
    );
    expect(r.code, r.stderr).toBe(0);
    const done = jsonLines(r.stdout).find(
      (e) => e.type === "item.completed" && e.item.type === "command_execution",
    );
    return done.item.aggregated_output;
  }

  // Fails if `exec` drops --add-dir (the `writableRoots` it passes to startThread), or the
  // sandbox does not bind writable roots read-write; or if it binds their parent instead
  // (the sibling becomes writable), or makes every directory writable (the run without the
  // flag succeeds).
  it("a command writes into the added directory; its sibling and a run without the flag cannot", async () => {
    const parent = mkdtempSync("/var/lib/tandem-add-dir-");
    cleanup.push(parent);
    const added = join(parent, "added");
    const sibling = join(parent, "sibling");
    mkdirSync(added);
    mkdirSync(sibling);
    // Subshells with 2>&1 keep each error next to its rc in the output.
    const cmd = `(echo in > ${added}/a.txt) 2>&1; echo rc1=$?; (echo out > ${sibling}/b.txt) 2>&1; echo rc2=$?`;

    const withFlag = await runCommand(cmd, ["--add-dir", added]);
    expect(withFlag).toMatch(/rc1=0/);
    expect(withFlag).toMatch(/Read-only file system[\s\S]*rc2=1/);
    expect(readFileSync(join(added, "a.txt"), "utf8")).toBe("in\n");
    expect(existsSync(join(sibling, "b.txt"))).toBe(false);

    rmSync(join(added, "a.txt"));
    const without = await runCommand(cmd, []);
    expect(without).toMatch(/Read-only file system[\s\S]*rc1=1[\s\S]*rc2=1/);
    expect(existsSync(join(added, "a.txt"))).toBe(false);
    expect(existsSync(join(sibling, "b.txt"))).toBe(false);
  });
});
