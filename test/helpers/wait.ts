/**
 * Condition waits for tests: poll until something holds, with a deadline. Never a fixed sleep
 * raced against a timer (a busy machine outruns it).
 */

/** Resolves once `cond()` is true; rejects naming `what` after `timeoutMs` (default 10 s). */
export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  what: string,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const end = Date.now() + (opts.timeoutMs ?? 10_000);
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10));
  }
}
