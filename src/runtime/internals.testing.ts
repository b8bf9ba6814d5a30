/**
 * For tests only (and benchmarks): the runtime's private services (internals.ts), where a test
 * must look behind the API — the bus's listener count in a leak test, publishing a raw event,
 * asking through the broker without a tool call. Surfaces never import this.
 */
import type { Runtime } from "./core.js";
import { partsOf, type RuntimeParts } from "./internals.js";
import type { Thread } from "./thread.js";

export type { RuntimeParts } from "./internals.js";

export function runtimeInternals(runtime: Runtime): RuntimeParts {
  return partsOf(runtime);
}

/** A loaded thread's internals (its tool registry, recordItem…), where a test plants a tool. */
export function threadInternals(runtime: Runtime, threadId: string): Thread {
  const thread = partsOf(runtime).registry.get(threadId);
  if (!thread) throw new Error(`thread ${threadId} is not loaded`);
  return thread;
}
