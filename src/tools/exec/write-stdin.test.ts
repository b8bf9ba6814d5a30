import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../../test/helpers/wait.js";
import { AbortError } from "../../util/abort.js";
import { isAlive } from "../../util/process-tree.js";
import { createExecTools, ExecSessions } from "./index.js";
import { body, makeCtx, scratchDir } from "./test-helpers.js";

const dir = scratchDir();
const all: ExecSessions[] = [];

function setup(maxSessions?: number) {
  const sessions = new ExecSessions({ maxSessions });
  all.push(sessions);
  const tools = createExecTools({ sessions });
  const exec = (args: Record<string, unknown>, ctx = makeCtx({ cwd: dir })) =>
    tools.execCommand.execute({ yield_time_ms: 250, ...args } as never, ctx);
  const write = (args: Record<string, unknown>, ctx = makeCtx({ cwd: dir })) =>
    tools.writeStdin.execute(args as never, ctx);
  return { sessions, tools, exec, write };
}

const sessionId = (text: unknown) => Number(/Process running with session ID (\d+)/.exec(String(text))?.[1]);

afterEach(async () => {
  for (const s of all.splice(0)) await s.closeAll();
});

describe("sessions", () => {
  it("keeps a long-running command as a session that write_stdin polls to its exit", async () => {
    const { sessions, exec, write } = setup();
    const first = await exec({ cmd: "echo start; sleep 0.8; echo later; exit 4" });
    expect(first.output).toMatch(/\nProcess running with session ID 1000\nOutput:\nstart$/);
    expect(first.display).toMatchObject({ session_id: 1000, exit_code: null, status: "completed" });
    expect(sessions.size).toBe(1);

    const polled = await write({ session_id: 1000, yield_time_ms: 5000 });
    expect(polled.success).toBe(true);
    expect(polled.output).toMatch(/\nProcess exited with code 4\nOutput:\nlater$/);
    expect(polled.display).toMatchObject({ session_id: 1000, exit_code: 4 });
    expect(sessions.size).toBe(0);

    const again = await write({ session_id: 1000 });
    expect(again.success).toBe(false);
    expect(again.output).toContain("session 1000 is gone: it exited with code 4");
  });

  it("echoes input written to cat and ends it with Ctrl-D", async () => {
    const { exec, write } = setup();
    const id = sessionId((await exec({ cmd: "cat" })).output);
    const echoed = await write({ session_id: id, chars: "hello\n" });
    expect(echoed.output).toMatch(/Process running with session ID \d+\nOutput:\nhello$/);
    const ended = await write({ session_id: id, chars: "\u0004", yield_time_ms: 3000 });
    expect(ended.output).toMatch(/Process exited with code 0\nOutput:$/);
  });

  it("interrupts a piped command with Ctrl-C", async () => {
    const { exec, write } = setup();
    const id = sessionId((await exec({ cmd: "sleep 100" })).output);
    const r = await write({ session_id: id, chars: "\u0003", yield_time_ms: 3000 });
    expect(r.output).toContain("Process exited with code 130");
  });

  it("talks to a command under a PTY", async () => {
    const { exec, write } = setup();
    const first = await exec({ cmd: 'read line; echo "got $line"', tty: true });
    const id = sessionId(first.output);
    const r = await write({ session_id: id, chars: "abc\n", yield_time_ms: 3000 });
    expect(r.output).toMatch(/Process exited with code 0\nOutput:\n(abc\n)?got abc$/);
  });

  it("explains unknown session ids, listing the live ones", async () => {
    const { exec, write } = setup();
    const id = sessionId((await exec({ cmd: "sleep 100" })).output);
    const r = await write({ session_id: 42, chars: "x" });
    expect(r.success).toBe(false);
    expect(r.output).toBe(`unknown session_id 42; live sessions: ${id}`);
  });

  it("refuses to write to a session that already exited, then still returns its output", async () => {
    const { sessions, exec, write } = setup();
    const id = sessionId((await exec({ cmd: "sleep 0.4; echo bye" })).output);
    // Polled until the process exited (not a fixed 700 ms a busy machine outruns).
    await waitUntil(() => sessions.get(id)!.proc.exitCode !== null, "the session's process to exit");
    const refused = await write({ session_id: id, chars: "x" });
    expect(refused.success).toBe(false);
    expect(refused.output).toContain(`session ${id} already exited with code 0`);
    const polled = await write({ session_id: id });
    expect(polled.output).toMatch(/Process exited with code 0\nOutput:\nbye$/);
  });

  it("serialises parallel polls of one session", async () => {
    const { exec, write } = setup();
    const id = sessionId((await exec({ cmd: "for i in 1 2 3 4 5 6; do echo $i; sleep 0.1; done" })).output);
    const [a, b] = await Promise.all([
      write({ session_id: id, yield_time_ms: 300 }),
      write({ session_id: id }),
    ]);
    const lines = `${body(a.output as string)}\n${body(b.output as string)}`.split("\n").filter(Boolean);
    expect(new Set(lines).size).toBe(lines.length); // no line delivered twice
  });
});

describe("session lifecycle", () => {
  it("closeAll kills every session's tree", async () => {
    const { sessions, exec, write } = setup();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(sessionId((await exec({ cmd: "sleep 100 & sleep 100" })).output));
    const pids = ids.map((id) => sessions.get(id)!.proc.pid);
    expect(pids.every(isAlive)).toBe(true);
    await sessions.closeAll();
    expect(sessions.size).toBe(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    const r = await write({ session_id: ids[0] });
    expect(r.output).toContain("the thread closed its sessions");
  });

  it("evicts the least recently used session when full", async () => {
    const { sessions, exec, write } = setup(2);
    const a = sessionId((await exec({ cmd: "sleep 100" })).output);
    const b = sessionId((await exec({ cmd: "sleep 100" })).output);
    await write({ session_id: a }); // a is now more recently used than b
    const pidB = sessions.get(b)!.proc.pid;
    const c = sessionId((await exec({ cmd: "sleep 100" })).output);
    expect(sessions.ids().sort()).toEqual([a, c].sort());
    const r = await write({ session_id: b });
    expect(r.output).toContain(
      `session ${b} is gone: it was killed to make room for newer sessions (limit 2)`,
    );
    // Polled with a deadline (not a fixed 700 ms). Fails if eviction leaves the process running.
    await waitUntil(() => !isAlive(pidB), "the evicted session's process to die").catch(() => {});
    expect(isAlive(pidB)).toBe(false);
  });

  it("aborting a write_stdin kills the session", async () => {
    const { sessions, exec, write } = setup();
    const id = sessionId((await exec({ cmd: "sleep 100" })).output);
    const pid = sessions.get(id)!.proc.pid;
    const ctx = makeCtx({ cwd: dir });
    const pending = write({ session_id: id, yield_time_ms: 10_000 }, ctx);
    setTimeout(() => ctx.controller.abort(), 50);
    await expect(pending).rejects.toSatisfy(AbortError.isInstance);
    expect(isAlive(pid)).toBe(false);
    expect(sessions.size).toBe(0);
  });

  it("displayStart of write_stdin shows the session's command", async () => {
    const { exec, tools } = setup();
    const id = sessionId((await exec({ cmd: "sleep 100" })).output);
    expect(tools.writeStdin.displayStart!({ session_id: id }, "call_2")).toMatchObject({
      type: "command_execution",
      command: "sleep 100",
      session_id: id,
      status: "in_progress",
    });
  });
});
