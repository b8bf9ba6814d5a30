/**
 * Core benchmarks: loop overhead per tool round trip, request build at 1k/10k items, cold
 * start, question round trip in process, and 10,000 pending questions.
 */
import { spawnSync } from "node:child_process";
import { setMaxListeners } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { normalizeForPrompt } from "../src/agent/history.js";
import { loadConfig, resolveProvider } from "../src/config/load.js";
import { buildResponsesBody } from "../src/model/request.js";
import { createResponsesClient } from "../src/model/responses.js";
import { createResponsesWsClient } from "../src/model/responses-ws.js";
import type { ModelClient, ModelEvent } from "../src/model/types.js";
import type { ResponseItem } from "../src/protocol/items.js";
import type { QuestionRequest } from "../src/protocol/questions.js";
import { createBroker } from "../src/questions/broker.js";
import { Runtime } from "../src/runtime/core.js";
import { threadInternals } from "../src/runtime/internals.testing.js";
import { openStore } from "../src/store/index.js";
import { createBus } from "../src/util/bus.js";
import { startMockProcess } from "../test/helpers/cli.js";
import { roundTripFloor } from "./floor.js";
import { fmt, line, median, quantile } from "./stats.js";

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));

export function runtimeFor(
  model: ModelClient,
  baseUrl = "http://127.0.0.1:1/v1",
  extra: string[] = [],
): Runtime {
  const home = tmp("tandem-bench-");
  const { settings } = loadConfig({
    home,
    overrides: ["include_environment_context=false", "include_agents_md=false", ...extra],
  });
  return new Runtime({
    settings,
    store: openStore(join(home, "state.db")),
    model,
    provider: resolveProvider(settings, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: baseUrl }),
  });
}

const wallRe = /Wall time: (\d+\.\d+) seconds/;

/**
 * Loop overhead over real HTTP (or WebSocket) against the scripted model in its own process:
 * the time between consecutive sampling requests minus the tool-execution window (spawning
 * and running `true`). That gap holds the model's own time too (the mock parsing the request
 * and writing its answer, and both trips through the kernel), so it is split:
 *   model time   = request written to the socket → its answer starting to arrive (HTTP
 *                  response head / first WebSocket frame), before Tandem parses any of it;
 *   Tandem share = the gap minus model time: parsing the stream, recording, dispatching,
 *                  building and serialising the next request. The targets apply to this part.
 * The floor line is the same body size round-tripped by bare node:http (or ws) to a server
 * that only parses it: what any client in this language pays for the model's part here.
 */
