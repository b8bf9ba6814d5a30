/**
 * CPU time of processes on this machine from /proc (Linux), for figures that split a workload's
 * cost between its processes: `snapshot()` before and after, then `spentMs` per group. Clock
 * ticks are 10 ms, so a phase should run for a second or more.
 */
import { readdirSync, readFileSync } from "node:fs";

export type CpuSnapshot = Map<number, { comm: string; ticks: number }>;

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** Every process's name and user + system ticks so far. */
export function snapshot(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(entry), { comm, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {} // gone meanwhile
  }
  return out;
}

/** CPU ms spent between two snapshots by the processes `pick` selects (by pid and name). */
export function spentMs(
  before: CpuSnapshot,
  after: CpuSnapshot,
  pick: (pid: number, comm: string) => boolean,
): number {
  let ticks = 0;
  for (const [pid, a] of after) {
    if (!pick(pid, a.comm)) continue;
    const b = before.get(pid);
    ticks += a.ticks - (b && b.comm === a.comm ? b.ticks : 0);
  }
  return ticks * TICK_MS;
}
