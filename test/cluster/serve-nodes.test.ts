/**
 * Three `tandem serve` nodes on one real PostgreSQL and one real nats-server (docs/scale-out.md), each a
 * real ./bin/tandem process with its own TANDEM_HOME, against one scripted model process.
 * Skipped with the reason where postgres or nats-server is absent.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join as join_ } from "node:path";
import pgClient from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../../src/util/process-tree.js";
import { type MockProcess, runTandem, spawnServe, startMockProcess } from "../helpers/cli.js";
import { isEvent, nth, openSse, type SseClient } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { startNats, type TestNats } from "../helpers/infra/nats.js";
import { startPostgres, type TestPostgres } from "../helpers/infra/postgres.js";
import { startProxy } from "../helpers/infra/proxy.js";
import { missing } from "../helpers/system-tools.js";

const TOKEN = "cluster-token-0123";
const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, "content-type": "application/json" };

/** Asks one question (request_user_input), then answers with a message once it has the answer. */
function askThenFinish(answer: string) {
  return {
    steps: [
      {
        output: [
          {
            type: "function_call",
            call_id: "call_ask",
            name: "request_user_input",
            arguments: {
              questions: [{ id: "name", header: "Name", question: "What should it be called?" }],
            },
          },
        ],
      },
      { expect: { input_contains: [answer] }, output: [{ type: "message", text: `named ${answer}` }] },
    ],
  };
}

/** Runs `cmd` (call_run), then, once the model sees its output and `prompt`, says `text`. */
function runThenSay(cmd: string, prompt: string, text: string) {
  return {
    steps: [
      { output: [{ type: "function_call", call_id: "call_run", name: "exec_command", arguments: { cmd } }] },
      {
        expect: { input_contains: ["call_run", prompt] },
        output: [{ type: "message", text }],
      },
    ],
  };
}

interface Node {
  name: string;
  url: string;
  proc: ChildProcess;
  stderr: () => string;
}

const skip = missing("postgres", "nats-server").length > 0;

describe("scale-out flags refuse what cannot work", () => {
  // fails if --bus is accepted without a shared store (it could not route: no leases to read),
  // or an unreachable database is not named (with its password hidden).
  // An unreachable --store is a store that cannot be opened: exit 2 like on every command
  // (surfaces/shared/startup.ts; `tandem exec` and `tandem threads` always did).
  it("--bus without a postgres store exits 1, an unreachable --store 2, with the reason", async () => {
    const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k" };
    const bus = await runTandem(["serve", "--bus", "nats://127.0.0.1:1"], { env });
    expect(bus.code).toBe(1);
    expect(bus.stderr).toContain("--bus needs the PostgreSQL store");
    const store = await runTandem(["serve", "--store", "postgres://u:secretpw@127.0.0.1:1/db"], { env });
    expect(store.code).toBe(2);
    expect(store.stderr).toContain("cannot open the Tandem store postgres://u:***@127.0.0.1:1/db");
    expect(store.stderr).not.toContain("secretpw");
  });
});

