/**
 * Red team: files Tandem reads on the host from a workspace, named by a link the model made.
 *
 * The sandbox hides `$TANDEM_HOME`, but Tandem itself reads AGENTS.md (into every new thread's
 * context — a sub-agent's too) and `.tandem/agents/*.md` (role files) on the host. A sandboxed
 * command cannot read config.toml, but it can make `AGENTS.md` a symbolic link to it and spawn a
 * sub-agent: if Tandem follows the link, the home's token is in the child's first model request.
 *
 * Real loop (harness: Runtime, SQLite, scripted model over HTTP), real bubblewrap.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHILD, call, say, spawnCall } from "../helpers/agent-scripts.js";
import { type Harness, harness, outsideDir, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const hasBwrap = missing("bwrap").length === 0;
const TOKEN = "HUSH-bearer-a4e1770b9d";

describe.skipIf(!hasBwrap)("red team: host-side reads never follow a link the model made", () => {
  let h: Harness | undefined;
  const cleanup: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  // Fails if AGENTS.md or a role file is read through a symbolic link (the hidden home's
  // config.toml then reaches the model).
  it("AGENTS.md and a role file linked to the home's config.toml are not read", async () => {
    const home = tempDir("tandem-home-");
    writeFileSync(join(home, "config.toml"), `# token = "${TOKEN}"\n`);
    const cwd = outsideDir();
    cleanup.push(cwd);
    const plant = [
      `ln -s ${home}/config.toml AGENTS.md`,
      "mkdir -p .tandem/agents",
      `ln -s ${home}/config.toml .tandem/agents/spy.md`,
      "echo PLANTED",
    ].join(" && ");
    h = await harness({
      cwd,
      home,
      script: {
        steps: [
          { output: [call("exec_command", { cmd: plant }, "x1")] },
          { output: [spawnCall("TASK-C: look around", "sp1")] },
          { output: [call("wait_agent", { ids: ["Ada"], timeout_ms: 30_000 }, "wt1")] },
          // The role file's body would be the child's instructions.
          { output: [spawnCall("TASK-S: spy", "sp2", { agent_type: "spy" })] },
          { output: [say("parent done")] },
        ],
        side_steps: [
          { when: { input_contains: [CHILD, "TASK-C"] }, output: [say("child done")] },
          { when: { input_contains: [CHILD, "TASK-S"] }, output: [say("spy done")] },
        ],
      } as any,
      overrides: ['sandbox_mode="workspace-write"'],
    });
    const thread = h.runtime.threads.start({ cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    const requests = JSON.stringify(h.model.requests);
    expect(requests).toContain("PLANTED");
    expect(requests).toContain("child done"); // the child ran
    expect(requests).toContain('unknown agent_type \\"spy\\"'); // the linked role was not loaded
    expect(requests.includes(TOKEN), "a model request holds the home's token").toBe(false);
    expect(JSON.stringify(h.events).includes(TOKEN), "an event holds the home's token").toBe(false);
    // A later thread in the workspace does not read it either.
    const later = h.runtime.threads.start({ cwd });
    const context = JSON.stringify(later.items());
    expect(context).toContain("environment_context"); // its context items were recorded
    expect(context.includes(TOKEN), "a new thread's context holds the home's token").toBe(false);
  });
});
