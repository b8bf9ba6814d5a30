/**
 * The cluster bus is not a back door (docs/scale-out.md, "Trust model"). Real `tandem serve`
 * nodes on a real PostgreSQL and a real nats-server that requires a user and password (over
 * TLS with a private CA where openssl is present); the attacker is a raw NATS client of its own
 * (no Tandem code) that even holds the bus password, but not the cluster token:
 * (1) without bus credentials it cannot connect at all;
 * (2) with them it cannot make a node list threads, start a turn or answer an approval;
 * (3) events it publishes never reach an SSE client of any node;
 * (4) a valid frame it captured and sends again is refused;
 * (5) a node refuses a bus off this machine without credentials unless --insecure-bus.
 * Every attack also checks that the node received the frame and dropped it (its
 * tandem_bus_frames_rejected_total), so none passes merely because nothing arrived.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type MockProcess, runTandem, spawnServe, startMockProcess } from "../helpers/cli.js";
import { CLUSTER_TOKEN, type ServeNode, startServeNode, waitFor } from "../helpers/cluster.js";
import { openSse, type SseClient } from "../helpers/http.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { startNats, type TestNats } from "../helpers/infra/nats.js";
import { startPostgres, type TestPostgres } from "../helpers/infra/postgres.js";
import { makeCerts, type TestCerts } from "../helpers/infra/tls.js";
import { missing } from "../helpers/system-tools.js";

const BUS_USER = "tandem";
const BUS_PASSWORD = "bus-password-0123";
const auth = { authorization: `Bearer ${CLUSTER_TOKEN}` };

const say = (text: string) => ({ output: [{ type: "message", text }] });

describe.skipIf(missing("postgres", "nats-server").length > 0)("the cluster bus against an outsider", () => {
  let pg: TestPostgres;
  let nats: TestNats;
  let certs: TestCerts | undefined;
  let busUrl: string;
  let mock: MockProcess | undefined;
  let dbs = 0;
  const nodes: ServeNode[] = [];
  const clients: NatsConnection[] = [];
  const streams: SseClient[] = [];
  const cleanup: string[] = [];

  beforeAll(async () => {
    // TLS where openssl can make certificates (the cases below run either way).
    certs = makeCerts();
    const tls = certs ? `tls { cert_file: "${certs.serverCert}", key_file: "${certs.serverKey}" }\n` : "";
    [pg, nats] = await Promise.all([
      startPostgres(),
      startNats({ config: `${tls}authorization { user: "${BUS_USER}", password: "${BUS_PASSWORD}" }` }),
    ]);
    busUrl = `${certs ? "tls" : "nats"}://127.0.0.1:${nats.port}`;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), nats?.stop()]);
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    for (const c of clients.splice(0)) await c.close().catch(() => {});
    for (const n of nodes.splice(0)) n.stop();
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
    await mock?.stop();
  });

  /** Nodes a and b on the authenticated bus, the password in their environment (not in ps). */
  async function cluster(script: unknown): Promise<[ServeNode, ServeNode]> {
    mock = await startMockProcess(script);
    const db = pg.createDatabase(`bus_attack_${++dbs}`);
    const busArgs = ["--bus-user", BUS_USER, ...(certs ? ["--bus-ca", certs.ca] : [])];
    const opts = { db, bus: busUrl, mock, busArgs, env: { TANDEM_BUS_PASSWORD: BUS_PASSWORD } };
    const a = await startServeNode("a", opts);
    const b = await startServeNode("b", opts);
    nodes.push(a, b);
    for (const n of [a, b]) expect(n.stderr()).not.toContain(BUS_PASSWORD);
    return [a, b];
  }

  /** The attacker: a plain NATS client holding the bus credentials (not the cluster token). */
  async function attacker(): Promise<NatsConnection> {
    const nc = await connect({
      servers: `127.0.0.1:${nats.port}`,
      user: BUS_USER,
      pass: BUS_PASSWORD,
      ...(certs ? { tls: { caFile: certs.ca } } : {}),
    });
    clients.push(nc);
    return nc;
  }

  /** What a request got: "answered", or the client's error (a timeout when the node kept silent). */
  async function ask(nc: NatsConnection, subject: string, data: string | Uint8Array): Promise<string> {
    try {
      await nc.request(subject, data, { timeout: 3000 });
      return "answered";
    } catch (e) {
      return (e as Error).message;
    }
  }

  async function dropped(node: ServeNode, reason: string): Promise<number> {
    const text = await (await fetch(`${node.url}/metrics`)).text();
    const re = new RegExp(
      `tandem_bus_frames_rejected_total\\{node="${node.name}",reason="${reason}"\\} (\\d+)`,
    );
    return Number(re.exec(text)?.[1] ?? Number.NaN);
  }
  const droppedAtLeast = (node: ServeNode, reason: string, n: number) =>
    waitFor(`node ${node.name} to drop ${n} ${reason} frame(s)`, async () =>
      (await dropped(node, reason)) >= n ? true : undefined,
    );

  async function sse(node: ServeNode): Promise<SseClient> {
    const s = await openSse(`${node.url}/event`, auth);
    expect(s.status).toBe(200);
    streams.push(s);
    return s;
  }

  /** Something a node publishes now; once both streams have it, anything published before has arrived. */
  async function barrier(on: ServeNode, streamsToWait: SseClient[]): Promise<void> {
    const id = (await on.post("/thread", {})).body.id as string;
    for (const s of streamsToWait) await s.next((f) => f.data.includes(id), 15_000);
  }

  const modelRequests = () =>
    existsSync(mock!.log) ? readFileSync(mock!.log, "utf8").trim().split("\n").length : 0;

  // fails if the bus lets a client in without the bus's credentials.
  it("(1) a client without the bus credentials cannot connect", async () => {
    const tls = certs ? { tls: { caFile: certs.ca } } : {};
    const servers = `127.0.0.1:${nats.port}`;
    await expect(connect({ servers, ...tls })).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers, user: BUS_USER, pass: "guess", ...tls })).rejects.toThrow(
      /Authorization/i,
    );
  });

  // fails if a node acts on a request that no node sealed (the issue: the owner ran it with its
  // own token): listing threads, starting a turn, or accepting an escalation approval, which
  // would run the command unsandboxed and create the marker outside every writable root.
  it.skipIf(missing("bwrap").length > 0)(
    "(2) a bus client without the cluster token cannot list threads, start a turn or answer an approval",
    async () => {
      const outside = outsideDir("tandem-bus-");
      cleanup.push(outside);
      const marker = join(outside, "pwned");
      const [a, b] = await cluster({
        steps: [
          {
            output: [
              {
                type: "function_call",
                call_id: "call_esc",
                name: "exec_command",
                arguments: {
                  cmd: `touch ${marker}`,
                  sandbox_permissions: "require_escalated",
                  justification: "x",
                },
              },
            ],
          },
          say("done"),
        ],
      });
      const id = (await a.post("/thread", { cwd: tempDir() })).body.id as string;
      expect((await a.post(`/thread/${id}/turn`, { text: "go" })).status).toBe(202);
      const [approval] = await waitFor("the approval on A", async () => {
        const qs = ((await a.get(`/question?thread=${id}`)).questions as any[]).filter((q) => q.approval);
        return qs.length ? qs : undefined;
      });
      const accept = approval.questions[0].options[0].label as string;
      expect(accept).toMatch(/^Accept/);

      const nc = await attacker();
      const subject = "tandem.node.a.http";
      const plain = (req: unknown) => JSON.stringify(req);
      const attempts = [
        plain({ method: "GET", path: "/thread" }),
        plain({
          method: "POST",
          path: `/thread/${id}/turn`,
          contentType: "application/json",
          body: '{"text":"x"}',
        }),
        plain({
          method: "POST",
          path: `/question/${approval.request_id}/reply`,
          contentType: "application/json",
          body: JSON.stringify({ thread_id: id, answers: { decision: { selected: [accept] } } }),
        }),
      ];
      for (const data of attempts) expect(await ask(nc, subject, data)).toMatch(/timeout/i);
      // Shaped like a frame, sealed with a key of its own.
      const head = Buffer.from(JSON.stringify({ from: "b", boot: "00", seq: 1, ts: Date.now() }));
      const forged = Buffer.concat([Buffer.from([1, 0, head.length]), head, Buffer.alloc(60, 7)]);
      expect(await ask(nc, subject, forged)).toMatch(/timeout/i);
      await droppedAtLeast(a, "malformed", 3);
      await droppedAtLeast(a, "forged", 1);

      const pending = (await a.get(`/question?thread=${id}`)).questions as any[];
      expect(pending.map((q) => q.request_id)).toEqual([approval.request_id]);
      expect(existsSync(marker)).toBe(false);
      expect((await a.get(`/thread/${id}`)).turns).toHaveLength(1);
      expect(modelRequests()).toBe(1);

      // The same answer through a node (HTTP with the token, forwarded to A over the bus) works:
      // the attack failed for want of the token, not because the action was impossible.
      const reply = await b.post(`/question/${approval.request_id}/reply`, {
        thread_id: id,
        answers: { decision: { selected: [accept] } },
      });
      expect(reply).toMatchObject({ status: 200, by: "a" });
      await waitFor("the approved command's marker", async () => (existsSync(marker) ? true : undefined));
    },
  );

  // fails if an event published on the events subject by a non-node is passed to SSE clients
  // (a fake approval prompt or status shown to every user of every node).
  it("(3) a spoofed event never reaches an SSE client of any node", async () => {
    const [a, b] = await cluster({ steps: [] });
    const [onA, onB] = [await sse(a), await sse(b)];
    const nc = await attacker();
    const spoof = (node: string) =>
      JSON.stringify({
        node,
        id: 999_999,
        event: { type: "thread.status_changed", thread_id: `SPOOFED-${node}`, status: "idle" },
      });
    for (const node of ["a", "b", "x"]) nc.publish(`tandem.events.${node}`, spoof(node));
    await nc.flush();
    for (const n of [a, b]) await droppedAtLeast(n, "malformed", 3);
    await barrier(a, [onA, onB]);
    for (const s of [onA, onB]) expect(s.frames.filter((f) => f.data.includes("SPOOFED"))).toEqual([]);
  });

  // fails if a captured frame — a forwarded request, an event — is accepted a second time
  // (the request would start another turn; the event would be shown again).
  it("(4) a captured valid frame sent again is refused", async () => {
    const [a, b] = await cluster({ steps: [say("one"), say("two"), say("three")] });
    const id = (await a.post("/thread", { cwd: tempDir() })).body.id as string;
    const done = (n: number) => async () => {
      const turns = (await a.get(`/thread/${id}`)).turns as any[];
      return turns.length === n && turns.every((t) => t.status === "completed") ? true : undefined;
    };
    expect((await a.post(`/thread/${id}/turn`, { text: "first" })).status).toBe(202);
    await waitFor("turn 1 on A", done(1));

    const nc = await attacker();
    // Copies of the bytes as they went by (the client may reuse its buffers).
    const requests: Uint8Array[] = [];
    const events: Uint8Array[] = [];
    nc.subscribe("tandem.node.a.http", { callback: (_e, m) => void requests.push(Uint8Array.from(m.data)) });
    nc.subscribe("tandem.events.a", { callback: (_e, m) => void events.push(Uint8Array.from(m.data)) });
    await nc.flush();
    const onB = await sse(b);
    // B forwards this turn to A, the owner: the attacker sees the frame go by.
    expect(await b.post(`/thread/${id}/turn`, { text: "second" })).toMatchObject({ status: 202, by: "a" });
    await waitFor("turn 2 on A", done(2));
    expect(requests).toHaveLength(1);
    const completed = await onB.next((f) => f.data.includes('"turn.completed"'), 15_000);
    expect(events.length).toBeGreaterThan(0);

    expect(await ask(nc, "tandem.node.a.http", requests[0])).toMatch(/timeout/i);
    await droppedAtLeast(a, "replayed", 1);
    // Moved to another node's subject it does not open either.
    expect(await ask(nc, "tandem.node.b.http", requests[0])).toMatch(/timeout/i);
    await droppedAtLeast(b, "forged", 1);
    expect((await a.get(`/thread/${id}`)).turns).toHaveLength(2);
    expect(modelRequests()).toBe(2);

    const before = await dropped(b, "replayed");
    const captured = [...events]; // (the attacker's own sends come back to it on this subject)
    for (const data of captured) nc.publish("tandem.events.a", data);
    await nc.flush();
    await droppedAtLeast(b, "replayed", before + captured.length);
    await barrier(a, [onB]);
    const ids = onB.frames.filter((f) => f.id === completed.id);
    expect(ids).toHaveLength(1);
  });

  // fails if a node joins a bus anyone can join without being told to (--insecure-bus), or
  // joins one without the cluster token (its frames could not be sealed for the others).
  it("(5) a node refuses a bus off this machine without credentials unless --insecure-bus", async () => {
    const db = pg.createDatabase(`bus_attack_${++dbs}`);
    const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", TANDEM_SERVE_TOKEN: "" };
    const base = ["serve", "--token", CLUSTER_TOKEN, "--store", db];
    // Refused before any connection is tried (nothing listens on this TEST-NET address).
    const off = await runTandem([...base, "--bus", "nats://192.0.2.200:4222"], { env });
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/no NATS credentials were given.*--insecure-bus/);
    const appServer = await runTandem(["app-server", "--store", db, "--bus", "nats://192.0.2.200:4222"], {
      env: { ...env, TANDEM_SERVE_TOKEN: CLUSTER_TOKEN },
    });
    expect(appServer.code).toBe(2);
    expect(appServer.stderr).toMatch(/--insecure-bus/);
    const noToken = await runTandem(["serve", "--store", db, "--bus", `nats://127.0.0.1:${nats.port}`], {
      env,
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/--bus needs the cluster's shared token.*TANDEM_SERVE_TOKEN/);
    const appNoToken = await runTandem(
      ["app-server", "--store", db, "--bus", `nats://127.0.0.1:${nats.port}`],
      {
        env,
      },
    );
    expect(appNoToken.code).toBe(2);
    expect(appNoToken.stderr).toMatch(/TANDEM_SERVE_TOKEN/);

    // A server on this machine's network address that requires no authorization.
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
    if (!lan) return; // no non-loopback address here: the cases above still ran
    const open = await startNats({ host: lan });
    try {
      // Credentials given, but the server asks for none: anyone else could join it as well.
      const withUser = await spawnServe(
        [...base.slice(1), "--port", "0", "--bus", open.url, "--bus-user", "u"],
        {
          ...env,
          TANDEM_BUS_PASSWORD: "pw",
        },
      ).then(
        (r) => {
          r.proc.kill("SIGKILL");
          return "it started";
        },
        (e: Error) => e.message,
      );
      expect(withUser).toMatch(
        /serve exited 2: .*lets any client connect without credentials.*--insecure-bus/s,
      );
      const insecure = await spawnServe(
        [...base.slice(1), "--port", "0", "--bus", open.url, "--insecure-bus", "--node-id", "z"],
        env,
      );
      try {
        expect(insecure.lines[0]).toMatch(/listening on/);
        expect(insecure.stderr()).toMatch(/warning: --insecure-bus/);
      } finally {
        insecure.proc.kill("SIGKILL");
      }
    } finally {
      await open.stop();
    }
  });
});