describe.skipIf(skip)("three nodes on PostgreSQL and NATS", () => {
  let pg: TestPostgres;
  let nats: TestNats;
  let mock: MockProcess | undefined;
  let nodes: Node[] = [];
  const streams: SseClient[] = [];
  let n = 0;
  /** How the last cluster's nodes were started, for a node that joins later. */
  let joinArgs: string[] = [];

  beforeAll(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), nats?.stop()]);
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    for (const node of nodes) if (node.proc.exitCode === null) node.proc.kill("SIGKILL");
    nodes = [];
    await mock?.stop();
  });

  /**
   * Starts nodes a, b, c; `via` gives a node other store and bus URLs (through a proxy) and
   * optionally its own lease TTL (default 1500 ms).
   */
  async function cluster(
    script: unknown,
    via: Record<string, (db: string) => { store: string; bus: string; ttlMs?: number }> = {},
    extra: string[] = [],
  ): Promise<Node[]> {
    mock = await startMockProcess(script);
    const dbName = `cluster_${++n}`;
    const db = pg.createDatabase(dbName);
    // One at a time: the first applies the schema; the others find it (concurrent starts are
    // safe too: migrations run under an advisory lock).
    joinArgs = [
      ...["--port", "0", "--token", TOKEN, "--responder", "--store", db, "--bus", nats.url],
      ...["-c", `openai_base_url="${mock.url}"`, ...extra],
    ];
    for (const name of ["a", "b", "c"]) {
      const { store, bus, ttlMs } = via[name]?.(dbName) ?? { store: db, bus: nats.url };
      const args = [
        ...["--port", "0", "--token", TOKEN, "--responder", "--store", store, "--bus", bus],
        ...["--node-id", name, "-c", `openai_base_url="${mock.url}"`, ...extra],
      ];
      nodes.push(await startNode(name, args, ttlMs));
    }
    return nodes;
  }

  async function startNode(name: string, args: string[], ttlMs = 1500): Promise<Node> {
    const run = await spawnServe(args, {
      TANDEM_HOME: tempDir(),
      OPENAI_API_KEY: "k",
      TANDEM_LEASE_TTL_MS: String(ttlMs),
    });
    const url = /listening on (\S+)/.exec(run.lines[0])![1];
    return { name, url, proc: run.proc, stderr: run.stderr };
  }

  /** A node that joins the last cluster now: it has seen none of the earlier events. */
  async function join(name: string): Promise<Node> {
    const node = await startNode(name, [...joinArgs, "--node-id", name]);
    nodes.push(node);
    return node;
  }

  async function post(
    node: Node,
    path: string,
    body: unknown,
  ): Promise<{ status: number; body: any; by?: string }> {
    const res = await fetch(`${node.url}${path}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json(), by: res.headers.get("x-tandem-node") ?? undefined };
  }
  async function get(node: Node, path: string): Promise<any> {
    return (await fetch(`${node.url}${path}`, { headers: auth })).json();
  }
  async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const pendingOn = (node: Node, threadId: string) => async () => {
    const qs = (await get(node, `/question?thread=${threadId}`)).questions as any[];
    return qs.length ? qs : undefined;
  };
  async function sse(node: Node, threadId: string, lastEventId?: string): Promise<SseClient> {
    const headers = lastEventId === undefined ? auth : { ...auth, "last-event-id": lastEventId };
    const s = await openSse(`${node.url}/event?thread=${threadId}`, headers);
    expect(s.status).toBe(200);
    streams.push(s);
    return s;
  }

  // fails if a reply posted to a node that does not own the thread is answered there (the
  // owner's broker never hears it, the turn never completes), or if events stay on the owner.
  it("a question asked on A is answered on B; the turn completes on A; C's SSE sees it all", async () => {
    const [a, b, c] = await cluster(askThenFinish("across-nodes"));
    const thread = await post(a, "/thread", { mode: "plan" });
    const id = thread.body.id as string;
    expect((await post(a, `/thread/${id}/turn`, { text: "go" })).status).toBe(202);
    const [q] = await waitFor("the question on B", pendingOn(b, id));
    // Opened late on purpose: Last-Event-ID 0 replays what C already received from A.
    const onC = await sse(c, id, "0");
    const reply = await post(b, `/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { name: "across-nodes" },
    });
    expect(reply.status).toBe(200);
    expect(reply.by).toBe("a"); // forwarded to the owner and answered with its result
    expect(reply.body.outcome.status).toBe("answered");
    const done = JSON.parse((await onC.next(isEvent("turn.completed"), 15_000)).data).event;
    expect(done.status).toBe("completed");
    expect(onC.events().some((s) => s.event.type === "question.requested")).toBe(true);
    // The model got the answer (the script's expect), through A: the final message is stored.
    const detail = await get(c, `/thread/${id}`);
    expect(JSON.stringify(detail.items)).toContain("named across-nodes");
    expect(readFileSync(mock!.log, "utf8")).toContain("across-nodes");
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toMatch(/tandem_forwards_total\{node="b"\} 1/);
  });

  // fails if a dead node's thread is never taken over, its question is asked again under a new
  // id (a client holding the old id could not answer), or the call gets two outputs.
  it("A is SIGKILLed with a question pending: B or C re-asks it with the same id and finishes", async () => {
    const [a, b, c] = await cluster(askThenFinish("after-failover"));
    const id = (await post(a, "/thread", { mode: "plan" })).body.id as string;
    await post(a, `/thread/${id}/turn`, { text: "go" });
    const [q] = await waitFor("the question", pendingOn(b, id));
    // From the log's start: the first ask must be in hand before the kill, or a late copy of it
    // could pass for the re-ask.
    const onB = await sse(b, id, "0");
    const asked = (e: any) => e.request.request_id === q.request_id;
    await onB.next(isEvent("question.requested", asked), 15_000);
    const killedAt = Date.now();
    a.proc.kill("SIGKILL");
    const reasked = JSON.parse(
      (await onB.next(nth(2, isEvent("question.requested", asked)), 20_000)).data,
    ).event;
    const failoverMs = Date.now() - killedAt;
    console.log(`[cluster] failover: SIGKILL to the question re-asked on another node in ${failoverMs} ms`);
    expect(reasked.request.request_id).toBe(q.request_id);
    for (const node of [b, c]) {
      const listed = await waitFor("the question listed", pendingOn(node, id));
      expect(listed.map((x) => x.request_id)).toEqual([q.request_id]);
    }
    // Answer through C with the OLD request id, whoever owns it now.
    const reply = await post(c, `/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { name: "after-failover" },
    });
    expect(reply.status).toBe(200);
    await onB.next(isEvent("turn.completed"), 15_000);
    const items = (await get(b, `/thread/${id}`)).items as any[];
    const outputs = items.filter((i) => i.type === "function_call_output" && i.call_id === "call_ask");
    expect(outputs).toHaveLength(1);
    expect(JSON.stringify(outputs[0])).toContain("after-failover");
  });

  // fails if a thread whose turn was working when its node died is left running forever (no
  // takeover without a pending question), its cut-off command gets no output or two, or the
  // turn is not continued from the stored history on the new owner.
  it("A is SIGKILLed mid-command: another node marks the command aborted and continues the turn", async () => {
    const script = runThenSay("sleep 6", "go on", "resumed fine");
    const unsandboxed = ["-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'];
    const [a, b, c] = await cluster(script, {}, unsandboxed);
    const id = (await post(a, "/thread", {})).body.id as string;
    expect((await post(a, `/thread/${id}/turn`, { text: "go on" })).status).toBe(202);
    const onB = await sse(b, id, "0"); // from the start: A may have begun the command already
    await onB.next(
      isEvent("item.started", (e) => e.item.type === "command_execution"),
      15_000,
    );
    const killedAt = Date.now();
    a.proc.kill("SIGKILL");
    const done = JSON.parse((await onB.next(isEvent("turn.completed"), 20_000)).data).event;
    console.log(
      `[cluster] failover of a working turn: SIGKILL to the turn completed elsewhere in ${Date.now() - killedAt} ms`,
    );
    expect(done.status).toBe("completed");
    const items = (await get(c, `/thread/${id}`)).items as any[];
    const outputs = items.filter((i) => i.type === "function_call_output" && i.call_id === "call_run");
    expect(outputs).toHaveLength(1);
    expect(JSON.stringify(outputs[0])).toContain("aborted");
    expect(JSON.stringify(items)).toContain("resumed fine");
    const took = [b, c].find((n) => n.stderr().includes(`took over thread ${id}: its turn goes on here`));
    expect(took).toBeDefined();
  });

  // fails if Last-Event-ID replays from one node's memory (a node that joined after the events
  // has none), ids differ between nodes, or a resume loses or repeats an event.
  it("Last-Event-ID resumes from the store on a node that joined after the events", async () => {
    const [a, b] = await cluster(askThenFinish("resumed-stream"));
    const id = (await post(a, "/thread", { mode: "plan" })).body.id as string;
    await post(a, `/thread/${id}/turn`, { text: "go" });
    const onA = await sse(a, id, "0");
    const asked = await onA.next(isEvent("question.requested"), 15_000);
    const [q] = await waitFor("the question", pendingOn(b, id));
    onA.close(); // the client goes away after the question, holding asked.id
    expect(Number(asked.id)).toBeGreaterThan(0);
    await post(b, `/question/${q.request_id}/reply`, { thread_id: id, text: { name: "resumed-stream" } });
    await waitFor("the turn to complete", async () =>
      JSON.stringify((await get(b, `/thread/${id}`)).items).includes("named resumed-stream")
        ? true
        : undefined,
    );
    const d = await join("d");
    const resumed = await sse(d, id, asked.id);
    await resumed.next(isEvent("turn.completed"), 15_000);
    const full = await sse(b, id, "0"); // everything, from the log, on another node
    const doneId = Number((await full.next(isEvent("turn.completed"), 15_000)).id);
    // Up to the turn's end (later events may still be on their way to one of the two streams).
    const ids = (c: SseClient) =>
      c.frames
        .filter((f) => f.id !== undefined)
        .map((f) => Number(f.id))
        .filter((x) => x <= doneId);
    const after = ids(full).filter((x) => x > Number(asked.id));
    expect(ids(resumed)).toEqual(after); // exactly what came after, in order, once each
    expect(after.length).toBeGreaterThan(2);
    const types = resumed.events().map((e) => e.event.type);
    expect(types).toContain("question.answered");
    expect(types).toContain("turn.completed");
    // The same event has the same id everywhere: the question as A sent it and as B replays it.
    const onB = full.frames.find((f) => f.id === asked.id);
    expect(JSON.parse(onB!.data).event).toEqual(JSON.parse(asked.data).event);
  });

  // The partition test: A loses NATS and PostgreSQL (both silent, not closed) with a
  // question pending; its lease lapses and another node takes the thread. When A comes back it
  // says it lost the lease, and a reply it is made to handle itself writes nothing.
  // fails if A's write lands after the takeover (no fencing), or A never notices.
  it("a partitioned owner loses its lease, and after it comes back it cannot write", async () => {
    const pgProxy = await startProxy(pg.port);
    const natsProxy = await startProxy(nats.port);
    try {
      const [a, b, c] = await cluster(askThenFinish("from-c"), {
        a: (db) => ({
          store: `postgres://postgres@127.0.0.1:${pgProxy.port}/${db}`,
          bus: `nats://127.0.0.1:${natsProxy.port}`,
        }),
      });
      const id = (await post(a, "/thread", { mode: "plan" })).body.id as string;
      await post(a, `/thread/${id}/turn`, { text: "go" });
      const [q] = await waitFor("the question", pendingOn(b, id));
      const onB = await sse(b, id, "0");
      const asked = (e: any) => e.request.request_id === q.request_id;
      await onB.next(isEvent("question.requested", asked), 15_000);
      const onA = await sse(a, id);
      pgProxy.pause();
      natsProxy.pause();
      await onB.next(nth(2, isEvent("question.requested", asked)), 20_000);
      pgProxy.resume();
      natsProxy.resume();
      await waitFor("A to say it lost the lease", async () =>
        a.stderr().includes(`lost the lease on thread ${id}`) ? true : undefined,
      );
      // A is made to handle a reply itself (as a forwarded request). Right after the heal its
      // store may still answer 503 store_unavailable (retry shortly), as a client would.
      const res = await waitFor<Response>("A's answer", async () => {
        const r = await fetch(`${a.url}/question/${q.request_id}/reply`, {
          method: "POST",
          headers: { ...json, "x-tandem-forwarded-by": "1" },
          body: JSON.stringify({ thread_id: id, text: { name: "from-a" } }),
        });
        if (r.status !== 503) return r;
        expect(((await r.json()) as any).error.code).toBe("store_unavailable");
        return undefined;
      });
      const body = (await res.json()) as any;
      expect(res.status).toBe(409);
      expect(body.error.code).toBe("lease_lost");
      expect(body.error.message).toContain(`lost the lease on thread ${id}`);
      // The new owner still asks; C's answer completes the turn; A's answer is nowhere.
      const reply = await post(c, `/question/${q.request_id}/reply`, {
        thread_id: id,
        text: { name: "from-c" },
      });
      expect(reply.status).toBe(200);
      await onB.next(isEvent("turn.completed"), 15_000);
      const items = (await get(b, `/thread/${id}`)).items as any[];
      const outputs = items.filter((i) => i.type === "function_call_output" && i.call_id === "call_ask");
      expect(outputs).toHaveLength(1);
      expect(JSON.stringify(items)).not.toContain("from-a");
      // A dropped its stale copy without a word: its own clients saw the new owner finish the
      // turn (over NATS) and never a cancel of the question that was still pending elsewhere.
      await onA.next(isEvent("turn.completed"), 15_000);
      const seenOnA = onA.events().map((e) => e.event);
      expect(seenOnA.some((e) => e.type === "question.cancelled")).toBe(false);
      expect(seenOnA.filter((e) => e.type === "turn.completed").map((e) => e.status)).toEqual(["completed"]);
      expect(await (await fetch(`${a.url}/metrics`)).text()).toMatch(
        /tandem_leases_lost_total\{node="a"\} 1/,
      );
    } finally {
      await pgProxy.close();
      await natsProxy.close();
    }
  });

  // Split brain: A is cut off from PostgreSQL (silence, not a reset; NATS still up) while its
  // command runs. Another node takes the thread once the lease lapses and continues the turn, so
  // A must have stopped the command by then or both nodes act on the workspace at once.
  // fails if A's command is alive when its lease lapses in the database (no self-fencing, or a
  // kill with a SIGTERM grace), or A never says why it stopped.
  it("an owner cut off from the store kills its running command before another node takes over", async () => {
    const dir = tempDir();
    const pidFile = join_(dir, "pid");
    // It ignores SIGTERM (inherited by `sleep`): only an immediate SIGKILL stops it in time.
    const cmd = `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.05; done`;
    const script = runThenSay(cmd, "keep going", "continued elsewhere");
    const pgProxy = await startProxy(pg.port);
    let dbName = "";
    try {
      const unsandboxed = ["-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'];
      // A's lease lasts 3 s: it self-fences at 3/4 of that, checking every twentieth.
      const viaProxy = (db: string) => {
        dbName = db;
        return { store: `postgres://postgres@127.0.0.1:${pgProxy.port}/${db}`, bus: nats.url, ttlMs: 3000 };
      };
      const [a, b, c] = await cluster(script, { a: viaProxy }, unsandboxed);
      const id = (await post(a, "/thread", {})).body.id as string;
      expect((await post(a, `/thread/${id}/turn`, { text: "keep going" })).status).toBe(202);
      const pid = await waitFor("the command's pid", async () => {
        const text = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : "";
        return /^\d+$/.test(text) ? Number(text) : undefined;
      });
      expect(isAlive(pid)).toBe(true);
      const lease = new pgClient.Client({
        connectionString: `postgres://postgres@127.0.0.1:${pg.port}/${dbName}`,
      });
      await lease.connect();
      pgProxy.pause();
      try {
        // The moment the lease lapses in the database (another node may take the thread from
        // then on), A's command must already be dead.
        for (;;) {
          const { rows } = await lease.query(
            "SELECT expires_at < (extract(epoch from clock_timestamp()) * 1000)::bigint AS lapsed FROM thread_leases WHERE thread_id = $1",
            [id],
          );
          if (!rows.length || rows[0].lapsed) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        expect(isAlive(pid), `A's command outlived its lease; A said: ${a.stderr()}`).toBe(false);
      } finally {
        await lease.end();
      }
      const tookOver = (n: Node) => n.stderr().includes(`took over thread ${id}`);
      const taker = await waitFor(
        "another node to take the thread",
        async () => [b, c].find(tookOver),
        20_000,
      );
      expect(a.stderr()).toContain(`lost the lease on thread ${id}: the store did not confirm it`);
      pgProxy.resume();
      const done = await waitFor("the turn to complete on the new owner", async () => {
        const items = (await get(taker, `/thread/${id}`)).items as any[];
        return JSON.stringify(items).includes("continued elsewhere") ? items : undefined;
      });
      const outputs = done.filter((i) => i.type === "function_call_output" && i.call_id === "call_run");
      expect(outputs).toHaveLength(1);
      expect(JSON.stringify(outputs[0])).toContain("aborted");
    } finally {
      await pgProxy.close();
    }
  });

  // fails if SIGTERM keeps the lease until it lapses (no handover) or cancels the question
  // (it must stay pending for the next owner), or the node does not exit 143 (SIGTERM).
  it("SIGTERM drains A: it exits 143 and another node re-asks its question at once", async () => {
    const [a, b] = await cluster(askThenFinish("after-drain"));
    const id = (await post(a, "/thread", { mode: "plan" })).body.id as string;
    await post(a, `/thread/${id}/turn`, { text: "go" });
    const [q] = await waitFor("the question", pendingOn(b, id));
    const onB = await sse(b, id, "0");
    const asked = (e: any) => e.request.request_id === q.request_id;
    await onB.next(isEvent("question.requested", asked), 15_000);
    const exited = new Promise<number | null>((r) => a.proc.once("exit", (code) => r(code)));
    const t0 = Date.now();
    a.proc.kill("SIGTERM");
    expect(await exited).toBe(143);
    await onB.next(nth(2, isEvent("question.requested", asked)), 10_000);
    console.log(`[cluster] drain: SIGTERM to the question re-asked elsewhere in ${Date.now() - t0} ms`);
    const reply = await post(b, `/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { name: "after-drain" },
    });
    expect(reply.status).toBe(200);
    await onB.next(isEvent("turn.completed"), 15_000);
  });

  // fails if a node starts serving without the bus it was told to join.
  it("an unreachable --bus exits 1 naming it", async () => {
    const db = pg.createDatabase(`cluster_${++n}`);
    const r = await runTandem(["serve", "--token", TOKEN, "--store", db, "--bus", "nats://127.0.0.1:1"], {
      env: { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot connect to NATS at nats://127.0.0.1:1");
  });

  // fails if /readyz says ready while NATS is down, or /healthz needs a token.
  it("health, readiness and metrics", async () => {
    const [a] = await cluster(askThenFinish("x"));
    expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${a.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, node: "a" });
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toContain('tandem_threads_owned{node="a"} 0');
    // A hand-over request with a body that names no node is refused before anything moves.
    for (const [body, code] of [
      ["{not json", "malformed_json"],
      ['{"to": "a b"}', "invalid_body"],
      ['{"to": 7}', "invalid_body"],
    ]) {
      const res = await fetch(`${a.url}/thread/any/handover`, { method: "POST", headers: json, body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.code).toBe(code);
    }
  });
});
