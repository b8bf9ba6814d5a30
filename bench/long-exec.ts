/**
 * A long session as a user runs it (issue 30 item 4): `tandem exec` of one turn with `rounds`
 * tool round trips whose outputs are `outputBytes` each, against `tandem mock-model` in its own
 * process, through a timing proxy in this one. Tandem's own cost per round trip is the time from
 * the end of a model response to the arrival of the next request (running the command, folding
 * its output into history, compacting when due, building and sending the request); the figure
 * compares round trips 6–35 with the last 30 (medians: one round trip is noisy on a shared
 * machine, and ten of them moved the figure by ±30% between runs). Peak RSS is the exec process's own.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startMockProcess } from "../test/helpers/cli.js";
import { fmt, line, median } from "./stats.js";

const BIN = resolve(import.meta.dirname, "../bin/tandem");
const PROBE = resolve(import.meta.dirname, "rss-probe.mjs");

/** Forwards to `target`; records when each request arrived and when its response ended. */
async function timingProxy(target: string) {
  const upstream = new URL(target);
  const marks: Array<{ arrived: number; ended: number }> = [];
  const server = createServer((req, res) => {
    const mark = { arrived: performance.now(), ended: Number.NaN };
    marks.push(mark);
    const up = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
        r.on("end", () => {
          mark.ended = performance.now();
        });
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    marks,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export async function longExec(rounds = 200, outputBytes = 20_000): Promise<void> {
  const steps: unknown[] = Array.from({ length: rounds }, (_, i) => ({
    output: [
      {
        type: "function_call",
        name: "exec_command",
        arguments: JSON.stringify({ cmd: `head -c ${outputBytes} /dev/zero | tr '\\0' x` }),
        call_id: `c${i}`,
      },
    ],
  }));
  steps.push({ output: [{ type: "message", text: "done" }] });
  const mock = await startMockProcess({ steps, loop: true }, { log: false });
  const proxy = await timingProxy(mock.url);
  const dir = mkdtempSync(join(tmpdir(), "tandem-bench-long-exec-"));
  const out = join(dir, "rss");
  const home = join(dir, "home");
  const cwd = join(dir, "cwd");
  mkdirSync(home);
  mkdirSync(cwd);
  const t0 = performance.now();
  // Not spawnSync: the proxy runs on this process's event loop.
  const child = spawn(
    process.execPath,
    [
      ...(process.env.TANDEM_BENCH_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.TANDEM_BENCH_PROF}`]
        : []),
      "--import",
      PROBE,
      BIN,
      "exec",
      "-c",
      `model_providers.bench={ base_url = "${proxy.url}" }`,
      "-c",
      'model_provider="bench"',
      "-c",
      "model_context_window=128000",
      "run the commands",
    ],
    {
      cwd,
      env: { ...process.env, TANDEM_HOME: home, OPENAI_API_KEY: "k", TANDEM_RSS_OUT: out },
      stdio: "ignore",
    },
  );
  const status = await new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const ms = performance.now() - t0;
  await proxy.close();
  await mock.stop();
  let rssMiB = Number.NaN;
  try {
    rssMiB = JSON.parse(readFileSync(out, "utf8")).rssKiB / 1024;
  } catch {}
  rmSync(dir, { recursive: true, force: true });
  const m = proxy.marks;
  // Gaps between a response's end and the next request, skipping those around a compaction
  // request (its own round trip), which would otherwise count twice.
  const gaps = m.slice(1).map((x, i) => x.arrived - m[i].ended);
  if (process.env.TANDEM_BENCH_GAPS) process.stderr.write(`${gaps.map((g) => g.toFixed(0)).join(" ")}\n`);
  const early = median(gaps.slice(5, 35));
  const late = median(gaps.slice(-30));
  line(
    `tandem exec, ${rounds} tool round trips of ${(outputBytes / 1000).toFixed(0)} KB (${m.length} requests)`,
    `${(ms / 1000).toFixed(2)} s, peak RSS ${rssMiB.toFixed(0)} MiB${status === 0 ? "" : `, exit ${status}`}`,
    "≤ 150 MiB",
  );
  line(
    "  Tandem's own time per round trip: 6–35th vs last 30",
    `${fmt(early)} vs ${fmt(late)} (${late >= early ? "+" : ""}${(((late - early) / early) * 100).toFixed(0)}%)`,
    "within 20%",
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await longExec();
