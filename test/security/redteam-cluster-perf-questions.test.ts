import { describe, expect, it } from "vitest";
import type { MockProcess } from "../helpers/cli.js";
import {
  askThenFinish,
  clusterRig,
  moveLeaseBehindOwner,
  type ServeNode,
  startServeNode,
  waitFor,
} from "../helpers/cluster.js";
import { sql } from "../helpers/pg-rig.js";
import { missing } from "../helpers/system-tools.js";

const skip = missing("postgres", "nats-server").length > 0;

describe.skipIf(skip)("red team: question routing without the store", () => {
  const rig = clusterRig();
  const nodes = rig.nodes;
  let mock: MockProcess | undefined;
  let n = 0;

  async function cluster(names: string[], script: unknown, ttlMs = 60_000) {
    mock = await rig.mock(script);
    const db = rig.pg.createDatabase(`redteam_qroute_${++n}`);
    // A long TTL: a node's renewal (every fifth of it) is what tells it that it lost a lease;
    // the attack runs in the window before that renewal, as the fencing tests do.
    for (const name of names) nodes.push(await startServeNode(name, { db, bus: rig.nats.url, mock, ttlMs }));
    return { db, nodes };
  }

  async function askOn(node: ServeNode): Promise<{ id: string; q: any }> {
    const id = (await node.post("/thread", { mode: "plan" })).body.id as string;
    expect((await node.post(`/thread/${id}/turn`, { text: "go" })).status).toBe(202);
    const [q] = await waitFor("the question", async () => {
      const qs = (await node.get(`/question?thread=${id}`)).questions as any[];
      return qs.length ? qs : undefined;
    });
    return { id, q };
  }

  // Was BROKEN, fixed in ClusterNode.questionRoute (the lease is read for a live waiter too):
  // A still has the waiter, the lease is B's (generation bumped, as a takeover does), and A has
  // not noticed yet. Before the change A read the lease and forwarded to B; with it A answered
  // from its stale waiter: the settle is refused by the fence (swallowed by the broker)
  // and the client gets 200 "answered" while the store keeps the question pending: the answer
  // is lost, and the user was told it went through.
  it("a node that lost the lease but still holds the waiter does not acknowledge an answer it cannot store", async () => {
    const { db } = await cluster(["a", "b"], askThenFinish("stale-waiter"));
    const [a] = nodes;
    const { id, q } = await askOn(a);
    // B takes the thread: the lease generation moves on (what acquireLease does on a takeover),
    // the lease names B (reserved for it, as a hand-over does, so the real node B may open it).
    await moveLeaseBehindOwner(db, id, "b");
    const reply = await a.post(`/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { name: "stale-waiter" },
    });
    const [row] = await sql(db, "SELECT outcome FROM questions WHERE request_id = $1", [q.request_id]);
    console.log(
      "[redteam] stale waiter:",
      reply.status,
      reply.by ?? "-",
      JSON.stringify(reply.body).slice(0, 300),
    );
    // The invariant: an answer acknowledged as accepted is stored (or went to the owner).
    const acknowledged = reply.status === 200 && reply.body?.outcome?.status === "answered";
    expect(
      { acknowledged, servedBy: reply.by ?? "a (locally)", storedOutcome: row.outcome },
      "A answered from a stale waiter: 200 answered, but the store still holds the question as pending",
    ).not.toMatchObject({ acknowledged: true, storedOutcome: null });
  });

  // HELD: a request id of thread T1's question, with the body naming thread T2 (owned by the
  // other node): nothing is settled, on either node, whichever node is asked.
  it("a question id with another thread's id in the body settles nothing, on either node", async () => {
    const script = {
      steps: [
        ...askThenFinish("one").steps.slice(0, 1),
        ...askThenFinish("two")
          .steps.slice(0, 1)
          .map((s: any) => ({
            output: s.output.map((o: any) => ({ ...o, call_id: "call_ask2" })),
          })),
      ],
    };
    const { db } = await cluster(["a", "b"], script, 5000);
    const [a, b] = nodes;
    const one = await askOn(a);
    const two = await askOn(b);
    for (const node of [a, b])
      for (const op of ["reply", "reject", "touch"]) {
        const body = op === "reply" ? { thread_id: two.id, text: { name: "x" } } : { thread_id: two.id };
        const r = await node.post(`/question/${one.q.request_id}/${op}`, body);
        if (op !== "touch")
          expect(r.status, `${op} via ${node.name}: ${JSON.stringify(r.body)}`).not.toBe(200);
      }
    const rows = await sql(db, "SELECT request_id, outcome FROM questions ORDER BY request_id");
    expect(rows.every((r) => r.outcome === null)).toBe(true);
    expect((await a.get(`/question?thread=${one.id}`)).questions).toHaveLength(1);
    expect((await b.get(`/question?thread=${two.id}`)).questions).toHaveLength(1);
  });

  // Odd request ids: nothing in the id reaches SQL text, and none takes a node down. Reported,
  // not asserted as a regression: the ids that get a 500 got it before the change too (the old
  // route decoded the id and read the store the same way).
  it("odd request ids get an answer and leave the node serving", async () => {
    await cluster(["a", "b"], askThenFinish("odd"), 5000);
    const [a, b] = nodes;
    const { id, q } = await askOn(a);
    const ids = [
      "%2e%2e",
      "..%2F..%2Fthread",
      "q'%3B%20DROP%20TABLE%20questions%3B--",
      "%E2%80%AE",
      "*",
      ">",
      "a.b.c",
      encodeURIComponent(`${q.request_id}\n`),
      "x".repeat(4000),
      "%00",
      "%E0%A4%A",
    ];
    const statuses: Record<string, number> = {};
    for (const node of [a, b])
      for (const bad of ids) {
        const r = await fetch(`${node.url}/question/${bad}/reply`, {
          method: "POST",
          headers: { authorization: "Bearer cluster-token-0123", "content-type": "application/json" },
          body: JSON.stringify({ thread_id: id, text: { name: "odd" } }),
        });
        statuses[`${node.name} ${bad.slice(0, 40)}`] = r.status;
        expect(r.status, `${bad} on ${node.name}`).not.toBe(200);
      }
    console.log("[redteam] odd question ids:", JSON.stringify(statuses));
    // Both nodes still serve, the question is still pending and can be answered through B.
    const reply = await b.post(`/question/${q.request_id}/reply`, { thread_id: id, text: { name: "odd" } });
    expect(reply.status).toBe(200);
    expect(reply.by).toBe("a");
  });
});
