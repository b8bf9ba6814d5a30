/**
 * What a cluster node (../cluster/node.ts, routes.ts) needs of the runtime it runs in beyond the
 * public API, and only that: the store (a cluster's is PostgreSQL: leases, the event log), publishing
 * another node's events into this node's bus, and the hooks that move threads between nodes
 * (ownership.ts). Only src/cluster imports this; surfaces never do (the layout test's rules).
 */
import type { Event } from "../protocol/events.js";
import type { Store } from "../store/types.js";
import type { Runtime } from "./core.js";
import { partsOf } from "./internals.js";
import type { Ownership } from "./ownership.js";

export interface ClusterPort {
  readonly store: Store;
  /** Publishes an event another node published into this node's bus (its listeners see it). */
  publish(event: Event): void;
  /** Where threads run (ownership.ts): the node sets the hooks and moves threads away. */
  readonly ownership: Pick<Ownership, "claimHook" | "remoteOp" | "onFenced" | "handOver" | "relinquish">;
}

export function clusterPort(runtime: Runtime): ClusterPort {
  const { store, bus, ownership } = partsOf(runtime);
  return { store, publish: (event) => void bus.publish(event), ownership };
}
