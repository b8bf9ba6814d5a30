/**
 * Pieces of the signal tests (test/cli/signals.test.ts): a model step that leaves a turn with a
 * pending question and a running command that ignores SIGTERM, and the checks that a surface
 * stopped as README "Stopping Tandem" says — exit code, one stderr line, no process left, the
 * question still stored for the next process.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { openStore } from "../../src/store/index.js";
import { waitUntil } from "./wait.js";

let n = 0;
/** A unique `sleep` argument: the command's processes are found by it in /proc. */
export function marker(): string {
  return `299.${process.pid}${++n}`;
}

/** The first model step: a command that ignores SIGTERM, and a question, in parallel. */
export function pendingStep(mark: string) {
  return {
    output: [
      {
        type: "function_call" as const,
        name: "exec_command",
        call_id: "run-sig",
        arguments: { cmd: `trap '' TERM; sleep ${mark}`, yield_time_ms: 600_000 },
      },
      {
        type: "function_call" as const,
        name: "request_user_input",
        call_id: "ask-sig",
        arguments: {
          questions: [
            {
              id: "pick",
              header: "Pick",
              question: "Which one should stay pending?",
              options: [
                { label: "Alpha", description: "the first" },
                { label: "Beta", description: "the second" },
              ],
            },
          ],
        },
      },
    ],
  };
}

/** Pids whose command line contains `text` (not this process). */
export function procsMatching(text: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").includes(text))
        out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Resolves once the command is running. */
export function commandRunning(mark: string): Promise<void> {
  return waitUntil(() => procsMatching(`sleep ${mark}`).length > 0, `the command (sleep ${mark}) to run`, {
    timeoutMs: 20_000,
  });
}

/** The exit code, or a failure naming what was awaited after `ms`. */
export function exitWithin(
  exited: Promise<number | null>,
  ms: number,
  what: () => string,
): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no exit ${ms / 1000} s after the signal; ${what()}`)), ms);
  });
  return Promise.race([exited, late]).finally(() => clearTimeout(timer));
}

/**
 * The surface stopped as promised: `code`, exactly one stderr line naming the signal (`output`
 * may hold other text too), the command's tree gone, the question still pending in the store.
 */
export async function expectStopped(opts: {
  surface: string;
  signal: "SIGTERM" | "SIGINT";
  code: number | null;
  output: string;
  mark: string;
  home: string;
}): Promise<void> {
  expect(opts.code, opts.output).toBe(opts.signal === "SIGTERM" ? 143 : 130);
  const line = `tandem ${opts.surface}: ${opts.signal} received, shutting down; running commands are killed, pending questions stay stored for the next run`;
  expect(opts.output.split(line).length - 1, opts.output).toBe(1);
  await waitUntil(
    () => procsMatching(`sleep ${opts.mark}`).length === 0,
    "the command's process tree to be gone",
  );
  const store = openStore(join(opts.home, "state.db"));
  try {
    expect(store.pendingQuestions().map((q) => q.call_id)).toEqual(["ask-sig"]);
  } finally {
    store.close();
  }
}
