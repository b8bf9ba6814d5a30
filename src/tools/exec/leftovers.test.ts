/**
 * Background jobs a finished command left behind (`sleep 300 &`) die with the thread's
 * sessions (`ExecSessions.closeAll`), and a kill never reaches a process that merely reuses a
 * recorded pid. Real processes; zombies count as dead.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { missing } from "../../../test/helpers/system-tools.js";
import { isAlive, killLeftovers, listProcesses } from "../../util/process-tree.js";
import { createExecTools, ExecSessions } from "./index.js";
import type { SandboxMode } from "./sandbox.js";
import { makeCtx, scratchDir, sleepers } from "./test-helpers.js";

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function leaveJob(mode: SandboxMode, tag: string) {
  const sessions = new ExecSessions();
  const { execCommand } = createExecTools({ sessions });
  const ctx = makeCtx({
    cwd: scratchDir(),
    safety: {
      sandbox: { mode, writableRoots: [], network: false, protectedPaths: [] },
      approvalPolicy: "never",
      requestApproval: async () => "decline",
    },
  });
  const r = await execCommand.execute(
    { cmd: `sleep ${tag} >/dev/null 2>&1 & echo started`, yield_time_ms: 10_000 } as never,
    ctx,
  );
  expect(r.output).toContain("Process exited with code 0");
  return sessions;
}

describe.skipIf(process.platform !== "linux")("leftover background jobs", () => {
  it("full access: the job outlives its command, then closeAll kills it", async () => {
    const tag = `${process.pid}1`;
    const sessions = await leaveJob("danger-full-access", tag);
    try {
      // The job's fork may exec `sleep` a moment after the shell has exited (a busy machine).
      await until(() => sleepers(tag).length === 1, "the background job runs on its own");
      expect(sleepers(tag)).toHaveLength(1);
      await sessions.closeAll();
      // fails if closeAll kills only live sessions (not what finished commands left running)
      await until(() => sleepers(tag).length === 0, "the background job dies");
    } finally {
      for (const pid of sleepers(tag)) process.kill(pid, "SIGKILL");
    }
  });

  it.skipIf(missing("bwrap").length > 0)(
    "sandboxed: bwrap's PID namespace ends the job with the shell",
    async () => {
      const tag = `${process.pid}2`;
      const sessions = await leaveJob("workspace-write", tag);
      try {
        // fails if the sandbox stops running commands in their own PID namespace (--unshare-pid)
        await until(() => sleepers(tag).length === 0, "the sandboxed background job dies with bwrap");
        await sessions.closeAll();
      } finally {
        for (const pid of sleepers(tag)) process.kill(pid, "SIGKILL");
      }
    },
  );

  it("a recorded pid now running another process (other start time) is not killed", async () => {
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const pid = other.pid!;
      const info = listProcesses().find((p) => p.pid === pid);
      expect(info?.start).toBeDefined();
      // fails if killLeftovers trusts the pid without comparing the start time
      await killLeftovers([{ pid, pgid: pid, start: "1" }], 0);
      expect(isAlive(pid)).toBe(true);
      await killLeftovers([{ pid, pgid: process.pid, start: info!.start }], 0);
      await until(() => !isAlive(pid), "the recorded process dies");
    } finally {
      other.kill("SIGKILL");
    }
  });
});