export async function loopOverheadHttp(
  rounds = 250,
  wire: "http" | "websocket" = "http",
  make?: (o: {
    baseUrl: string;
    apiKey: string;
    onRequest: () => void;
    onSent: () => void;
    onResponse: () => void;
  }) => ModelClient,
): Promise<void> {
  const steps = Array.from({ length: rounds }, (_, i) => ({
    output: [
      { type: "function_call" as const, name: "exec_command", arguments: { cmd: "true" }, call_id: `c${i}` },
    ],
  }));
  steps.push({ output: [{ type: "message", text: "done" }] } as any);
  // The scripted model runs in its own process, as in real use (`tandem mock-model`).
  const mock = await startMockProcess({ steps }, { log: false });
  // One record per request written; a resent request (a retry) would add one, and is reported.
  const reqs: Array<{ at: number; sent?: number; response?: number }> = [];
  const clientOpts = {
    baseUrl: mock.url,
    apiKey: "k",
    onRequest: () => reqs.push({ at: performance.now() }),
    onSent: () => {
      const r = reqs.at(-1);
      if (r) r.sent ??= performance.now();
    },
    onResponse: () => {
      const r = reqs.at(-1);
      if (r) r.response ??= performance.now();
    },
  };
  const client = make
    ? make(clientOpts)
    : wire === "http"
      ? createResponsesClient(clientOpts)
      : createResponsesWsClient(clientOpts);
  // The tool runs unsandboxed: the sandbox's own cost is its own line (sandboxCost), and the
  // kernel tearing down its namespaces after each command would add noise to this one.
  const rt = runtimeFor(client, mock.url, ['sandbox_mode="danger-full-access"']);
  const toolStart = new Map<string, number>();
  const toolWindow: number[] = [];
  rt.subscribe((s) => {
    const e = s.event;
    if (e.type === "item.started" && e.item.type === "command_execution")
      toolStart.set(e.item.id, performance.now());
    if (e.type === "item.completed" && e.item.type === "command_execution")
      toolWindow.push(performance.now() - (toolStart.get(e.item.id) ?? 0));
  });
  const thread = rt.threads.start({ cwd: tmp("tandem-bench-cwd-") });
  const cpu0 = process.cpuUsage();
  await thread.startTurn("go").done;
  const cpu = process.cpuUsage(cpu0);
  const outputs = thread.items().filter((i) => i.type === "function_call_output") as Array<{
    output: string;
  }>;
  const walls = outputs.map((o) => Number(wallRe.exec(o.output)?.[1] ?? 0) * 1000);
  const per: number[] = [];
  const model: number[] = [];
  for (let i = 1; i < reqs.length; i++) {
    per.push(reqs[i].at - reqs[i - 1].at - toolWindow[i - 1]);
    model.push((reqs[i - 1].response ?? Number.NaN) - (reqs[i - 1].sent ?? Number.NaN));
  }
  if (reqs.length !== rounds + 1)
    line(
      "  WARNING: requests resent; the figures below mix rounds",
      `${reqs.length} requests for ${rounds + 1}`,
    );
  const share = per.map((p, i) => p - model[i]);
  const name = wire === "http" ? "HTTP" : "WebSocket";
  const warm = (xs: number[]) => xs.slice(10); // warm-up
  line(
    `loop overhead / tool round trip, ${name}: Tandem's share (n=${warm(share).length})`,
    `p50 ${fmt(median(warm(share)))} p90 ${fmt(quantile(warm(share), 0.9))}`,
    wire === "http" ? "< 2 ms" : "< 1 ms",
  );
  line(
    "  whole gap between requests / of which the scripted model's time",
    `p50 ${fmt(median(warm(per)))} / ${fmt(median(warm(model)))}`,
  );
  line(
    "  floor: same body size round-tripped by bare node, p50",
    fmt(await roundTripFloor(wire, reqs.length)),
  );
  // CPU of this process per round trip (loop, client, spawning the tool; not the mock's): less
  // sensitive to a busy machine, where the wall figures above mostly measure scheduling.
  line("  Tandem CPU per round trip, spawn included", fmt((cpu.user + cpu.system) / 1000 / reqs.length));
  const dispatch = toolWindow.map((w, i) => w - walls[i]).slice(10);
  line(
    "  tool window: spawn+run `true` (wall) / dispatch around it",
    `${fmt(median(walls))} / ${fmt(median(dispatch))}`,
  );
  await rt.shutdown();
  (client as { close?: () => void }).close?.();
  await mock.stop();
}

/** The same loop with an in-process model client: Tandem's own share of a round trip. */
export async function loopOverheadInProcess(rounds = 500): Promise<void> {
  let n = 0;
  const stamps: number[] = [];
  const model: ModelClient = {
    async *stream(): AsyncIterable<ModelEvent> {
      stamps.push(performance.now());
      n++;
      if (n > rounds) {
        yield {
          type: "item_done",
          item: { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] },
        };
      } else {
        yield {
          type: "item_done",
          item: { type: "function_call", name: "noop", arguments: "{}", call_id: `c${n}` },
        };
      }
      yield { type: "completed" };
    },
  };
  const rt = runtimeFor(model);
  const thread = rt.threads.start({ cwd: tmp("tandem-bench-cwd-") });
  const { z } = await import("zod");
  threadInternals(rt, thread.id).registry.register({
    kind: "function",
    name: "noop",
    description: "no-op",
    parameters: z.object({}),
    execute: async () => ({ output: "ok", success: true }),
  });
  await thread.startTurn("go").done;
  const per = stamps
    .slice(1)
    .map((t, i) => t - stamps[i])
    .slice(20);
  line(
    `loop overhead / tool round trip, in-process model (n=${per.length})`,
    `p50 ${fmt(median(per))} p90 ${fmt(quantile(per, 0.9))}`,
  );
  await rt.shutdown();
}

