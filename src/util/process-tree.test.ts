import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../test/helpers/wait.js";
import { collectTree, isAlive, killTree, killTreeSync, parseProcStat } from "./process-tree.js";

const started: ChildProcess[] = [];

/** Starts `sh -c script` as a group leader and resolves with the pids it prints, one per line. */
async function startTree(script: string, expectPids: number): Promise<{ root: number; pids: number[] }> {
  const child = spawn("/bin/sh", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  started.push(child);
  let text = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pids not printed: ${text}`)), 5000);
    child.stdout!.on("data", (b: Buffer) => {
      text += b.toString();
      if (text.split("\n").filter(Boolean).length >= expectPids) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { root: child.pid!, pids: text.split("\n").filter(Boolean).map(Number) };
}

afterEach(() => {
  for (const c of started.splice(0)) if (c.pid) killTreeSync(c.pid);
});

describe("parseProcStat", () => {
  it("handles spaces and parentheses in the command name", () => {
    expect(parseProcStat("42 (my (odd) name) S 7 42 42 0 -1")).toEqual({
      pid: 42,
      ppid: 7,
      pgid: 42,
      state: "S",
    });
    expect(parseProcStat("garbage")).toBeUndefined();
  });
});

describe("isAlive", () => {
  it("is true for this process and false for a pid that does not exist", () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(isAlive(2 ** 22 + 17)).toBe(false);
  });
});

describe("killTree", () => {
  it("kills children, grandchildren and a setsid grandchild", async () => {
    const { root, pids } = await startTree(
      "sleep 100 & echo $!; setsid sleep 101 & echo $!; sh -c 'sleep 102 & echo $!; wait' & wait",
      3,
    );
    const tree = collectTree(root);
    for (const pid of pids) expect(tree).toContain(pid);
    expect(pids.every(isAlive)).toBe(true);
    await killTree(root, { graceMs: 300 });
    for (const pid of [root, ...pids]) expect(isAlive(pid)).toBe(false);
  });

  it("escalates to SIGKILL when SIGTERM is ignored", async () => {
    const { root, pids } = await startTree("trap '' TERM; sleep 100 & echo $!; wait", 1);
    const t0 = Date.now();
    await killTree(root, { graceMs: 200 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    for (const pid of [root, ...pids]) expect(isAlive(pid)).toBe(false);
  });

  it("with leaderGone, kills the group left behind but not the old root pid", async () => {
    const { root, pids } = await startTree("sleep 100 & echo $!", 1);
    // The shell exits (and is reaped), its background job stays: polled, not a fixed 100 ms.
    const shell = started.at(-1)!;
    await waitUntil(() => shell.exitCode !== null || shell.signalCode !== null, "the shell to exit");
    expect(collectTree(root, { leaderGone: true })).toEqual(pids);
    await killTree(root, { leaderGone: true, graceMs: 200 });
    expect(isAlive(pids[0])).toBe(false);
  });
});
