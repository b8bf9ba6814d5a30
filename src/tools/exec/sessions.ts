/**
 * Live `exec_command` sessions of one thread (requirements T2).
 *
 * Contract:
 * - A command still running when `exec_command` yields becomes a session with a small
 *   increasing id (1000, 1001, …; never reused within one `ExecSessions`).
 * - At most `maxSessions` sessions exist. Adding one more evicts a session rather than
 *   refusing the new command — by then the new command has already run for its whole yield
 *   and may have side effects, so refusing would only lose its output. The victim is the
 *   least recently used session, preferring ones whose process already exited, then ones no
 *   call is using. Its tree is killed and a later `write_stdin` to it is told why it is gone.
 * - Calls on one session run one at a time (`withLock`), so parallel polls never split output.
 * - `closeAll()` (thread close) kills every session's tree, every process still inside an
 *   `exec_command` call, and what every finished command of this thread left running
 *   (`ExecProcess.leftovers`, e.g. `sleep 300 &`).
 */
import type { ExecProcess } from "./process.js";

export interface ExecSession {
  readonly id: number;
  readonly proc: ExecProcess;
  lastUsed: number;
  /** Calls currently holding or waiting for the lock. */
  users: number;
  tail: Promise<unknown>;
}

/** How many "why is session N gone" notes to remember. */
const ENDED_MEMORY = 64;

export class ExecSessions {
  readonly maxSessions: number;
  private nextId = 1000;
  private sessions = new Map<number, ExecSession>();
  /** Processes inside an `exec_command` call that have not become sessions (yet). */
  private starting = new Set<ExecProcess>();
  private ended = new Map<number, string>();
  /** Exited processes of this thread that left something running. */
  private leftBehind = new Set<ExecProcess>();

  constructor(opts: { maxSessions?: number } = {}) {
    this.maxSessions = Math.max(1, opts.maxSessions ?? 16);
  }

  /** Number of live sessions. */
  get size(): number {
    return this.sessions.size;
  }

  ids(): number[] {
    return [...this.sessions.keys()];
  }

  get(id: number): ExecSession | undefined {
    return this.sessions.get(id);
  }

  /**
   * Whether a process of this thread may still run: a live session, one inside its first
   * yield, or what a finished command left behind (kept until the thread closes, so true
   * from then on).
   */
  mayBeRunning(): boolean {
    if (this.starting.size > 0 || this.leftBehind.size > 0) return true;
    for (const s of this.sessions.values()) if (s.proc.exitCode === null) return true;
    return false;
  }

  /** @internal Tracks a process during its first yield so `closeAll()` reaches it. */
  track(proc: ExecProcess): void {
    this.starting.add(proc);
    void proc.exited.then(() => {
      if (proc.leftovers.length > 0) this.leftBehind.add(proc);
    });
  }

  /** @internal */
  untrack(proc: ExecProcess): void {
    this.starting.delete(proc);
  }

  /** Registers a running process as a session, evicting one first when full. */
  add(proc: ExecProcess): { id: number; evicted?: number } {
    this.starting.delete(proc);
    let evicted: number | undefined;
    if (this.sessions.size >= this.maxSessions) {
      const victim = this.pickVictim();
      evicted = victim.id;
      this.remove(victim.id, `it was killed to make room for newer sessions (limit ${this.maxSessions})`);
      void victim.proc.kill();
    }
    const id = this.nextId++;
    this.sessions.set(id, { id, proc, lastUsed: Date.now(), users: 0, tail: Promise.resolve() });
    return evicted === undefined ? { id } : { id, evicted };
  }

  /** Forgets a session (does not kill it); `reason` completes "session N is gone: …". */
  remove(id: number, reason: string): void {
    if (!this.sessions.delete(id)) return;
    this.ended.set(id, reason);
    if (this.ended.size > ENDED_MEMORY) this.ended.delete(this.ended.keys().next().value!);
  }

  /** Runs `fn` after every earlier call on this session settled. */
  withLock<T>(session: ExecSession, fn: () => Promise<T>): Promise<T> {
    session.users++;
    const run = session.tail.then(fn);
    session.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run.finally(() => {
      session.users--;
      session.lastUsed = Date.now();
    });
  }

  /** Model-facing explanation for an id that is not a live session. */
  describeMissing(id: number): string {
    const live = this.ids();
    const known = live.length > 0 ? `live sessions: ${live.join(", ")}` : "there are no live sessions";
    const why = this.ended.get(id);
    if (why) return `session ${id} is gone: ${why}; ${known}`;
    return `unknown session_id ${id}; ${known}`;
  }

  /**
   * Kills every session's and every starting command's process tree (SIGTERM, SIGKILL after
   * `graceMs`; 0: SIGKILL at once). Never rejects.
   */
  async closeAll(graceMs?: number): Promise<void> {
    const procs = new Set([...this.starting, ...[...this.sessions.values()].map((s) => s.proc)]);
    for (const p of this.leftBehind) procs.add(p);
    for (const id of this.ids()) this.remove(id, "the thread closed its sessions");
    this.starting.clear();
    this.leftBehind.clear();
    await Promise.all([...procs].map((p) => p.kill(graceMs)));
  }

  private pickVictim(): ExecSession {
    const all = [...this.sessions.values()].sort((a, b) => a.lastUsed - b.lastUsed);
    return all.find((s) => s.proc.exitCode !== null) ?? all.find((s) => s.users === 0) ?? all[0];
  }
}
