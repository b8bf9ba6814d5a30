/**
 * Deterministic key presses for Ink component tests (ink-testing-library), instead of a fixed
 * tick after each key that a busy machine outruns.
 *
 * Ink renders on a legacy React root: a key's render commits synchronously, but the effects that
 * re-attach `useInput` handlers run later from React's scheduler, which yields every few
 * milliseconds. A key typed before they ran reaches a stale handler. React's `act()` runs all of
 * that work before it resolves, whatever the machine's load. A lone Esc is held by Ink's input
 * parser until a `setImmediate` (to tell it from an escape sequence): one `setImmediate` inside
 * the act scope flushes it.
 *
 * `IS_REACT_ACT_ENVIRONMENT` is set only while an act scope runs, so updates that arrive on their
 * own (a real Runtime's events, a view store's frame timer) do not warn "not wrapped in act".
 */
import { act } from "react";

interface ActGlobal {
  IS_REACT_ACT_ENVIRONMENT?: boolean;
}

/** Runs `fn` in act(): every render and effect it causes is done when this resolves. */
export async function inAct(fn: () => unknown = () => {}): Promise<void> {
  const g = globalThis as ActGlobal;
  const prev = g.IS_REACT_ACT_ENVIRONMENT;
  g.IS_REACT_ACT_ENVIRONMENT = true;
  try {
    await act(async () => {
      await fn();
      await new Promise<void>((r) => setImmediate(r));
    });
  } finally {
    g.IS_REACT_ACT_ENVIRONMENT = prev;
  }
}

/** Types each key as its own chunk; each is fully processed before the next is written. */
export async function pressKeys(stdin: { write(data: string): void }, ...keys: string[]): Promise<void> {
  for (const k of keys) await inAct(() => stdin.write(k));
}
