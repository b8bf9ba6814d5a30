/**
 * The OS sandbox and approvals (requirements A1–A3) with real bubblewrap, through the real loop and
 * the scripted model over HTTP: workspace-write and read-only mounts, no network (probed
 * against a listener the test runs on the host), escalation
 * that asks and runs unsandboxed once, remembered prefix rules that survive a restart,
 * decline and cancel with history well paired.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { isKnownSafe } from "../../src/tools/exec/safe-commands.js";
import { sandboxWrap } from "../../src/tools/exec/sandbox.js";
import { decide, type Harness, harness, outsideDir, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const call = (id: string, cmd: string, extra: Record<string, unknown> = {}) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd, ...extra },
});
const run = promisify(execFile);
const done = { output: [{ type: "message" as const, text: "done" }] };

function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (o) return o.output;
  }
  return "";
}

describe.skipIf(missing("bwrap").length > 0)("sandbox (bubblewrap)", () => {
  let h: Harness | undefined;
  const outsideDirs: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const d of outsideDirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  /** A directory outside every writable root (not under /tmp or $HOME), removed after the test. */
  const outsideRoot = (prefix: string) => {
    const d = outsideDir(prefix);
    outsideDirs.push(d);
    return d;
  };

  // Fails if the sandbox writes outside the workspace, or cannot write its workspace or /tmp.
  it("workspace-write: writes inside the workspace and temp, not outside", async () => {
    const outside = outsideRoot("tandem-outside-");
    h = await harness({
      script: {
        steps: [
          {
            output: [
              call("w1", "echo inside > in.txt && cat in.txt"),
              call("w2", `echo nope > ${outside}/out.txt; echo rc=$?`),
              call("w4", "echo tmp > /tmp/tandem-sandbox-probe && cat /tmp/tandem-sandbox-probe"),
            ],
          },
          done,
        ],
      },
      overrides: ['sandbox_mode="workspace-write"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    expect(readFileSync(join(h.cwd, "in.txt"), "utf8")).toBe("inside\n");
    expect(outputOf(h, "w2")).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, "out.txt"))).toBe(false);
    expect(outputOf(h, "w4")).toContain("Output:\ntmp");
  });

  // Fails if the sandbox shares the host's network namespace without network_access (the
  // listener then sees a connection), or if network_access = true does not reach it.
  it("no network unless network_access: a listener on the host is unreachable, then reachable", async () => {
    let connections = 0;
    const server = createServer((c) => {
      connections++;
      c.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const probe = `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo NET_OK || echo NET_BLOCKED`;
    /** Connections seen once the accept callbacks have run. */
    const seen = async () => {
      await new Promise((r) => setTimeout(r, 200));
      return connections;
    };
    try {
      // From outside the sandbox the listener answers: the probe below is a real one.
      expect((await run("bash", ["-c", probe])).stdout).toContain("NET_OK");
      expect(await seen()).toBe(1);
      for (const network of [false, true]) {
        await h?.close();
        h = await harness({
          script: { steps: [{ output: [call("n1", probe)] }, done] },
          overrides: [`sandbox_workspace_write.network_access=${network}`],
        });
        const thread = h.runtime.threads.start({ cwd: h.cwd });
        expect((await thread.startTurn("go").done).status).toBe("completed");
        expect(outputOf(h, "n1")).toContain(network ? "NET_OK" : "NET_BLOCKED");
        expect(await seen()).toBe(network ? 2 : 1);
      }
    } finally {
      server.close();
    }
  });

  it("read-only: cannot write at all, not even in the workspace", async () => {
    h = await harness({
      script: { steps: [{ output: [call("r1", "echo x > f.txt; echo rc=$?")] }, done] },
      overrides: ['sandbox_mode="read-only"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    await thread.startTurn("go").done;
    // stderr and stdout are two pipes: their order in the merged output is not defined.
    expect(outputOf(h, "r1")).toMatch(/Read-only file system/);
    expect(outputOf(h, "r1")).toMatch(/rc=[12]/);
    expect(existsSync(join(h.cwd, "f.txt"))).toBe(false);
  });

  it("refuses to pretend when bubblewrap is missing; danger-full-access runs without it", () => {
    const policy = { mode: "workspace-write" as const, writableRoots: [], network: false };
    const r = sandboxWrap(policy, tmpdir(), { path: "/nonexistent-bin" });
    expect(r).toMatchObject({ ok: false });
    expect((r as { error: string }).error).toMatch(/bubblewrap.*danger-full-access/s);
    expect(
      sandboxWrap({ ...policy, mode: "danger-full-access" }, tmpdir(), { path: "/nonexistent-bin" }),
    ).toEqual({
      ok: true,
    });
  });

  it("escalation asks; once approved the command runs unsandboxed once; decline is told to the model", async () => {
    const outside = outsideRoot("tandem-esc-");
    h = await harness({
      script: {
        steps: [
          {
            output: [
              call("e1", `echo escalated > ${outside}/a.txt`, {
                sandbox_permissions: "require_escalated",
                justification: "write the shared config",
              }),
            ],
          },
          { output: [call("e2", `echo again > ${outside}/b.txt; echo rc=$?`)] },
          {
            output: [
              call("e3", `echo third > ${outside}/c.txt`, {
                sandbox_permissions: "require_escalated",
                justification: "again",
              }),
            ],
          },
          done,
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const first = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(first.request.approval).toMatchObject({ kind: "exec", justification: "write the shared config" });
    expect(first.request.approval?.command).toContain("escalated");
    decide(h, first, "Accept");
    const second = (await h.waitFor(
      (e) => e.type === "question.requested" && e.request.request_id !== first.request.request_id,
    )) as EventOf<"question.requested">;
    decide(h, second, "Decline");
    expect((await turn.done).status).toBe("completed");
    expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("escalated\n");
    // The next, non-escalated command is sandboxed again: once means once.
    expect(outputOf(h, "e2")).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, "b.txt"))).toBe(false);
    expect(outputOf(h, "e3")).toMatch(/declined/);
    expect(existsSync(join(outside, "c.txt"))).toBe(false);
  });

  it("a remembered prefix rule skips the next ask and survives a restart", async () => {
    const outside = outsideRoot("tandem-rule-");
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-cwd-");
    const esc = (id: string, file: string) =>
      call(id, `touch ${outside}/${file}`, {
        sandbox_permissions: "require_escalated",
        justification: "touch",
        prefix_rule: ["touch"],
      });
    h = await harness({ home, cwd, script: { steps: [{ output: [esc("p1", "one")] }, done] } });
    let thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    let turn = thread.startTurn("go");
    const q = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    decide(h, q, "Accept and remember");
    await turn.done;
    expect(existsSync(join(outside, "one"))).toBe(true);
    await h.close();

    // A new process (new runtime on the same home): the rule still applies, nobody is asked.
    h = await harness({ home, cwd, script: { steps: [{ output: [esc("p2", "two")] }, done] } });
    thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    turn = thread.startTurn("go again");
    expect((await turn.done).status).toBe("completed");
    expect(existsSync(join(outside, "two"))).toBe(true);
    expect(h.events.some((e) => e.event.type === "question.requested")).toBe(false);
  });

  it("cancel at an approval interrupts the turn with history paired", async () => {
    h = await harness({
      script: {
        steps: [
          {
            output: [
              call("c1", "rm -rf build", {
                sandbox_permissions: "require_escalated",
                justification: "clean",
              }),
            ],
          },
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const q = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    decide(h, q, "Cancel");
    expect((await turn.done).status).toBe("interrupted");
    const items = h.runtime.threads.history(thread.id).map((s) => s.item);
    expect(items.filter((i) => i.type === "function_call_output")).toEqual([
      { type: "function_call_output", call_id: "c1", output: "aborted" },
    ]);
  });

  it("untrusted asks before commands that are not known-safe; headless runs are refused without waiting (nobody could approve)", async () => {
    expect(isKnownSafe("ls -la && git status | head -5")).toBe(true);
    expect(isKnownSafe("rm -rf /")).toBe(false);
    expect(isKnownSafe("cat x > y")).toBe(false);
    expect(isKnownSafe("find . -delete")).toBe(false);
    h = await harness({
      script: { steps: [{ output: [call("u1", "ls"), call("u2", "touch made-by-untrusted")] }, done] },
      overrides: ['approval_policy="untrusted"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    expect(outputOf(h, "u1")).toContain("Process exited with code 0");
    expect(outputOf(h, "u2")).toMatch(/No one could approve this/);
    expect(existsSync(join(h.cwd, "made-by-untrusted"))).toBe(false);
  });
});
