/**
 * For tests only (and benchmarks): the runtime's private services (internals.ts), where a test
 * must look behind the API — the bus's listener count in a leak test, publishing a raw event,
 * asking through the broker without a tool call. Surfaces never import this.
 */
import type { Runtime } from "./core.js";
import { partsOf, type RuntimeParts } from "./internals.js";

export type { RuntimeParts } from "./internals.js";

export function runtimeInternals(runtime: Runtime): RuntimeParts {
  return partsOf(runtime);
}
