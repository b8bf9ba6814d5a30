/**
 * Scale-out figures (docs/scale-out.md), printed by `npm run bench` (or alone:
 * `node --import tsx bench/cluster.ts`): the store bridge's cost per call (SQLite vs
 * PostgreSQL), a question round trip across nodes, N concurrent threads with a pending question
 * across three nodes (RSS per node, reply throughput, CPU per reply) — twice: a first burst that
 * meets code V8 has not optimised yet, and a second of a warm cluster — and failover time from SIGKILL to the
 * question asked again. Real postgres and nats-server in temp dirs (test/infra); three real
 * `./bin/tandem serve` processes (run `npm run build` first). `TANDEM_BENCH_THREADS` sets N
 * (default 1000). Skipped, with the reason, where postgres or nats-server is absent.
 */
import { readFileSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/store/index.js";
import { spawnServe, startMockProcess } from "../test/helpers/cli.js";
import { isEvent, nth, openSse } from "../test/helpers/http.js";
import { tempDir } from "../test/helpers/index.js";
import { startNats } from "../test/helpers/infra/nats.js";
import { startPostgres } from "../test/helpers/infra/postgres.js";
import { hasTool } from "../test/helpers/system-tools.js";
import { snapshot, spentMs } from "./proc-cpu.js";
import { fmt, line, median, quantile } from "./stats.js";

const TOKEN = "bench-token-0123";
const json = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const ask = {
  output: [
    {
      type: "function_call",
      call_id: "call_ask",
      name: "request_user_input",
      arguments: { questions: [{ id: "name", header: "Name", question: "Name?" }] },
    },
  ],
};
const done = { output: [{ type: "message", text: "done" }] };

function storeCalls(target: string, label: string): void {
  const s = openStore(target);
  s.createThread({
    id: "b",
    session_id: "b",
    parent_id: null,
    created_at: 1,
    updated_at: 1,
    cwd: "/",
    model: "m",
    mode: "default",
    title: "",
    status: "idle",
    settings: {},
  });
  const time = (fn: () => void) => {
    const t: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t0 = performance.now();
      fn();
      t.push(performance.now() - t0);
    }
    return t;
  };
  const reads = time(() => s.getThread("b"));
  const appends = time(() =>
    s.appendItem("b", null, { type: "message", role: "user", content: [{ type: "input_text", text: "x" }] }),
  );
  line(
    `store ${label}: getThread / appendItem (n=2000 each)`,
    `p50 ${fmt(median(reads))} / ${fmt(median(appends))}`,
  );
  s.close();
}

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

