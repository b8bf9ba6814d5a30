import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AbortError, AbortNow } from "../../util/abort.js";
import { sequentialIds } from "../../util/ids.js";
import { isAlive } from "../../util/process-tree.js";
import { createExecTools, ExecSessions } from "./index.js";
import { body, makeCtx, scratchDir } from "./test-helpers.js";

const sessions = new ExecSessions();
const dir = scratchDir();
const { execCommand } = createExecTools({
  sessions,
  chunkId: sequentialIds().chunk,
  env: { TANDEM_TEST: "on" },
});
const run = (args: Record<string, unknown>, ctx = makeCtx({ cwd: dir })) =>
  execCommand.execute({ yield_time_ms: 5000, ...args } as never, ctx);

afterAll(() => sessions.closeAll());

describe("exec_command output format", () => {
  it("matches the golden header and strips trailing newlines", async () => {
    const r = await run({ cmd: "printf 'README absent\\n'" });
    expect(r.success).toBe(true);
    expect(r.output).toMatch(
      /^Chunk ID: chunk_\d{3}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOutput:\nREADME absent$/,
    );
    expect(r.display).toMatchObject({
      aggregated_output: "README absent",
      exit_code: 0,
      status: "completed",
    });
  });

  it("ends with a bare `Output:` when there is no output", async () => {
    const r = await run({ cmd: "true" });
    expect(r.output).toMatch(/\nProcess exited with code 0\nOutput:$/);
  });

  it("merges stderr with stdout in arrival order", async () => {
    const r = await run({ cmd: "echo out; sleep 0.05; echo err >&2; sleep 0.05; echo out2" });
    expect(body(r.output as string)).toBe("out\nerr\nout2");
  });

  it("reports a non-zero exit as a successful tool call", async () => {
    const r = await run({ cmd: "echo nope; exit 3" });
    expect(r.success).toBe(true);
    expect(r.output).toContain("Process exited with code 3\nOutput:\nnope");
    expect(r.display).toMatchObject({ exit_code: 3, status: "failed" });
  });

  // No timing threshold: a call that waited for the pipes to close would reach its yield time
  // with the job still holding them and report a running session, not the exit code. Fails if
  // exec waits for pipe EOF instead of the shell's exit.
  it("returns on the shell's exit when a background job keeps the output pipes open", async () => {
    const r = await run({ cmd: "sleep 30 & echo $!" });
    expect(r.output).toContain("Process exited with code 0");
    process.kill(Number(body(r.output as string)), "SIGKILL");
  });

  it("reports death by signal as 128+n", async () => {
    const r = await run({ cmd: "kill -TERM $$" });
    expect(r.output).toContain("Process exited with code 143");
  });

  it("streams masked chunks through onUpdate", async () => {
    const ctx = makeCtx({ cwd: dir });
    await run({ cmd: "echo one; echo two >&2" }, ctx);
    // Fails if either stream is dropped or lines are attributed to the wrong stream.
    const of = (stream: string) =>
      ctx.updates
        .filter((u) => u.stream === stream)
        .map((u) => u.chunk)
        .join("");
    expect(of("stdout")).toBe("one\n");
    expect(of("stderr")).toBe("two\n");
  });
});

describe("exec_command environment", () => {
  it("runs in workdir resolved against the turn cwd", async () => {
    mkdirSync(join(dir, "sub"), { recursive: true });
    const r = await run({ cmd: "pwd", workdir: "sub" });
    expect(body(r.output as string)).toBe(join(dir, "sub"));
  });

  it("sets quiet variables and the configured env", async () => {
    const r = await run({ cmd: 'echo "$NO_COLOR $TERM $PAGER $GIT_PAGER $TANDEM_TEST"' });
    expect(body(r.output as string)).toBe("1 dumb cat cat on");
  });

  it("records approval fields in display without enforcing them", async () => {
    const r = await run({
      cmd: "echo ok",
      sandbox_permissions: "require_escalated",
      justification: "Allow network?",
      prefix_rule: ["npm", "install"],
    });
    expect(r.display).toMatchObject({
      sandbox_permissions: "require_escalated",
      justification: "Allow network?",
      prefix_rule: ["npm", "install"],
    });
  });

  it("displayStart shows an in-progress command item", () => {
    expect(execCommand.displayStart!({ cmd: "ls" }, "call_9")).toEqual({
      id: "call_9",
      type: "command_execution",
      command: "ls",
      aggregated_output: "",
      exit_code: null,
      status: "in_progress",
    });
  });
});

