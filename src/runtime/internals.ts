/**
 * The runtime's services, private to it: the store, the broker, the bus, cluster ownership,
 * responders, sub-agents, approvals, secrets, the loaded threads, the workspaces (checkpoints). The Runtime (core.ts) registers
 * them here when it is made, and its API facets (threads-api.ts, turns-api.ts, questions-api.ts, checkpoints-api.ts, branches-api.ts)
 * work over them. Nothing outside the runtime imports this module (.dependency-cruiser.cjs,
 * "runtime-private"); the cluster reaches what it needs through cluster-port.ts, tests through
 * internals.testing.ts.
 */
import type { Workspaces } from "../checkpoints/index.js";
import type { Settings } from "../config/schema.js";
import type { Broker } from "../questions/broker.js";
import type { Responders } from "../questions/responders.js";
import type { SecretStore } from "../questions/secrets.js";
import type { Store } from "../store/types.js";
import type { Bus } from "../util/bus.js";
import type { IdSource } from "../util/ids.js";
import type { Agents } from "./agents/index.js";
import type { Approvals } from "./approvals.js";
import type { Ownership } from "./ownership.js";
import type { ThreadRegistry } from "./thread-registry.js";

export interface RuntimeParts {
  readonly settings: Settings;
  /** Ids of new threads, turns and items (a fork makes all three). */
  readonly ids: IdSource;
  readonly store: Store;
  /** The raw bus (every event, also of threads given up here); threads publish through ownership. */
  readonly bus: Bus;
  readonly broker: Broker;
  readonly ownership: Ownership;
  readonly responders: Responders;
  readonly agents: Agents;
  readonly approvals: Approvals;
  readonly secrets: SecretStore;
  readonly registry: ThreadRegistry;
  readonly workspaces: Workspaces;
}

const parts = new WeakMap<object, RuntimeParts>();

/** Called once by the Runtime's constructor. */
export function registerParts(runtime: object, p: RuntimeParts): void {
  parts.set(runtime, p);
}

/** The services of `runtime`; throws for an object that is not a Runtime. */
export function partsOf(runtime: object): RuntimeParts {
  const p = parts.get(runtime);
  if (!p) throw new TypeError("not a Tandem Runtime");
  return p;
}
