/**
 * Red team: the review turn's own limits win over the thread's, and end with the turn.
 * - A thread under danger-full-access with network access on: in the review, a command cannot
 *   write the workspace (not via a redirect, /proc/self/fd, a FIFO or a background process
 *   started in the review), escalation is refused under `never`, a patch is refused — and the
 *   command cannot reach a listener on the host either (no network in a review).
 * - The next normal turn has the thread's own sandbox again: it writes (the review persisted
 *   nothing read-only), and the review left no session behind that wrote later.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REVIEW_TURN, reviewPrompt } from "../../src/protocol/review.js";
import { call, say } from "../helpers/agent-scripts.js";
import { type Harness, harness } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find(
      (i: any) =>
        (i.type === "function_call_output" || i.type === "custom_tool_call_output") && i.call_id === callId,
    );
    if (o) return String(o.output);
  }
  return "";
}

describe.skipIf(missing("bwrap").length > 0)("red team: a review's sandbox wins, then ends", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const where of ["/tmp", "/var/tmp"])
    it(`danger-full-access + network thread: the review writes nothing and reaches nothing (${where})`, async () => {
      let connections = 0;
      const server = createServer((c) => {
        connections++;
        c.end();
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const port = (server.address() as AddressInfo).port;
      const cwd = mkdtempSync(join(where, "tandem-review-sbx-"));
      writeFileSync(join(cwd, "keep.txt"), "original\n");
      const patch = ["*** Begin Patch", "*** Add File: added.txt", "+x", "*** End Patch"].join("\n");
      const probe = `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo NET_OK || echo NET_BLOCKED`;
      try {
        h = await harness({
          cwd,
          overrides: ['sandbox_mode="danger-full-access"', "sandbox_workspace_write.network_access=true"],
          script: {
            steps: [
              {
                output: [
                  call("exec_command", { cmd: "echo a > keep.txt; echo rc=$?" }, "redirect"),
                  call(
                    "exec_command",
                    { cmd: "exec 9<>keep.txt; echo b > /proc/self/fd/9; echo rc=$?" },
                    "procfd",
                  ),
                  call("exec_command", { cmd: "mkfifo p && echo made; echo rc=$?" }, "fifo"),
                  call("exec_command", { cmd: "(sleep 1; echo late > late.txt) & echo bg" }, "background"),
                  call(
                    "exec_command",
                    { cmd: "sleep 2; echo held > held.txt", yield_time_ms: 250 },
                    "session",
                  ),
                  call(
                    "exec_command",
                    {
                      cmd: "echo c > keep.txt",
                      sandbox_permissions: "require_escalated",
                      justification: "x",
                    },
                    "escalate",
                  ),
                  call("exec_command", { cmd: probe }, "net"),
                  { type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "patch" },
                ],
              },
              {
                output: [
                  say(
                    '{"findings": [], "overall_correctness": "patch is correct", "overall_explanation": ""}',
                  ),
                ],
              },
              { output: [call("exec_command", { cmd: "echo after > after.txt && echo ok" }, "after")] },
              { output: [say("done")] },
            ],
          },
        });
        const thread = h.runtime.threads.start({ cwd, mode: "default" });
        const review = await thread.startTurn(reviewPrompt({ type: "uncommittedChanges" }), {
          options: REVIEW_TURN,
          mentions: false,
        }).done;
        expect(review.status).toBe("completed");
        for (const id of ["redirect", "procfd", "fifo"])
          expect(outputOf(h, id), id).toMatch(/Read-only file system/);
        expect(outputOf(h, "escalate")).toContain("Escalation refused");
        expect(outputOf(h, "net")).toContain("NET_BLOCKED");
        expect(outputOf(h, "patch")).toMatch(/not available in a read-only review/);
        await new Promise((r) => setTimeout(r, 2500));
        expect(readFileSync(join(cwd, "keep.txt"), "utf8")).toBe("original\n");
        for (const f of ["p", "late.txt", "held.txt", "added.txt"])
          expect(existsSync(join(cwd, f)), f).toBe(false);
        expect(connections).toBe(0);
        // The next turn is the thread's own again: danger-full-access, every tool.
        expect(thread.record.settings).not.toHaveProperty("read_only_tools");
        expect((await thread.startTurn("go on").done).status).toBe("completed");
        expect(readFileSync(join(cwd, "after.txt"), "utf8")).toBe("after\n");
      } finally {
        server.close();
        rmSync(cwd, { recursive: true, force: true });
      }
    });
});