describe("exec_command errors are outputs", () => {
  it("refuses a workdir that does not exist", async () => {
    const r = await run({ cmd: "true", workdir: "nowhere" });
    expect(r.success).toBe(false);
    expect(r.output).toContain(`workdir ${join(dir, "nowhere")} does not exist`);
  });

  it("refuses a shell that does not exist", async () => {
    const r = await run({ cmd: "true", shell: "/no/such/shell" });
    expect(r.success).toBe(false);
    expect(r.output).toContain("shell /no/such/shell was not found");
  });

  it("accepts a shell named on PATH", async () => {
    const r = await run({ cmd: "echo $0", shell: "sh" });
    expect(body(r.output as string)).toMatch(/\/sh$/);
  });
});

describe("exec_command with tty", () => {
  it("runs under a PTY when tty is true", async () => {
    const r = await run({ cmd: "tty; test -t 1 && echo is-a-tty", tty: true });
    expect(body(r.output as string)).toMatch(/^\/dev\/pts\/\d+\nis-a-tty$/);
  });

  it("uses pipes otherwise", async () => {
    const r = await run({ cmd: "test -t 1 || echo not-a-tty" });
    expect(body(r.output as string)).toBe("not-a-tty");
  });
});

describe("exec_command truncation", () => {
  it("cuts the middle of big output and reports the original size", async () => {
    const r = await run({ cmd: "seq 1 100000", max_output_tokens: 100 });
    const text = r.output as string;
    // seq 1 100000 prints 588895 bytes (without the final newline: 588894) → 147224 tokens.
    expect(text).toMatch(/\nProcess exited with code 0\nOriginal token count: 147224\nOutput:\n1\n2\n3\n/);
    expect(text).toMatch(/…\d+ tokens truncated…[\s\S]*\n99999\n100000$/);
    expect(Buffer.byteLength(body(text))).toBeLessThan(400 + 40);
  });

  it("keeps multi-byte characters whole", async () => {
    const r = await run({ cmd: "for i in $(seq 1 500); do printf 'é€😀'; done", max_output_tokens: 7 });
    expect(r.output).not.toContain("\uFFFD");
    expect(r.output).toMatch(/Original token count: 1125\n/);
  });

  it("bounds what a chatty command keeps in memory and counts what it dropped", async () => {
    const r = await run({ cmd: "head -c 3000000 /dev/zero | tr '\\0' a", max_output_tokens: 50 });
    expect(r.output).toMatch(/Original token count: 750000\nOutput:\na{100}…749950 tokens truncated…a{100}$/);
  });

  it("omits the header line when nothing was cut", async () => {
    const r = await run({ cmd: "echo short" });
    expect(r.output).not.toContain("Original token count");
  });
});

describe("exec_command secrets", () => {
  it("passes secrets in the env and masks them in output, updates and display", async () => {
    const ctx = makeCtx({
      cwd: dir,
      secrets: {
        env: () => ({ TANDEM_SECRET_pw: "hunter2" }),
        mask: (t) => t.replaceAll("hunter2", "[secret]"),
      },
    });
    const r = await run({ cmd: 'echo "pw=$TANDEM_SECRET_pw"; echo hunter2 >&2' }, ctx);
    expect(body(r.output as string)).toBe("pw=[secret]\n[secret]");
    expect(JSON.stringify(ctx.updates)).not.toContain("hunter2");
    expect(JSON.stringify(r.display)).not.toContain("hunter2");
  });

  it("masks a secret split across two reads in the live stream", async () => {
    const ctx = makeCtx({
      cwd: dir,
      secrets: { env: () => ({}), mask: (t) => t.replaceAll("hunter2", "[secret]") },
    });
    const r = await run({ cmd: "printf 'pw: hun'; sleep 0.2; printf 'ter2\\nnext'" }, ctx);
    expect(body(r.output as string)).toBe("pw: [secret]\nnext");
    expect(ctx.updates.map((u) => u.chunk)).toEqual(["pw: [secret]\n", "next"]);
  });
});

