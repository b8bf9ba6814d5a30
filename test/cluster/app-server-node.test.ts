/**
 * A JSON-RPC client (Codex app-server protocol) in a cluster (docs/scale-out.md): `tandem app-server
 * --store postgres://… --bus nats://…` is a node like `tandem serve`. A thread another node runs
 * moves to the app-server node when its client opens it, its pending question is asked there
 * with the same id, and HTTP requests for it on the other node are forwarded to the app-server
 * node. Real postgres, nats-server, processes and sockets; skipped where a tool is absent.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { answerAndFinish, questionScript, serverEnv } from "../helpers/app-server.js";
import { type ServerProcess, type TestClient, wsClient, wsServer } from "../helpers/app-server-client.js";
import { type MockProcess, spawnServe, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { startNats, type TestNats } from "../helpers/infra/nats.js";
import { startPostgres, type TestPostgres } from "../helpers/infra/postgres.js";
import { missing } from "../helpers/system-tools.js";

const TOKEN = "cluster-token-0123";
const json = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

describe.skipIf(missing("postgres", "nats-server").length > 0)("app-server as a cluster node", () => {
  let pg: TestPostgres;
  let nats: TestNats;
  let mock: MockProcess | undefined;
  let appServer: ServerProcess | undefined;
  const stops: Array<() => unknown> = [];
  const clients: TestClient[] = [];
  let dbs = 0;

  beforeAll(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), nats?.stop()]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) expect(c.violations).toEqual([]);
    for (const stop of stops.splice(0)) await stop();
    await appServer?.stop("SIGKILL");
    await mock?.stop();
  });

  /** A serve node "a" and an app-server node "x" on one database; a's thread asks a question. */
  async function askedOnServeNode() {
    mock = await startMockProcess(questionScript());
    const db = pg.createDatabase(`app_server_cluster_${++dbs}`);
    const lease = { TANDEM_LEASE_TTL_MS: "3000" };
    const serve = await spawnServe(
      [
        ...["--port", "0", "--token", TOKEN, "--responder", "--store", db, "--bus", nats.url],
        ...["--node-id", "a", "-c", `openai_base_url="${mock.url}"`],
      ],
      { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", ...lease },
    );
    stops.push(() => serve.proc.kill("SIGKILL"));
    const a = /listening on (\S+)/.exec(serve.lines[0])![1];
    // The cluster's token: the app-server node seals its bus messages with it, like the serve nodes.
    const started = await wsServer({ ...serverEnv(mock), ...lease, TANDEM_SERVE_TOKEN: TOKEN }, [
      ...["--store", db, "--bus", nats.url, "--node-id", "x"],
    ]);
    appServer = started.server;

    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${a}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any, by: res.headers.get("x-tandem-node") };
    };
    const id = (await post("/thread", { mode: "plan" })).body.id as string;
    expect((await post(`/thread/${id}/turn`, { text: "Set up the demo project" })).status).toBe(202);
    let pending: any[] = [];
    for (let i = 0; i < 150 && !pending.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      pending = ((await (await fetch(`${a}/question?thread=${id}`, { headers: json })).json()) as any)
        .questions;
    }
    expect(pending).toHaveLength(1);

    return { a, post, started, id, pending, turnId: pending[0].turn_id as string };
  }

  // fails if the app-server cannot open a thread another node runs (ThreadInUse), the question
  // comes back under a new id, the call gets two outputs, or the serve node keeps acting on the
  // thread instead of forwarding to the app-server node that now runs it.
  it("a thread asked on a serve node moves to the app-server client that opens it", async () => {
    const { a, post, started, id, pending } = await askedOnServeNode();
    const c = await wsClient(started.url, "x");
    stops.push(() => c.close());
    clients.push(c.client);
    await c.client.initialize();
    const resumed = await c.client.request("thread/resume", { threadId: id });
    expect(resumed.thread.id).toBe(id);
    const question = await c.client.serverRequest("item/tool/requestUserInput", (p) => p.threadId === id);
    expect(question.id).toBe(pending[0].request_id); // the same question, asked again here
    expect(question.params.itemId).toBe("call_q01");
    expect(started.server.stderr()).toContain(`thread ${id} handed over by node a`);

    await answerAndFinish(c.client, mock!, question);
    const detail = (await (await fetch(`${a}/thread/${id}`, { headers: json })).json()) as any;
    const outputs = detail.items.filter(
      (i: any) => i.type === "function_call_output" && i.call_id === "call_q01",
    );
    expect(outputs).toHaveLength(1);
    expect(JSON.stringify(outputs[0])).toContain("demo-app");
    expect(readFileSync(mock!.log, "utf8")).toContain("demo-app");

    // The serve node no longer runs it: a request for it there is answered by the app-server node.
    const interrupt = await post(`/thread/${id}/interrupt`, {});
    expect(interrupt.by).toBe("x");
    expect(interrupt.status).toBeLessThan(500);
  });

  // fails if turn/interrupt of a thread another node runs is refused or acts on nothing (the
  // client did not open it here: the op must reach the node that runs it).
  it("turn/interrupt of a thread running on a serve node is forwarded to it", async () => {
    const { a, started, id, turnId } = await askedOnServeNode();
    const c = await wsClient(started.url, "x");
    stops.push(() => c.close());
    clients.push(c.client);
    await c.client.initialize();
    expect(await c.client.request("turn/interrupt", { threadId: id, turnId })).toEqual({});
    let status = "";
    for (let i = 0; i < 100 && status !== "interrupted"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const detail = (await (await fetch(`${a}/thread/${id}`, { headers: json })).json()) as any;
      status = detail.turns?.find((t: any) => t.id === turnId)?.status ?? "";
    }
    expect(status).toBe("interrupted");
    // Still a's: nothing moved to the app-server node.
    expect(started.server.stderr()).not.toContain("handed over");
  });
});
