/**
 * The hand-over end to end (docs/scale-out.md, "JSON-RPC clients"): the owner of a thread, asked
 * by a claiming node (`POST /thread/:id/handover {to}`), stops it and passes its lease to that
 * node, reserved (`handover:<node>`) so that no third node takes it before the claimer opens
 * it. Three real `tandem serve` nodes, real PostgreSQL and nats-server; skipped with the reason
 * where one is absent.
 */
import pgClient from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { askThenFinish, type ServeNode, startServeNode, waitFor } from "../helpers/cluster.js";
import { startNats, type TestNats } from "../helpers/infra/nats.js";
import { startPostgres, type TestPostgres } from "../helpers/infra/postgres.js";
import { missing } from "../helpers/system-tools.js";

describe.skipIf(missing("postgres", "nats-server").length > 0)("hand-over of a thread", () => {
  let pg: TestPostgres;
  let nats: TestNats;
  let mock: MockProcess | undefined;
  const nodes: ServeNode[] = [];

  beforeAll(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), nats?.stop()]);
  });
  afterEach(async () => {
    for (const n of nodes.splice(0)) n.stop();
    await mock?.stop();
  });

  async function leaseOf(db: string, threadId: string): Promise<{ node: string; token: string }> {
    const c = new pgClient.Client({ connectionString: db });
    await c.connect();
    try {
      return (await c.query("SELECT node, token FROM thread_leases WHERE thread_id = $1", [threadId]))
        .rows[0];
    } finally {
      await c.end();
    }
  }

  // fails if the hand-over ignores `to` (the lease is released: the third node takes the thread
  // itself, by its failover scan or by serving the reply), or if the claimer cannot take the
  // reserved lease (the forwarded reply finds the thread in use and the turn never finishes).
  it("a lease handed to B is B's: C forwards to B, B opens the thread and finishes the turn", async () => {
    mock = await startMockProcess(askThenFinish("handed"));
    const db = pg.createDatabase("handover_e2e");
    // A long TTL: the reservation must outlast the steps below on a loaded machine.
    const opts = { db, bus: nats.url, mock, ttlMs: 10_000 };
    const a = await startServeNode("a", opts);
    const b = await startServeNode("b", opts);
    const c = await startServeNode("c", opts);
    nodes.push(a, b, c);
    const id = (await a.post("/thread", { mode: "plan" })).body.id as string;
    expect((await a.post(`/thread/${id}/turn`, { text: "go" })).status).toBe(202);
    const [q] = await waitFor("the question on A", async () => {
      const qs = (await a.get(`/question?thread=${id}`)).questions as any[];
      return qs.length ? qs : undefined;
    });

    // What a claiming node B sends A (ClusterNode.requestHandover): A stops the thread, B's now.
    const handed = await a.post(`/thread/${id}/handover`, { to: "b" });
    expect(handed).toMatchObject({ status: 200, body: { handed_over: id, node: "a" } });
    expect(await leaseOf(db, id)).toEqual({ node: "b", token: "handover:b" });

    // C may not take it: a reply sent to C goes to B, which takes its reserved lease and runs it.
    const reply = await c.post(`/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { name: "handed" },
    });
    expect(reply.by).toBe("b");
    expect(reply.status).toBe(200);
    const detail = await waitFor("the turn to finish on B", async () => {
      const d = await c.get(`/thread/${id}`);
      return JSON.stringify(d.items).includes("named handed") ? d : undefined;
    });
    expect(detail.status).not.toBe("running");
    expect((await leaseOf(db, id)).node).toBe("b");
    expect(b.stderr()).not.toMatch(/lost the lease/);
    const metrics = await (await fetch(`${c.url}/metrics`)).text();
    expect(metrics).toContain('tandem_lease_takeovers_total{node="c"} 0');
  });
});
