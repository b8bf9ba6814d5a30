/**
 * Killing whole process trees (STYLE habit 4: abort kills process trees).
 *
 * A tree is the root pid, every process in the root's process group (the root is expected to
 * be a group leader: spawned `detached` or under a PTY), and every descendant found by walking
 * parent pids — which also catches grandchildren that left the group with `setsid`, as long
 * as their parent was alive when we looked. The tree is collected *before* signalling, because
 * killing a parent reparents its children and loses the link.
 *
 * Linux reads `/proc/<pid>/stat`; other Unixes ask `ps`. When neither works, only the root
 * and its group are signalled. Zombies count as dead (`isAlive` false): in containers whose
 * init never reaps, orphans stay zombies forever but hold no resources.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state (`R`, `S`, `Z`, …); `?` when unknown. */
  state: string;
  /** Start time (clock ticks since boot, Linux only): with the pid, names one process for good. */
  start?: string;
}

/** Parses one `/proc/<pid>/stat` line: `pid (comm) state ppid pgrp …`; comm may hold spaces. */
export function parseProcStat(line: string): ProcInfo | undefined {
  const close = line.lastIndexOf(")");
  if (close < 0) return undefined;
  const pid = Number.parseInt(line, 10);
  const fields = line.slice(close + 2).split(" ");
  const [state, ppid, pgid] = fields;
  if (!Number.isFinite(pid) || !state) return undefined;
  const start = fields[19]; // field 22 of stat(5); fields[0] is field 3
  return { pid, ppid: Number(ppid), pgid: Number(pgid), state, ...(start ? { start } : {}) };
}

function readStat(pid: number): ProcInfo | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Snapshot of all visible processes (synchronous; cheap enough for kill paths). */
export function listProcesses(): ProcInfo[] {
  if (process.platform === "linux") {
    try {
      const out: ProcInfo[] = [];
      for (const name of readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        const info = readStat(Number(name));
        if (info) out.push(info);
      }
      return out;
    } catch {
      // /proc not mounted: fall through to ps.
    }
  }
  try {
    const text = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat="], {
      encoding: "utf8",
      timeout: 2000,
    });
    return text
      .split("\n")
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length >= 4)
      .map(([pid, ppid, pgid, stat]) => ({
        pid: Number(pid),
        ppid: Number(ppid),
        pgid: Number(pgid),
        state: stat[0],
      }));
  } catch {
    return [];
  }
}

/**
 * Pids of the tree rooted at `root` (root first): the root, members of its process group,
 * and all descendants of any of those. Exited processes are simply absent.
 */
export function collectTree(root: number, opts: CollectOptions = {}): number[] {
  const procs = opts.procs ?? listProcesses();
  const children = new Map<number, number[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const group = procs.filter((p) => p.pgid === root).map((p) => p.pid);
  const queue = opts.leaderGone ? group : [root, ...group];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    for (const c of children.get(pid) ?? []) if (!seen.has(c)) queue.push(c);
  }
  return [...seen];
}

export interface CollectOptions {
  /** Process snapshot to use (default: a fresh `listProcesses()`). */
  procs?: ProcInfo[];
  /**
   * The root already exited (and was reaped): start from its group's members only, since the
   * root's pid may now belong to an unrelated process.
   */
  leaderGone?: boolean;
}

/** True when `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (process.platform !== "linux") return true;
  const state = readStat(pid)?.state;
  return state !== undefined && state !== "Z" && state !== "X";
}

function signalAll(root: number, pids: Iterable<number>, signal: NodeJS.Signals): void {
  try {
    process.kill(-root, signal);
  } catch {
    // Not a group leader, or the group is already gone.
  }
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await delay(20);
    alive = alive.filter(isAlive);
  }
  return alive;
}

export interface KillTreeOptions {
  /** Time between SIGTERM and SIGKILL (default 500 ms). 0 sends SIGKILL straight away. */
  graceMs?: number;
  /** See `CollectOptions.leaderGone`: only the root's former group and its descendants. */
  leaderGone?: boolean;
}

