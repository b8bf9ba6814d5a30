/**
 * Cluster nodes for tests (docs/scale-out.md): real `tandem serve` processes on a shared
 * PostgreSQL database and nats-server (test/helpers/infra/), each with its own TANDEM_HOME,
 * against one scripted model process. `post`/`get` send the token; `waitFor` polls a condition
 * with a bound and names what it awaited.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type MockProcess, spawnServe, startMockProcess } from "./cli.js";
import { tempDir } from "./index.js";
import { startNats, type TestNats } from "./infra/nats.js";
import { startPostgres, type TestPostgres } from "./infra/postgres.js";
import { sql } from "./pg-rig.js";

export const CLUSTER_TOKEN = "cluster-token-0123";

export interface ServeNode {
  name: string;
  url: string;
  proc: ChildProcess;
  stderr: () => string;
  post(path: string, body: unknown): Promise<{ status: number; body: any; by?: string }>;
  get(path: string): Promise<any>;
  stop(): void;
}

/**
 * Starts `tandem serve --node-id NAME` on `db` and `bus` (its bus flags in `busArgs`, env in
 * `env`: bus secrets), with the cluster token and a lease TTL of `ttlMs` (default 3000).
 */
export async function startServeNode(
  name: string,
  opts: {
    db: string;
    bus: string;
    mock: MockProcess;
    token?: string;
    ttlMs?: number;
    busArgs?: string[];
    env?: Record<string, string>;
  },
): Promise<ServeNode> {
  const token = opts.token ?? CLUSTER_TOKEN;
  const run = await spawnServe(
    [
      ...["--port", "0", "--token", token, "--responder", "--store", opts.db, "--bus", opts.bus],
      ...["--node-id", name, "-c", `openai_base_url="${opts.mock.url}"`, ...(opts.busArgs ?? [])],
    ],
    {
      TANDEM_HOME: tempDir(),
      OPENAI_API_KEY: "k",
      TANDEM_LEASE_TTL_MS: String(opts.ttlMs ?? 3000),
      ...opts.env,
    },
  );
  const url = /listening on (\S+)/.exec(run.lines[0])![1];
  const auth = { authorization: `Bearer ${token}` };
  return {
    name,
    url,
    proc: run.proc,
    stderr: run.stderr,
    async post(path, body) {
      const res = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        body: await res.json(),
        by: res.headers.get("x-tandem-node") ?? undefined,
      };
    },
    async get(path) {
      return (await fetch(`${url}${path}`, { headers: auth })).json();
    },
    stop() {
      if (run.proc.exitCode === null) run.proc.kill("SIGKILL");
    },
  };
}

/** Polls `fn` until it returns something other than undefined; throws naming `what` after `ms`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A scripted model that asks one question, then says `named <answer>` once it has the answer. */
export function askThenFinish(answer: string) {
  return {
    steps: [
      {
        output: [
          {
            type: "function_call",
            call_id: "call_ask",
            name: "request_user_input",
            arguments: { questions: [{ id: "name", header: "Name", question: "What should it be called?" }] },
          },
        ],
      },
      { expect: { input_contains: [answer] }, output: [{ type: "message", text: `named ${answer}` }] },
    ],
  };
}

export interface ClusterRig {
  readonly pg: TestPostgres;
  readonly nats: TestNats;
  /** Nodes started for the current test (stopped after it). */
  readonly nodes: ServeNode[];
  /** Starts the scripted model for the current test (stopped after it). */
  mock(script: unknown): Promise<MockProcess>;
  /** Runs `fn` after the current test, before its nodes stop. */
  defer(fn: () => unknown): void;
}

/**
 * PostgreSQL and nats-server for one test file, and per test its scripted model, nodes and
 * whatever `defer` was given, cleaned up after it. Call in a `describe`.
 */
export function clusterRig(): ClusterRig {
  let pg: TestPostgres | undefined;
  let nats: TestNats | undefined;
  let mock: MockProcess | undefined;
  const nodes: ServeNode[] = [];
  const cleanup: Array<() => unknown> = [];
  beforeAll(async () => {
    [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), nats?.stop()]);
  });
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
    for (const node of nodes.splice(0)) node.stop();
    await mock?.stop();
    mock = undefined;
  });
  return {
    get pg() {
      return pg!;
    },
    get nats() {
      return nats!;
    },
    nodes,
    async mock(script) {
      mock = await startMockProcess(script);
      return mock;
    },
    defer: (fn) => void cleanup.push(fn),
  };
}

/**
 * Moves thread `threadId`'s lease to node `to` behind its holder's back, as a takeover does: the
 * generation moves on and the lease is reserved for `to` (a hand-over's token, so the real node
 * `to` may open the thread). The old holder learns of it only at its next renewal.
 */
export async function moveLeaseBehindOwner(db: string, threadId: string, to: string): Promise<void> {
  await sql(
    db,
    "WITH t AS (UPDATE threads SET lease_generation = lease_generation + 1 WHERE id = $1 RETURNING lease_generation) " +
      "UPDATE thread_leases SET node = $2, token = 'handover:' || $2, generation = (SELECT lease_generation FROM t), " +
      "expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + 60000 WHERE thread_id = $1",
    [threadId, to],
  );
}
