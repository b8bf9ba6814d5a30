/**
 * Test-only helpers for the exec tool tests: a plain ToolContext with recorded updates.
 * Not imported by production code.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PauseClock } from "../../util/pause-clock.js";
import { isAlive } from "../../util/process-tree.js";
import type { ToolContext, ToolUpdate } from "../types.js";

export interface TestContext extends ToolContext {
  updates: ToolUpdate[];
  controller: AbortController;
}

export const scratchDir = (): string => mkdtempSync(join(tmpdir(), "tandem-exec-"));

export function makeCtx(over: Partial<ToolContext> = {}): TestContext {
  const controller = new AbortController();
  const updates: ToolUpdate[] = [];
  return {
    signal: controller.signal,
    callId: "call_1",
    threadId: "thread_1",
    turnId: "turn_1",
    cwd: process.cwd(),
    mode: "default",
    isSubAgent: false,
    ask: async () => {
      throw new Error("exec tools never ask");
    },
    onUpdate: (u) => updates.push(u),
    secrets: { env: () => ({}), mask: (t) => t },
    pause: new PauseClock(),
    questions: {
      enabled: false,
      subAgentPolicy: "deny",
      defaultModeAllowed: false,
      hasResponder: () => false,
      policy: { type: "wait" },
    },
    safety: {
      sandbox: { mode: "danger-full-access", writableRoots: [], network: true, protectedPaths: [] },
      approvalPolicy: "never",
      requestApproval: async () => "decline",
    },
    ...over,
    updates,
    controller,
  };
}

/** Output body after the `Output:` line ("" when none). */
export function body(text: string): string {
  const i = text.indexOf("Output:");
  return i < 0 ? "" : text.slice(i + "Output:".length).replace(/^\n/, "");
}

/** Pids (not zombies) whose argv is exactly `sleep <tag>`. */
export function sleepers(tag: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8") === `sleep\0${tag}\0` && isAlive(Number(name)))
        out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}