/**
 * SIGTERM to the tree, then SIGKILL to whatever is left after `graceMs` (re-collecting the
 * tree first, to catch children forked during the grace period). Resolves once every
 * process is gone, or ~250 ms after SIGKILL at the latest. Never rejects.
 */
export async function killTree(root: number, opts: KillTreeOptions = {}): Promise<void> {
  const graceMs = opts.graceMs ?? 500;
  const collect = () => collectTree(root, { leaderGone: opts.leaderGone });
  const pids = collect();
  if (graceMs > 0) {
    signalAll(root, pids, "SIGTERM");
    await waitGone(pids, graceMs);
  }
  const rest = [...new Set([...pids, ...collect()])].filter(isAlive);
  if (rest.length === 0) return;
  signalAll(root, rest, "SIGKILL");
  await waitGone(rest, 250);
}

/** Synchronous SIGKILL of the whole tree, for `process.on("exit")` safety nets. */
export function killTreeSync(root: number, opts: CollectOptions = {}): void {
  signalAll(root, collectTree(root, opts), "SIGKILL");
}

/** A process left running by a command whose shell exited (e.g. `sleep 300 &`). */
export interface Leftover {
  pid: number;
  /** The exited shell's pid: the group the leftover was in. */
  pgid: number;
  /** `ProcInfo.start` when known; a pid with another start time is another process. */
  start?: string;
}

/**
 * What the tree of `root` left running once `root` exited: members of its former process group
 * and their descendants. Costs one `kill(-root, 0)` when the group is empty (the usual case);
 * only a live group walks the process list. Call right after the exit, while the group exists.
 */
export function leftoversOf(root: number): Leftover[] {
  try {
    process.kill(-root, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return [];
  }
  const procs = listProcesses();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  return collectTree(root, { procs, leaderGone: true })
    .map((pid) => byPid.get(pid))
    .filter((p): p is ProcInfo => p !== undefined && p.state !== "Z" && p.state !== "X")
    .map((p) => ({ pid: p.pid, pgid: root, ...(p.start ? { start: p.start } : {}) }));
}

/**
 * The leftovers still running as the same processes (same start time), with the descendants
 * they have now; plus their group's other members while one of them still holds the group (a
 * pgid in use cannot be reused, so it is still the command's). Never an unrelated process
 * that reused a pid (Linux; elsewhere pids are trusted).
 */
function liveLeftovers(list: readonly Leftover[]): number[] {
  if (list.length === 0) return [];
  const procs = listProcesses();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const same = list.filter((l) => {
    const now = byPid.get(l.pid);
    return now !== undefined && (l.start === undefined || now.start === l.start) && now.state !== "Z";
  });
  const groups = new Set(same.filter((l) => byPid.get(l.pid)?.pgid === l.pgid).map((l) => l.pgid));
  const roots = [...same.map((l) => l.pid), ...procs.filter((p) => groups.has(p.pgid)).map((p) => p.pid)];
  const out = new Set<number>();
  for (const r of roots) for (const pid of collectTree(r, { procs })) out.add(pid);
  return [...out].filter((pid) => byPid.get(pid)?.state !== "Z");
}

/**
 * Kills what `leftoversOf` found and is still the same processes: SIGTERM, then SIGKILL after
 * `graceMs` to what remains. Resolves once they are gone (zombies count as gone) or ~250 ms
 * after SIGKILL. Never rejects.
 */
export async function killLeftovers(list: readonly Leftover[], graceMs = 500): Promise<void> {
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, sig);
      } catch {
        // Already gone.
      }
    }
  };
  const pids = liveLeftovers(list);
  if (pids.length === 0) return;
  if (graceMs > 0) {
    signal(pids, "SIGTERM");
    await waitGone(pids, graceMs);
  }
  const rest = [...new Set([...pids, ...liveLeftovers(list)])].filter(isAlive);
  if (rest.length === 0) return;
  signal(rest, "SIGKILL");
  await waitGone(rest, 250);
}

/** Synchronous SIGKILL of `killLeftovers`' targets, for `process.on("exit")`. */
export function killLeftoversSync(list: readonly Leftover[]): void {
  for (const pid of liveLeftovers(list)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
