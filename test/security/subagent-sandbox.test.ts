/**
 * A hostile model uses a sub-agent to get out of its own sandbox (README "Sub-agents": a child's sandbox is
 * never looser than its parent's). The parent runs read-only with approvals "never"; it spawns a
 * child whose task is to write into the workspace, and the child tries with a plain write and
 * with an escalation request. Nothing may land; the legitimate read still works.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHILD, call, outputOf, say, spawnCall } from "../helpers/agent-scripts.js";
import { type Harness, harness } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

describe.skipIf(missing("bwrap").length > 0)("sub-agent sandbox", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Fails if a child gets a default (looser) sandbox instead of its read-only parent's, or if
  // an escalation from the child runs without the parent's approval policy ("never").
  it("a child of a read-only parent cannot write, not even by asking to escalate", async () => {
    h = await harness({
      overrides: ['sandbox_mode="workspace-write"', 'approval_policy="never"'],
      script: {
        steps: [
          { output: [spawnCall("TASK-W: write the files", "sw")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [say("parent done")] },
        ],
        side_steps: [
          {
            when: { input_contains: [CHILD, "TASK-W", "function_call_output"] },
            output: [say("TASK-W tried")],
          },
          {
            when: { input_contains: [CHILD, "TASK-W"] },
            output: [
              call(
                "exec_command",
                { cmd: "echo pwned > plain.txt; cat /etc/hostname >/dev/null && echo read-ok" },
                "c1",
              ),
              call(
                "exec_command",
                {
                  cmd: "echo pwned > escalated.txt",
                  sandbox_permissions: "require_escalated",
                  justification: "needs to write",
                },
                "c2",
              ),
            ],
          },
        ],
      },
    });
    // The parent thread itself is read-only (a client chose it), whatever the config says.
    const root = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.threads.updateSettings(root.id, { sandbox_mode: "read-only" });
    const turn = root.startTurn("delegate the writing");
    await turn.done;
    expect(existsSync(join(h.cwd, "plain.txt"))).toBe(false);
    expect(existsSync(join(h.cwd, "escalated.txt"))).toBe(false);
    const requests = h.model.requests;
    // Still works: the child's read ran inside its (read-only) sandbox.
    expect(String(outputOf(requests, "c1"))).toContain("read-ok");
    expect(String(outputOf(requests, "c1"))).toMatch(/Read-only file system/);
    // The escalation was refused under the parent's "never", not run.
    expect(String(outputOf(requests, "c2"))).not.toContain("Process exited with code 0");
  });
  // Fails if spawn takes the parent thread's own sandbox (workspace-write) instead of the one in
  // force for the turn that spawns (a per-turn `options.sandbox: "read-only"`).
  it("a child spawned in a read-only turn of a workspace-write thread cannot write", async () => {
    h = await harness({
      overrides: ['sandbox_mode="workspace-write"', 'approval_policy="never"'],
      script: {
        steps: [
          { output: [spawnCall("TASK-T: write a file", "st")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [say("parent done")] },
          // A later turn without the per-turn option: the thread itself may write.
          { output: [call("exec_command", { cmd: "echo legit > legit.txt" }, "p1")] },
          { output: [say("wrote")] },
        ],
        side_steps: [
          {
            when: { input_contains: [CHILD, "TASK-T", "function_call_output"] },
            output: [say("TASK-T tried")],
          },
          {
            when: { input_contains: [CHILD, "TASK-T"] },
            output: [call("exec_command", { cmd: "echo pwned > turn.txt; echo rc=$?" }, "c1")],
          },
        ],
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd });
    const turn = root.startTurn("delegate", { options: { sandbox: "read-only" } });
    expect((await turn.done).status).toBe("completed");
    expect(existsSync(join(h.cwd, "turn.txt"))).toBe(false);
    expect(String(outputOf(h.model.requests, "c1"))).toMatch(/Read-only file system[\s\S]*rc=1/);
    // The thread's own sandbox still applies to its later turns (the option was per turn).
    expect((await root.startTurn("write").done).status).toBe("completed");
    expect(existsSync(join(h.cwd, "legit.txt"))).toBe(true);
  });
});