describe("exec_command abort and pause", () => {
  it("kills the whole process tree on abort, grandchildren included", async () => {
    const ctx = makeCtx({ cwd: dir });
    const pending = run(
      { cmd: "echo $$; sh -c 'sleep 100 & echo $!; sleep 100' & sleep 100 & echo $!; wait" },
      ctx,
    );
    const pids = await new Promise<number[]>((resolve) => {
      const timer = setInterval(() => {
        const seen = ctx.updates
          .map((u) => u.chunk)
          .join("")
          .split("\n")
          .filter(Boolean)
          .map(Number);
        if (seen.length >= 3) {
          clearInterval(timer);
          resolve(seen);
        }
      }, 10);
    });
    expect(pids.every(isAlive)).toBe(true);
    ctx.controller.abort();
    await expect(pending).rejects.toSatisfy(AbortError.isInstance);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(sessions.size).toBe(0);
  });

  // An AbortNow reason (the thread moved to another node, which may start the same work): no
  // SIGTERM grace, straight SIGKILL. The command's TERM trap would leave a mark if it got one.
  // fails if a moved thread's command is asked politely first (it may outlive its lease).
  it("an AbortNow abort SIGKILLs the tree without a SIGTERM first", async () => {
    const ctx = makeCtx({ cwd: dir });
    const mark = join(dir, "got-term");
    const pending = run(
      { cmd: `trap 'echo term > ${mark}' TERM; echo $$; while :; do sleep 0.02; done` },
      ctx,
    );
    const pid = await new Promise<number>((resolve) => {
      const timer = setInterval(() => {
        const first = Number(
          ctx.updates
            .map((u) => u.chunk)
            .join("")
            .split("\n")[0],
        );
        if (first > 0) {
          clearInterval(timer);
          resolve(first);
        }
      }, 10);
    });
    ctx.controller.abort(new AbortNow("the thread moved to another node"));
    await expect(pending).rejects.toSatisfy(AbortError.isInstance);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(mark)).toBe(false);
  });

  // The command tries to outlive the kill: a child in a session of its own (out of the
  // command's process group) that ignores SIGTERM. AbortNow must reach it too.
  // fails if only the command's process group is killed (the escaped child lives on).
  it("an AbortNow abort also kills a child that left the process group", async () => {
    const ctx = makeCtx({ cwd: dir });
    const pidFile = join(dir, "escaped-pid");
    const pending = run(
      {
        cmd: `setsid sh -c 'trap "" TERM; echo $$ > ${pidFile}; while :; do sleep 0.02; done' & echo started; wait`,
      },
      ctx,
    );
    const pid = await new Promise<number>((resolve) => {
      const timer = setInterval(() => {
        const text = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : "";
        if (/^\d+$/.test(text)) {
          clearInterval(timer);
          resolve(Number(text));
        }
      }, 10);
    });
    expect(isAlive(pid)).toBe(true);
    ctx.controller.abort(new AbortNow("the thread moved to another node"));
    await expect(pending).rejects.toSatisfy(AbortError.isInstance);
    expect(isAlive(pid)).toBe(false);
  });

  it("throws without spawning when already aborted", async () => {
    const ctx = makeCtx({ cwd: dir });
    ctx.controller.abort();
    await expect(run({ cmd: "touch spawned" }, ctx)).rejects.toSatisfy(AbortError.isInstance);
  });

  it("does not count paused time against the yield", async () => {
    const ctx = makeCtx({ cwd: dir });
    ctx.pause.pause();
    setTimeout(() => ctx.pause.resume(), 600);
    const r = await run({ cmd: "sleep 30", yield_time_ms: 250 }, ctx);
    const wall = Number(/Wall time: ([\d.]+) seconds/.exec(r.output as string)![1]);
    expect(wall).toBeGreaterThanOrEqual(0.8);
    expect(r.output).toMatch(/Process running with session ID \d+/);
    await sessions.closeAll();
  });

  it("waits for exit while paused, however long the yield", async () => {
    const ctx = makeCtx({ cwd: dir });
    ctx.pause.pause();
    const r = await run({ cmd: "sleep 0.5; echo done", yield_time_ms: 250 }, ctx);
    ctx.pause.resume();
    expect(r.output).toMatch(/Process exited with code 0\nOutput:\ndone$/);
  });
});
