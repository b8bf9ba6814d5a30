/**
 * Speed budget figures (README "Long sessions"): peak RSS of `tandem exec` on the README task over each
 * Responses transport, `tandem --version` against bare node, and what each heavy dependency
 * costs to import. Printed only; the targets sit beside the figures.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { Scripts } from "../src/mock-model/index.js";
import { startMockProcess } from "../test/helpers/cli.js";
import { probedExec } from "./probed-exec.js";
import { fmt, line, median } from "./stats.js";

const BIN = resolve(import.meta.dirname, "../bin/tandem");

/**
 * Peak RSS (MiB) and wall time of one `tandem exec` of the README walkthrough on `wire`, with
 * full access or under the default sandbox (workspace-write: bubblewrap where installed).
 */
function execOnce(
  url: string,
  wire: string,
  sandbox = "danger-full-access",
): { rssMiB: number; ms: number; ok: boolean } {
  const dir = mkdtempSync(join(tmpdir(), "tandem-bench-exec-"));
  const home = join(dir, "home");
  const cwd = join(dir, "cwd");
  mkdirSync(home);
  mkdirSync(cwd);
  return probedExec({
    url,
    wire,
    cwd,
    home,
    prompt: Scripts.README_DEMO_PROMPT,
    args: ["-c", `sandbox_mode="${sandbox}"`],
  });
}

export async function execPeakRss(runs = 5): Promise<void> {
  const cases = [
    { wire: "responses", sandbox: "workspace-write", label: "default sandbox" },
    { wire: "responses", sandbox: "danger-full-access", label: "full access" },
    { wire: "responses_websocket", sandbox: "danger-full-access", label: "full access" },
  ];
  for (const { wire, sandbox, label } of cases) {
    const mock = await startMockProcess({ ...Scripts.readmeDemo(), loop: true }, { log: false });
    const res = Array.from({ length: runs }, () => execOnce(mock.url, wire, sandbox));
    await mock.stop();
    const rss = median(res.map((r) => r.rssMiB));
    const ms = median(res.map((r) => r.ms));
    const failed = res.filter((r) => !r.ok).length;
    line(
      `tandem exec, README task, ${wire}, ${label} (median of ${runs})`,
      `${fmt(ms)}, peak RSS ${rss.toFixed(0)} MiB${failed ? `, ${failed} FAILED` : ""}`,
      "≤ 0.20 s, RSS ≤ 70 MiB",
    );
  }
}

/** `tandem --version` minus bare `node -e 0`, medians of 20 interleaved runs. */
export function versionVsNode(): void {
  const node: number[] = [];
  const tandem: number[] = [];
  const time = (cmd: string, args: string[]) => {
    const t0 = performance.now();
    spawnSync(cmd, args, { stdio: "ignore" });
    return performance.now() - t0;
  };
  for (let i = 0; i < 21; i++) {
    node.push(time(process.execPath, ["-e", "0"]));
    tandem.push(time(BIN, ["--version"]));
  }
  const n = median(node.slice(1));
  const t = median(tandem.slice(1));
  line(
    "`tandem --version` over bare node (median of 20)",
    `+${fmt(t - n)} (${fmt(t)} vs ${fmt(n)})`,
    "≤ +20 ms",
  );
}

/**
 * What each dependency costs to load, measured inside a fresh node after zod, smol-toml and
 * better-sqlite3 (which every command loads): CPU time and RSS growth, median of 3.
 */
export function importCosts(): void {
  const mods = ["openai", "ws", "@modelcontextprotocol/sdk/client/index.js", "hono", "ink"];
  const code = (m: string) => `
    await import("zod"); await import("smol-toml"); await import("better-sqlite3");
    const r0 = process.memoryUsage().rss, c0 = process.cpuUsage();
    await import(${JSON.stringify(m)});
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ cpu: (c.user + c.system) / 1000, rss: (process.memoryUsage().rss - r0) / 1048576 }));`;
  const parts = mods.map((m) => {
    const runs: Array<{ cpu: number; rss: number }> = [];
    for (let i = 0; i < 3; i++) {
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", code(m)], {
        cwd: resolve(import.meta.dirname, ".."),
        encoding: "utf8",
      });
      if (r.status === 0) runs.push(JSON.parse(r.stdout));
    }
    if (!runs.length) return `${m} absent`;
    return `${m} ${median(runs.map((x) => x.cpu)).toFixed(0)} ms/${median(runs.map((x) => x.rss)).toFixed(1)} MiB`;
  });
  line("load cost of a dependency (CPU / RSS)", parts.join(", "));
}
