/**
 * One `tandem exec` under the RSS probe (bench/rss-probe.mjs), on the scripted model at `url`:
 * its wall time, its own peak RSS and whether it exited 0. Blocks: the model must be served by
 * another process.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const BIN = resolve(import.meta.dirname, "../bin/tandem");
const PROBE = resolve(import.meta.dirname, "rss-probe.mjs");

export interface ProbedExec {
  url: string;
  /** The Responses wire (`responses`, `responses_websocket`); the provider's default when absent. */
  wire?: string;
  cwd: string;
  home: string;
  prompt: string;
  /** More `-c` overrides and flags, before the prompt. */
  args?: string[];
}

export function probedExec(o: ProbedExec): { ms: number; rssMiB: number; ok: boolean } {
  const out = join(o.home, "rss");
  const wire = o.wire ? `, wire = "${o.wire}"` : "";
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      PROBE,
      BIN,
      "exec",
      "-c",
      `model_providers.bench={ base_url = "${o.url}"${wire} }`,
      "-c",
      'model_provider="bench"',
      ...(o.args ?? []),
      o.prompt,
    ],
    {
      cwd: o.cwd,
      env: { ...process.env, TANDEM_HOME: o.home, OPENAI_API_KEY: "k", TANDEM_RSS_OUT: out },
      stdio: "ignore",
    },
  );
  const ms = performance.now() - t0;
  let rssMiB = Number.NaN;
  try {
    rssMiB = JSON.parse(readFileSync(out, "utf8")).rssKiB / 1024;
  } catch {}
  return { ms, rssMiB, ok: r.status === 0 };
}
