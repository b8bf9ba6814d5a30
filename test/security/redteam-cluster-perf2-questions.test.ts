/**
 * Red team round 2, fix 2 (src/cluster/node.ts `questionRoute`): a question waiting in this
 * node's broker is served here only when the lease names no other live node. Attacked here: the
 * FORWARDED path (src/cluster/routes.ts `forward`, header x-tandem-forwarded-by). A third node
 * read the lease (it named A) and forwarded the reply to A over the bus; between that read and
 * A serving it the lease moved to B (a takeover: generation bumped). A has not noticed yet (its
 * next renewal), still holds the waiter, and a forwarded request skips the lease read.
 *
 * The forwarding node is played by the test: a SealedBus with the cluster token, exactly what
 * ClusterNode.forward sends (a node "c" that read the lease before it moved).
 *
 * Real `tandem serve` processes on one PostgreSQL and one nats-server, one scripted model.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { SealedBus } from "../../src/cluster/sealed-bus.js";
import type { MockProcess } from "../helpers/cli.js";
import {
  askThenFinish,
  CLUSTER_TOKEN,
  clusterRig,
  moveLeaseBehindOwner,
  startServeNode,
  waitFor,
} from "../helpers/cluster.js";
import { sql } from "../helpers/pg-rig.js";
import { missing } from "../helpers/system-tools.js";

const skip = missing("postgres", "nats-server").length > 0;

describe.skipIf(skip)("red team 2: forwarded question requests after the lease moved", () => {
  const rig = clusterRig();
  const nodes = rig.nodes;
  let mock: MockProcess | undefined;
  let nc: NatsConnection | undefined;

  it("a forwarded reply reaching a node that lost the lease (unnoticed) is not acknowledged unless stored", async () => {
    mock = await rig.mock(askThenFinish("fwd-stale"));
    const db = rig.pg.createDatabase("redteam2_qfwd");
    // Long TTL: A's renewal (what tells it that it lost the lease) is 12 s away.
    for (const name of ["a", "b"])
      nodes.push(await startServeNode(name, { db, bus: rig.nats.url, mock, ttlMs: 60_000 }));
    const [a] = nodes;
    const id = (await a.post("/thread", { mode: "plan" })).body.id as string;
    expect((await a.post(`/thread/${id}/turn`, { text: "go" })).status).toBe(202);
    const [q] = await waitFor("the question", async () => {
      const qs = (await a.get(`/question?thread=${id}`)).questions as any[];
      return qs.length ? qs : undefined;
    });
    // The takeover lands after node "c" read the lease naming A (as round 1's test moves it).
    await moveLeaseBehindOwner(db, id, "b");
    // Node "c"'s forward, as ClusterNode.forward sends it.
    nc = await connect({ servers: rig.nats.url.replace(/^nats:\/\//, "") });
    rig.defer(() => nc?.close().catch(() => {}));
    const bus = new SealedBus(nc, "c", CLUSTER_TOKEN);
    const raw = await bus.request(
      "tandem.node.a.http",
      JSON.stringify({
        method: "POST",
        path: `/question/${encodeURIComponent(q.request_id)}/reply`,
        contentType: "application/json",
        body: JSON.stringify({ thread_id: id, text: { name: "fwd-stale" } }),
      }),
      15_000,
    );
    const res = JSON.parse(raw) as { status: number; body: string };
    const [row] = await sql(db, "SELECT outcome FROM questions WHERE request_id = $1", [q.request_id]);
    console.log(
      "[redteam2] forwarded to stale A:",
      res.status,
      res.body.slice(0, 300),
      "stored:",
      JSON.stringify(row.outcome),
    );
    let body: any;
    try {
      body = JSON.parse(res.body);
    } catch {}
    const acknowledged = res.status === 200 && body?.outcome?.status === "answered";
    expect(
      { acknowledged, storedOutcome: row.outcome },
      "A served a forwarded reply from its stale waiter: 200 answered, but the store still holds the question as pending",
    ).not.toMatchObject({ acknowledged: true, storedOutcome: null });
  }, 60_000);
});
