/**
 * A process joining a cluster (docs/scale-out.md) without listening for HTTP itself: `tandem app-server
 * --bus`. It gets the node's failover scan and event log, and an HTTP app that is never listened
 * on and serves the requests other nodes forward here (threads running here). Part of the
 * composition root (main/, with cli.ts): it wires the HTTP surface's app into another surface's
 * process, so neither the cluster (src/cluster) nor a surface imports the other's side of it.
 */
import { randomBytes } from "node:crypto";
import { ClusterNode } from "../cluster/node.js";
import { mountCluster } from "../cluster/routes.js";
import type { Runtime } from "../runtime/core.js";
import { createHttpApp } from "../surfaces/http/app.js";
import type { JoinCluster } from "../surfaces/shared/startup.js";

export async function joinCluster(runtime: Runtime, opts: Parameters<JoinCluster>[1]): Promise<ClusterNode> {
  const cluster = await ClusterNode.start(runtime, {
    bus: opts.bus,
    clusterToken: opts.clusterToken,
    node: opts.node,
    log: opts.log,
  });
  const token = randomBytes(24).toString("hex");
  const app = createHttpApp(runtime, {
    token,
    version: opts.version,
    eventLog: cluster.events,
    extend: (a) => mountCluster(a, runtime, cluster),
  });
  cluster.attach(app, token);
  return cluster;
}
