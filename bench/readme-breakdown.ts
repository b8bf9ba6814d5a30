/**
 * Where the README task's time goes (issue 30 item 2): one `tandem exec` under the default
 * sandbox with its debug log (`TANDEM_LOG=debug --log-file`), split by the log's timestamps into
 * start-up to the log's first line (node's own start, loading the CLI's code, reading the
 * arguments), opening (configuration, the store, the workspace's checkpoints, the context) to
 * the first model request, the four model requests, the three commands (each spawn in the
 * sandbox included), Tandem's own work between them, and the end to the process's exit. Medians
 * of `runs`; bare `node -e 0` beside it. The log's timestamps have millisecond resolution.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Scripts } from "../src/mock-model/index.js";
import { startMockProcess } from "../test/helpers/cli.js";
import { line, median } from "./stats.js";

const BIN = resolve(import.meta.dirname, "../bin/tandem");

interface Phases {
  startup: number;
  open: number;
  requests: number;
  commands: number;
  between: number;
  exit: number;
  total: number;
}

function once(url: string): Phases | undefined {
  const dir = mkdtempSync(join(tmpdir(), "tandem-bench-breakdown-"));
  const home = join(dir, "home");
  const cwd = join(dir, "cwd");
  mkdirSync(home);
  mkdirSync(cwd);
  const log = join(dir, "log.jsonl");
  try {
    const t0 = Date.now();
    const r = spawnSync(
      BIN,
      [
        "exec",
        "--log-file",
        log,
        "-c",
        `model_providers.bench={ base_url = "${url}" }`,
        "-c",
        'model_provider="bench"',
        Scripts.README_DEMO_PROMPT,
      ],
      {
        cwd,
        env: { ...process.env, TANDEM_HOME: home, OPENAI_API_KEY: "k", TANDEM_LOG: "debug" },
        stdio: "ignore",
      },
    );
    const t1 = Date.now();
    if (r.status !== 0) return undefined;
    const lines = readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { ts: string; msg: string; ms?: number });
    const at = (l: { ts: string }) => Date.parse(l.ts);
    const first = lines[0];
    const firstRequest = lines.find((l) => l.msg === "stream started");
    const last = lines.at(-1);
    if (!first || !firstRequest || !last) return undefined;
    const requests = lines.filter((l) => l.msg === "stream ended").reduce((a, l) => a + (l.ms ?? 0), 0);
    let commands = 0;
    let started = 0;
    for (const l of lines) {
      if (l.msg === "call started") started = at(l);
      if (l.msg === "call finished") commands += at(l) - started;
    }
    const turn = at(last) - at(firstRequest);
    return {
      startup: at(first) - t0,
      open: at(firstRequest) - at(first),
      requests,
      commands,
      between: Math.max(0, turn - requests - commands),
      exit: t1 - at(last),
      total: t1 - t0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function readmeBreakdown(runs = 7): Promise<void> {
  const mock = await startMockProcess({ ...Scripts.readmeDemo(), loop: true }, { log: false });
  const all: Phases[] = [];
  for (let i = 0; i <= runs; i++) {
    const p = once(mock.url);
    if (p && i > 0) all.push(p); // the first run warms the disk cache
  }
  await mock.stop();
  const node: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" });
    node.push(performance.now() - t0);
  }
  if (!all.length) {
    line("README task breakdown (default sandbox)", "FAILED: no run completed");
    return;
  }
  const m = (k: keyof Phases) => `${median(all.map((p) => p[k])).toFixed(0)} ms`;
  line(
    `README task breakdown, default sandbox, debug log on (median of ${all.length})`,
    `${m("total")}: start-up to the log ${m("startup")} (bare node start+exit ${median(node).toFixed(0)} ms), ` +
      `opening ${m("open")}, 4 model requests ${m("requests")}, 3 commands ${m("commands")}, ` +
      `Tandem between them ${m("between")}, end to exit ${m("exit")}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await readmeBreakdown();
