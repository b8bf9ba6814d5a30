/**
 * What a cluster node adds to the `tandem serve` app (docs/scale-out.md):
 * - `GET /healthz` (200 while the process serves), `GET /readyz` (200 when the store answers,
 *   NATS is connected and the node is not draining; else 503 with the reasons), `GET /metrics`
 *   (Prometheus text, ./node.ts). These three need no token and hold no thread data.
 * - Forwarding: a request that acts on a thread owned by another live node (turn, steer,
 *   interrupt, compact of `/thread/:id`, and reply, reject, touch of `/question/:id`) is sent
 *   to the owner and answered with the owner's response. A request already forwarded is served
 *   here (no loops), unless this node has lost the thread's lease since: then 409 `lease_lost`.
 *   Everything else is served here.
 * - `POST /thread/:id/handover` (token required; what a claiming node sends, node.ts, with
 *   `{to: <its node id>}`): when this node runs the thread, it stops it without writing and
 *   passes its lease to that node (released when `to` is absent) (200
 *   `{handed_over, node}`); otherwise 409 `not_owner`.
 */
import type { Context, Hono, Next } from "hono";
import * as z from "zod";
import { type ClusterPort, clusterPort } from "../runtime/cluster-port.js";
import type { Runtime } from "../runtime/core.js";
import { type ClusterNode, FORWARDED_HEADER } from "./node.js";

const HandoverBody = z.object({
  to: z
    .string()
    .regex(/^\S{1,200}$/, "a node id: no spaces, 1-200 characters")
    .optional(),
});

const THREAD_OP = /^\/thread\/([^/]+)\/(turn|steer|interrupt|compact)$/;
const QUESTION_OP = /^\/question\/([^/]+)\/(reply|reject|touch)$/;

export function mountCluster(app: Hono, runtime: Runtime, cluster: ClusterNode): void {
  const { store, ownership } = clusterPort(runtime);
  app.get("/healthz", (c) => c.json({ ok: true, node: cluster.node }));
  app.get("/readyz", (c) => {
    const reasons: string[] = [];
    if (cluster.draining) reasons.push("draining");
    if (!cluster.connected) reasons.push("NATS disconnected");
    try {
      store.getMeta("ready-probe");
    } catch (e) {
      reasons.push(`store: ${(e as Error).message}`);
    }
    return c.json({ ready: reasons.length === 0, node: cluster.node, reasons }, reasons.length ? 503 : 200);
  });
  app.get("/metrics", (c) =>
    c.text(cluster.metricsText(), 200, { "content-type": "text/plain; version=0.0.4" }),
  );

  const forward = async (c: Context, next: Next) => {
    if (c.req.method !== "POST") return next();
    const route = routeOf(runtime, store, cluster, c.req.path);
    if (route === undefined) return next();
    const { threadId } = route;
    if (c.req.header(FORWARDED_HEADER)) {
      // Sent here as the owner, but this node lost the lease since: act on nothing.
      if (!cluster.hasLost(threadId)) return next();
      const holder = store.getLease(threadId)?.node ?? "another node";
      const message = `this node (${cluster.node}) lost the lease on thread ${threadId} to ${holder}; nothing was done, retry`;
      return c.json({ error: { code: "lease_lost", message } }, 409);
    }
    const owner = route.owner();
    if (!owner) return next();
    const url = new URL(c.req.url);
    const res = await cluster.forward(owner, {
      method: c.req.method,
      path: url.pathname + url.search,
      contentType: c.req.header("content-type"),
      body: await c.req.text(),
    });
    return new Response(res.body, {
      status: res.status,
      headers: { "content-type": res.contentType ?? "application/json", "x-tandem-node": owner },
    });
  };
  app.post("/thread/:id/handover", async (c) => {
    const id = c.req.param("id");
    // `{to}`: the claiming node; the lease passes to it, so no failover scan takes the thread in
    // between (without it the lease is released).
    // (Parsed here: surfaces/http imports this module, not the other way round.)
    let raw: unknown = {};
    try {
      const text = await c.req.text();
      if (text.trim()) raw = JSON.parse(text);
    } catch {
      return c.json({ error: { code: "malformed_json", message: 'send JSON: {"to": "<node id>"}' } }, 400);
    }
    const body = HandoverBody.safeParse(raw);
    if (!body.success)
      return c.json({ error: { code: "invalid_body", message: body.error.issues[0].message } }, 400);
    const to = body.data.to;
    if (!(await ownership.handOver(id, to))) {
      const message = `node ${cluster.node} does not run thread ${id}`;
      return c.json({ error: { code: "not_owner", message } }, 409);
    }
    return c.json({ handed_over: id, node: cluster.node });
  });
  app.use("/thread/*", forward);
  app.use("/question/*", forward);
}

/**
 * The thread a POST acts on (the path's thread, an exact id or a unique prefix, or the
 * question's) and its owner when another live node holds it (read only when asked for).
 */
function routeOf(
  runtime: Runtime,
  store: ClusterPort["store"],
  cluster: ClusterNode,
  path: string,
): { threadId: string; owner(): string | undefined } | undefined {
  const t = THREAD_OP.exec(path);
  if (t) {
    const ref = decodeURIComponent(t[1]);
    const ids = runtime.threads.stored(ref) ? [ref] : store.matchThreadIds(ref, { limit: 2 });
    if (ids.length !== 1) return undefined;
    const id = ids[0];
    return { threadId: id, owner: () => cluster.ownerOf(id) };
  }
  const q = QUESTION_OP.exec(path);
  if (!q) return undefined;
  return cluster.questionRoute(decodeURIComponent(q[1]));
}
