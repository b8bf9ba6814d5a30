/**
 * Pause accounting (requirements Q9). A thread's clock is paused while any question or approval of
 * that thread is pending; tool and turn timers measure *active* time, excluding pauses.
 *
 * Contract: `pause()`/`resume()` nest (a counter); `activeSince(t0)` is wall time since t0 minus
 * paused time since t0. `waitActive(ms, signal)` resolves once `ms` of active time has passed.
 */
export class PauseClock {
  private depth = 0;
  private pausedAt = 0;
  /** Closed pause intervals [start, end], pruned lazily; enough for elapsed arithmetic. */
  private intervals: Array<[number, number]> = [];
  private waiters = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  get paused(): boolean {
    return this.depth > 0;
  }

  pause(): void {
    if (this.depth++ === 0) this.pausedAt = this.now();
  }

  resume(): void {
    if (this.depth === 0) return;
    if (--this.depth === 0) {
      this.intervals.push([this.pausedAt, this.now()]);
      if (this.intervals.length > 1000) this.intervals.splice(0, 500);
      for (const w of [...this.waiters]) w();
    }
  }

  /** Milliseconds paused since `t0` (including an ongoing pause). */
  pausedSince(t0: number): number {
    let total = 0;
    for (const [a, b] of this.intervals) if (b > t0) total += b - Math.max(a, t0);
    if (this.depth > 0) total += this.now() - Math.max(this.pausedAt, t0);
    return total;
  }

  activeSince(t0: number): number {
    return this.now() - t0 - this.pausedSince(t0);
  }

  /**
   * Resolves when `ms` of active time have elapsed since `t0` (default now), or when `until`
   * resolves first (returns true then). Rejects never; returns false on timeout, true on early wake.
   */
  async waitActive(ms: number, opts: { t0?: number; signal?: AbortSignal; wake?: Promise<unknown> } = {}) {
    const t0 = opts.t0 ?? this.now();
    let woke = false;
    opts.wake?.then(
      () => {
        woke = true;
      },
      () => {
        woke = true;
      },
    );
    while (!woke && !opts.signal?.aborted) {
      const remaining = ms - this.activeSince(t0);
      if (remaining <= 0 && !this.paused) return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          opts.signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, this.paused ? 60_000 : Math.max(1, remaining));
        this.waiters.add(done);
        opts.signal?.addEventListener("abort", done, { once: true });
        opts.wake?.then(done, done);
      });
    }
    return true;
  }
}
