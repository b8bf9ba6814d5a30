/**
 * Red team: node ids and NATS subjects. A node's id goes into its bus subjects
 * (`tandem.node.<id>.http`, `tandem.events.<id>`) as written. NATS gives `.`, `*` and `>` a
 * meaning there: a node named after its FQDN (`node1.example.com`, the default is the host
 * name) publishes its events where the other nodes' `tandem.events.*` never looks, and a node
 * named `*` subscribes to every node's forwarded requests and runs them a second time.
 *
 * Real `tandem serve` processes on one PostgreSQL and one nats-server, one scripted model.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { askThenFinish, type ServeNode, startServeNode, waitFor } from "../helpers/cluster.js";
import { isEvent, openSse, type SseClient } from "../helpers/http.js";
import { startNats, type TestNats } from "../helpers/infra/nats.js";
import { startPostgres, type TestPostgres } from "../helpers/infra/postgres.js";
import { missing } from "../helpers/system-tools.js";

const skip = missing("postgres", "nats-server").length > 0;

describe.skipIf(skip)("red team: node ids are not NATS syntax", () => {
  let pg: TestPostgres;
  let nats: TestNats;
  let mock: MockProcess | undefined;
  let nodes: ServeNode[] = [];
  const streams: SseClient[] = [];
  let n = 0;
  beforeAll(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), nats?.stop()]);
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    for (const node of nodes) node.stop();
    nodes = [];
    await mock?.stop();
  });

  async function cluster(names: string[]): Promise<ServeNode[]> {
    mock = await startMockProcess(askThenFinish("dotted"));
    const db = pg.createDatabase(`redteam_ids_${++n}`);
    for (const name of names) nodes.push(await startServeNode(name, { db, bus: nats.url, mock }));
    return nodes;
  }

  // Fails if a dotted id is used as subject tokens: B's live stream never sees A's events.
  it("a node named node1.example.com: its events reach the other node live", async () => {
    const [a, b] = await cluster(["node1.example.com", "b"]);
    const thread = await a.post("/thread", { mode: "plan" });
    const id = thread.body.id as string;
    expect((await a.post(`/thread/${id}/turn`, { text: "go" })).status).toBe(202);
    const [q] = await waitFor("the question on A", async () => {
      const qs = (await a.get(`/question?thread=${id}`)).questions as any[];
      return qs.length ? qs : undefined;
    });
    // A live stream on B (no Last-Event-ID: nothing is replayed from the store).
    const onB = await openSse(`${b.url}/event?thread=${id}`, { authorization: "Bearer cluster-token-0123" });
    streams.push(onB);
    expect(onB.status).toBe(200);
    const reply = await a.post(`/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { name: "dotted" },
    });
    expect(reply.status).toBe(200);
    await onB.next(isEvent("turn.completed"), 15_000);
  });

  // Fails if a node named `*` subscribes to every node's requests: it serves B's too.
  it("a node named *: a request forwarded to B is served by B alone", async () => {
    const [a, b, star] = await cluster(["a", "b", "*"]);
    const thread = await b.post("/thread", { mode: "plan" });
    const id = thread.body.id as string;
    expect((await b.post(`/thread/${id}/turn`, { text: "go" })).status).toBe(202);
    const [q] = await waitFor("the question on A", async () => {
      const qs = (await a.get(`/question?thread=${id}`)).questions as any[];
      return qs.length ? qs : undefined;
    });
    const reply = await a.post(`/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { name: "dotted" },
    });
    expect(reply.status).toBe(200);
    expect(reply.by).toBe("b");
    const served = async (node: ServeNode) =>
      /tandem_forwards_served_total\{node="[^"]*"\} (\d+)/.exec(
        await (await fetch(`${node.url}/metrics`)).text(),
      )?.[1];
    expect(await served(b)).toBe("1");
    expect(await served(star)).toBe("0");
  });
});
