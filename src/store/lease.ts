/**
 * Thread leases (README "Sandbox and approvals"): one process drives a thread at a time. A process takes the
 * lease when it opens or starts a thread for driving and gives it back when it closes the
 * thread or shuts down; reads (list, export, thread/read) take none.
 *
 * Contract: a lease is stale, and may be taken over, when its holder is a process on this host
 * that no longer exists (kill -9 never releases), is a zombie, or is a newer process that got
 * the dead holder's pid. A holder on another host is never judged stale: its pid says nothing
 * here (share a store across hosts only if you stop the holder yourself).
 */

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export interface Lease {
  pid: number;
  host: string;
  /** When the holder took the lease (ms since epoch). */
  since: number;
  /** Random per-process token: only the holder releases or renews its own lease. */
  token: string;
  /** PostgreSQL store only: the holder's `--node-id` (where to forward its threads' requests). */
  node?: string | null;
  /** PostgreSQL store only: the fencing number, bumped each time another holder takes it. */
  generation?: number;
  /** PostgreSQL store only: when the lease lapses unless renewed (database clock, ms). */
  expires?: number;
  /** PostgreSQL store only: the lease has lapsed (its holder stopped renewing: dead or cut off). */
  expired?: boolean;
}

export type LeaseResult = { ok: true } | { ok: false; holder: Lease };

/** This process's lease owner (`since` is set when the lease is taken). */
export function leaseOwner(): Omit<Lease, "since"> {
  return { pid: process.pid, host: hostname(), token: randomBytes(12).toString("hex") };
}

/** The refusal a second driver prints: who holds the thread, since when, what to do. */
export function leaseMessage(threadId: string, holder: Lease): string {
  return (
    `thread ${threadId} is in use by pid ${holder.pid} on host ${holder.host} since ` +
    `${new Date(holder.since).toISOString()}; wait for it to finish or stop it`
  );
}

/** True when `holder` is known to be gone (see the contract above). */
export function leaseIsStale(holder: Lease): boolean {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
  const started = processStart(holder.pid);
  if (started === "zombie") return true;
  // A process started after the lease was taken cannot be its holder: the pid was reused.
  // (Start times are known to ~1 s: btime has a 1 s grain.)
  return started !== undefined && started > holder.since + 2000;
}

/** Linux: when `pid` started (ms since epoch), "zombie", or undefined when unknown. */
function processStart(pid: number): number | "zombie" | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may contain anything.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return "zombie";
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    if (!btime || !Number.isFinite(ticks)) return undefined;
    return Number(btime[1]) * 1000 + ticks * 10; // USER_HZ is 100 on every Linux ABI
  } catch {
    return undefined;
  }
}