export async function clusterBench(): Promise<void> {
  if (!hasTool("postgres") || !hasTool("nats-server")) {
    line("scale-out", "skipped: needs postgresql and nats-server (apt-get install)");
    return;
  }
  const n = Number(process.env.TANDEM_BENCH_THREADS) || 1000;
  const [pg, nats] = await Promise.all([startPostgres(), startNats()]);
  const dir = tempDir("tandem-bench-cluster-");
  const procs: Array<{ kill(s: string): void }> = [];
  try {
    storeCalls(join(dir, "state.db"), "SQLite");
    storeCalls(pg.createDatabase("bench_store"), "PostgreSQL (worker bridge)");

    // Round trips: K sequential questions, each [ask, done]; then N asks, then N dones.
    const K = 20;
    // Two bursts of N: the first meets code V8 has not optimised yet, the second a warm node.
    const steps = [
      ...Array.from({ length: K }, () => [ask, done]).flat(),
      ...[1, 2].flatMap(() => [...Array(n).fill(ask), ...Array(n).fill(done)]),
    ];
    const mock = await startMockProcess({ steps: [...steps, ask] }, { log: false });
    procs.push({ kill: () => void mock.stop() });
    const db = pg.createDatabase("bench_cluster");
    const nodes: Array<{ url: string; pid: number; kill(s: string): void }> = [];
    for (const name of ["a", "b", "c"]) {
      const run = await spawnServe(
        [
          ...[
            "--port",
            "0",
            "--token",
            TOKEN,
            "--responder",
            "--store",
            db,
            "--bus",
            nats.url,
            "--node-id",
            name,
          ],
          ...["-c", `openai_base_url="${mock.url}"`],
          // N parked questions over three nodes: past the default per-process cap (README
          // "Limits on questions"), which would refuse them.
          ...["-c", `questions.max_pending=${n}`],
        ],
        { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k" },
      );
      procs.push(run.proc as never);
      nodes.push({
        url: /listening on (\S+)/.exec(run.lines[0])![1],
        pid: run.proc.pid!,
        kill: (s) => run.proc.kill(s as never),
      });
    }
    const [a, b] = nodes;
    const post = async (url: string, body: unknown) =>
      (
        await fetch(url, { method: "POST", headers: json, body: JSON.stringify(body) })
      ).json() as Promise<any>;
    const waitQuestion = async (node: string, id: string) => {
      for (;;) {
        const qs = ((await (await fetch(`${node}/question?thread=${id}`, { headers: json })).json()) as any)
          .questions;
        if (qs.length) return qs[0];
        await new Promise((r) => setTimeout(r, 5));
      }
    };

    const trips: number[] = [];
    for (let i = 0; i < K; i++) {
      const id = (await post(`${a.url}/thread`, { mode: "plan" })).id;
      const sse = await openSse(`${a.url}/event?thread=${id}`, json);
      await post(`${a.url}/thread/${id}/turn`, { text: "go" });
      const q = await waitQuestion(b.url, id);
      const t0 = performance.now();
      await post(`${b.url}/question/${q.request_id}/reply`, { thread_id: id, text: { name: "x" } });
      trips.push(performance.now() - t0);
      await sse.next(isEvent("turn.completed"), 20_000);
      sse.close();
    }
    line(
      `question reply posted to B, owner A (n=${K})`,
      `p50 ${fmt(median(trips))} p99 ${fmt(quantile(trips, 0.99))}`,
      "p50 ≤ 5 ms",
    );

    // N threads, a pending question each, spread over the three nodes; then every question
    // answered, 50 replies in flight, posted round-robin.
    const burst = async (round: string) => {
      const ids: string[] = [];
      const t0 = performance.now();
      for (let i = 0; i < n; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, n - i) }, async (_, k) => {
            const node = nodes[(i + k) % 3];
            const id = (await post(`${node.url}/thread`, { mode: "plan" })).id;
            await post(`${node.url}/thread/${id}/turn`, { text: "go" });
            ids.push(id);
          }),
        );
      }
      let pending = 0;
      const deadline = Date.now() + 180_000;
      while (pending < n) {
        if (Date.now() > deadline)
          throw new Error(
            `cluster bench: only ${pending} of ${n} questions pending after 180 s (node a's GET /question)`,
          );
        await new Promise((r) => setTimeout(r, 200));
        pending = ((await (await fetch(`${a.url}/question`, { headers: json })).json()) as any).questions
          .length;
      }
      line(
        `${round}: ${n} threads with a pending question over 3 nodes, setup`,
        `${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      line(
        "  RSS per node (a, b, c) with them pending",
        nodes.map((x) => `${rss(x.pid).toFixed(0)} MB`).join(", "),
      );
      const questions = ((await (await fetch(`${a.url}/question`, { headers: json })).json()) as any)
        .questions as any[];
      const cpu0 = snapshot();
      const t1 = performance.now();
      for (let i = 0; i < questions.length; i += 50) {
        await Promise.all(
          questions.slice(i, i + 50).map((q, k) =>
            // Posted round-robin: two thirds land on a node that does not own the thread.
            post(`${nodes[(i + k) % 3].url}/question/${q.request_id}/reply`, {
              thread_id: q.thread_id,
              text: { name: "y" },
            }),
          ),
        );
      }
      const secs = (performance.now() - t1) / 1000;
      const cpu1 = snapshot();
      line(
        `  replies to ${questions.length} questions, any node, 50 at a time`,
        `${Math.round(questions.length / secs)} replies/s`,
        "≥ 1,000/s",
      );
      // Each reply also runs the rest of its turn (a model request, the turn's end). Where its CPU
      // goes, and what this machine's cores could answer at that cost if nothing else ran.
      const nodePids = new Set(nodes.map((x) => x.pid));
      const per = (pick: (pid: number, comm: string) => boolean) =>
        spentMs(cpu0, cpu1, pick) / questions.length;
      const parts = {
        nodes: per((pid) => nodePids.has(pid)),
        PostgreSQL: per((_, comm) => comm === "postgres"),
        "nats-server": per((_, comm) => comm === "nats-server"),
        "scripted model": per((pid) => pid === mock.proc.pid),
        "this client": per((pid) => pid === process.pid),
      };
      const total = Object.values(parts).reduce((a, b) => a + b, 0);
      line(
        "  CPU per reply (its turn's end included)",
        `${Object.entries(parts)
          .map(([k, v]) => `${k} ${v.toFixed(2)} ms`)
          .join(", ")}; ${total.toFixed(2)} ms in all`,
      );
      line(
        `  ceiling on ${availableParallelism()} cores at that cost`,
        `${Math.round((availableParallelism() * 1000) / total)} replies/s`,
      );
    };
    await burst("first burst (cold)");
    // The turns of the first burst end (their model requests come before the second's asks).
    while (((await (await fetch(`${a.url}/question`, { headers: json })).json()) as any).questions.length)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    await burst("second burst (warm)");

    // Failover: SIGKILL the owner of a thread with a pending question (default 5 s lease).
    const id = (await post(`${a.url}/thread`, { mode: "plan" })).id;
    await post(`${a.url}/thread/${id}/turn`, { text: "go" });
    const q = await waitQuestion(b.url, id);
    // From the log's start: the first ask in hand before the kill (a late copy is no re-ask).
    const sse = await openSse(`${b.url}/event?thread=${id}&since=0`, json);
    const asked = (e: any) => e.request.request_id === q.request_id;
    await sse.next(isEvent("question.requested", asked), 30_000);
    const k0 = performance.now();
    a.kill("SIGKILL");
    await sse.next(nth(2, isEvent("question.requested", asked)), 30_000);
    line(
      "failover: SIGKILL of the owner to the question re-asked",
      `${((performance.now() - k0) / 1000).toFixed(2)} s`,
      "a few seconds (lease 5 s)",
    );
    sse.close();
  } finally {
    for (const p of procs) p.kill("SIGKILL");
    await Promise.all([pg.stop(), nats.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await clusterBench();