function history(n: number): ResponseItem[] {
  const items: ResponseItem[] = [];
  for (let i = 0; items.length < n; i++) {
    items.push({
      type: "function_call",
      id: `fc_${i}`,
      name: "exec_command",
      arguments: `{"cmd":"cat file_${i}.txt","yield_time_ms":1000}`,
      call_id: `call_${i}`,
    });
    items.push({
      type: "function_call_output",
      call_id: `call_${i}`,
      output: `Chunk ID: ab12cd\nWall time: 0.0030 seconds\nProcess exited with code 0\nOutput:\n${"line of output ".repeat(8)}`,
    });
    items.push({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: `Step ${i} done; moving on to the next file.` }],
    });
  }
  return items.slice(0, n);
}

export function requestBuild(): void {
  for (const n of [1_000, 10_000]) {
    const items = history(n);
    const times: number[] = [];
    let bytes = 0;
    for (let r = 0; r < 30; r++) {
      const t0 = performance.now();
      const body = buildResponsesBody({
        model: "gpt-5.2-codex",
        input: normalizeForPrompt(items),
        tools: [],
        parallelToolCalls: true,
        baseInstructions: { text: "base" },
        effort: "medium",
        promptCacheKey: "s",
        clientMetadata: { session_id: "s" },
      });
      bytes = JSON.stringify(body).length;
      times.push(performance.now() - t0);
    }
    line(
      `request build + serialise, ${n.toLocaleString()} items (${(bytes / 1e6).toFixed(1)} MB)`,
      `p50 ${fmt(median(times.slice(5)))}`,
      n === 10_000 ? "< 20 ms" : undefined,
    );
  }
}

export function coldStart(): void {
  const bin = resolve(import.meta.dirname, "../bin/tandem");
  const run = (cmd: string, args: string[]) => {
    const t: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      spawnSync(cmd, args, { stdio: "ignore" });
      t.push(performance.now() - t0);
    }
    return median(t.slice(1));
  };
  const node = run(process.execPath, ["-e", "0"]);
  const tandem = run(bin, ["--version"]);
  line("cold start `tandem --version` (median of 20)", `${fmt(tandem)} (bare node: ${fmt(node)})`, "< 80 ms");
}

function request(i: number, thread: string): QuestionRequest {
  return {
    request_id: `r${i}`,
    thread_id: thread,
    turn_id: "t",
    call_id: `c${i}`,
    source: "model",
    questions: [
      {
        id: "q",
        header: "Q",
        prompt: "Pick",
        kind: "single",
        options: [
          { label: "A", description: "" },
          { label: "B", description: "" },
        ],
        allow_other: true,
        secret: false,
      },
    ],
    policy: { type: "wait" },
    deadline: null,
    created_at: Date.now(),
  };
}

export async function questionRoundTrip(n = 20_000): Promise<void> {
  const broker = createBroker({ bus: createBus({ replay: 100 }) });
  const ctrl = new AbortController();
  setMaxListeners(0, ctrl.signal);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const p = broker.ask(request(i, "th"), ctrl.signal);
    broker.reply("th", `r${i}`, { answers: { q: { selected: ["A"] } } }, { kind: "bench" });
    await p;
    times.push(performance.now() - t0);
  }
  const warm = times.slice(1000);
  line(
    `question round trip in-process (n=${warm.length})`,
    `p50 ${fmt(median(warm))} p99 ${fmt(quantile(warm, 0.99))}`,
    "p50 < 0.1 ms",
  );
}

