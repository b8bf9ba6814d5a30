import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { stopOnSignals } from "./signals.js";

function rig(graceMs = 1_000) {
  const emitter = new EventEmitter();
  const lines: string[] = [];
  const exits: number[] = [];
  const stop = stopOnSignals("demo", {
    detail: "pending questions stay stored",
    graceMs,
    on: emitter as unknown as Pick<NodeJS.Process, "on" | "off">,
    stderr: { write: (t: string) => lines.push(t) },
    exit: (code) => void exits.push(code),
  });
  return { emitter, lines, exits, stop };
}

describe("stopOnSignals", () => {
  afterEach(() => vi.useRealTimers());

  // fails if the first signal exits at once (no shutdown), says nothing or several lines, or the
  // exit code is not 128 + the signal's number.
  it("first signal: one line, abort, exit code 143 / 130; the caller shuts down", () => {
    const { emitter, lines, exits, stop } = rig();
    expect(stop.exitCode).toBeUndefined();
    emitter.emit("SIGTERM", "SIGTERM");
    expect(stop.signal.aborted).toBe(true);
    expect(stop.signal.reason).toBe("SIGTERM");
    expect(stop.exitCode).toBe(143);
    expect(lines).toEqual([
      "tandem demo: SIGTERM received, shutting down; pending questions stay stored (send it again to quit at once)\n",
    ]);
    expect(exits).toEqual([]);
    const int = rig();
    int.emitter.emit("SIGINT", "SIGINT");
    expect(int.stop.exitCode).toBe(130);
  });

  // fails if a second signal waits for the shutdown instead of exiting at once.
  it("a second signal exits at once", () => {
    const { emitter, exits } = rig();
    emitter.emit("SIGINT", "SIGINT");
    emitter.emit("SIGTERM", "SIGTERM");
    expect(exits).toEqual([130]);
  });

  // fails if nothing bounds a shutdown that hangs (a call that ignores its abort signal).
  it("a shutdown still running after the grace period exits anyway", () => {
    vi.useFakeTimers();
    const { emitter, exits, lines } = rig(2_000);
    emitter.emit("SIGTERM", "SIGTERM");
    vi.advanceTimersByTime(1_999);
    expect(exits).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(exits).toEqual([143]);
    expect(lines[1]).toBe("tandem demo: still not stopped 2 s after SIGTERM; quitting now\n");
  });

  it("dispose removes the handlers", () => {
    const { emitter, stop } = rig();
    stop.dispose();
    expect(emitter.listenerCount("SIGINT") + emitter.listenerCount("SIGTERM")).toBe(0);
  });
});