export async function manyPending(): Promise<void> {
  const broker = createBroker({ bus: createBus({ replay: 1000 }) });
  const ctrl = new AbortController();
  setMaxListeners(0, ctrl.signal);
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const asks: Promise<unknown>[] = [];
  for (let i = 0; i < 10_000; i++) asks.push(broker.ask(request(i, `thread_${i % 1000}`), ctrl.signal));
  global.gc?.();
  const during = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  for (let i = 0; i < 10_000; i++)
    broker.reply(`thread_${i % 1000}`, `r${i}`, { answers: { q: { selected: ["B"] } } }, { kind: "bench" });
  await Promise.all(asks);
  const secs = (performance.now() - t0) / 1000;
  global.gc?.();
  const after = process.memoryUsage().heapUsed;
  line(
    "10,000 pending questions / 1,000 threads: extra heap",
    `${((during - before) / 1e6).toFixed(1)} MB (after settle: ${((after - before) / 1e6).toFixed(1)} MB)`,
    "< 100 MB",
  );
  line(
    "10,000 pending questions: replies/s",
    `${Math.round(10_000 / secs).toLocaleString()}/s`,
    "> 20,000/s",
  );
}

/**
 * Sandbox start-up cost per command: `true` through exec_command, hardened bwrap vs none;
 * then what the hardening itself costs (user namespace, cap drop, IPC namespace, seccomp
 * filter) against plain bwrap with the same mounts, through spawnProcess. Variants are
 * interleaved so a busy machine weighs on each alike.
 */
export async function sandboxCost(n = 60): Promise<void> {
  const { createExecTools, ExecSessions } = await import("../src/tools/exec/index.js");
  const { makeCtx, scratchDir } = await import("../src/tools/exec/test-helpers.js");
  const { findBwrap, sandboxWrap } = await import("../src/tools/exec/sandbox.js");
  const { spawnProcess } = await import("../src/tools/exec/process.js");
  const tools = createExecTools({ sessions: new ExecSessions() });
  const cwd = scratchDir();
  const viaTool = (mode: "workspace-write" | "danger-full-access") => async () => {
    const ctx = makeCtx({
      cwd,
      safety: {
        sandbox: { mode, writableRoots: [], network: false, protectedPaths: [] },
        approvalPolicy: "never",
        requestApproval: async () => "decline",
      },
    });
    await tools.execCommand.execute({ cmd: "true" }, ctx);
  };
  const viaSpawn = (wrap: string[]) => async () => {
    const env = process.env as Record<string, string>;
    const p = await spawnProcess({ command: "true", shell: "/bin/sh", cwd, env, tty: false, wrap });
    await p.exited;
  };
  const interleaved = async (runs: Record<string, () => Promise<void>>) => {
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
    for (let i = 0; i < n; i++) {
      for (const [name, run] of Object.entries(runs)) {
        const t0 = performance.now();
        await run();
        if (i >= 5) times[name].push(performance.now() - t0);
      }
    }
    return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  };
  if (!findBwrap()) {
    const t = await interleaved({ none: viaTool("danger-full-access") });
    line("exec `true`: no sandbox (bwrap not installed)", fmt(t.none));
    return;
  }
  const t = await interleaved({ bwrap: viaTool("workspace-write"), none: viaTool("danger-full-access") });
  line("exec `true`: bwrap workspace-write vs no sandbox", `${fmt(t.bwrap)} vs ${fmt(t.none)}`);

  const policy = { mode: "workspace-write" as const, writableRoots: [], network: false };
  const hardened = (sandboxWrap(policy, cwd) as { wrap: string[] }).wrap;
  // Plain bwrap: the same mounts and namespaces without the hardening flags (and their values).
  const flags = new Set(["--unshare-user", "--disable-userns", "--unshare-ipc"]);
  const valued = new Set(["--cap-drop", "--seccomp"]);
  const plain = hardened
    .slice(4) // the fd-3 trampoline
    .filter((a, i, all) => !flags.has(a) && !valued.has(a) && !valued.has(all[i - 1]));
  const h = await interleaved({ hardened: viaSpawn(hardened), plain: viaSpawn(plain) });
  line(
    "sandbox hardening (userns, no caps, seccomp) per command",
    `+${fmt(h.hardened - h.plain)} (${fmt(h.hardened)} vs plain bwrap ${fmt(h.plain)})`,
    "≤ 2 ms",
  );
}

export async function patchApply(): Promise<void> {
  const { benchPatch } = await import("../src/tools/patch/bench.js");
  benchPatch();
  const runs = Array.from({ length: 10 }, () => benchPatch().ms);
  line("apply_patch: 20 hunks on a 10,000-line file", `p50 ${fmt(median(runs))}`);
}
