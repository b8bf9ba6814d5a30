/**
 * The terminal UI as a person starts it (issue 30 item 3): a real `./bin/tandem` in a pty
 * (node-pty), timed from spawn to the first frame on screen (the composer drawn before the UI's
 * modules load, surfaces/tui/early-frame.ts), to Ink's first frame (a usable prompt: the key
 * hints appear), and `--resume` of a stored 2,000-item thread to its usable prompt. Medians of
 * alternating runs; printed only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { spawn } from "@lydell/node-pty";
import { fmt, line, median } from "./stats.js";
import { storeSyntheticThread } from "./tui.js";

const BIN = resolve(import.meta.dirname, "../bin/tandem");
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

interface Launch {
  /** Spawn to the first bytes of a frame with the composer's prompt. */
  firstMs: number;
  /** Spawn to Ink's frame (the key hints under the composer). */
  usableMs: number;
}

async function launchOnce(home: string, cwd: string, args: string[]): Promise<Launch> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !["CI", "CONTINUOUS_INTEGRATION"].includes(k)) env[k] = v;
  const t0 = performance.now();
  const p = spawn(process.execPath, [BIN, "--cd", cwd, ...args], {
    cols: 120,
    rows: 40,
    env: { ...env, TANDEM_HOME: home, OPENAI_API_KEY: "bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
  });
  let out = "";
  let firstMs = Number.NaN;
  const usableMs = await new Promise<number>((done) => {
    const timer = setTimeout(() => done(Number.NaN), 20_000);
    p.onData((d) => {
      out += d;
      const text = plain(out);
      if (Number.isNaN(firstMs) && text.includes("› ")) firstMs = performance.now() - t0;
      if (text.includes("Enter send")) {
        clearTimeout(timer);
        done(performance.now() - t0);
      }
    });
  });
  const exited = new Promise((r) => p.onExit(r));
  p.kill();
  await exited;
  return { firstMs, usableMs };
}

export async function tuiLaunchFigures(runs = 7): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tandem-bench-launch-"));
  const fresh = mkdtempSync(join(dir, "home-"));
  const resumed = mkdtempSync(join(dir, "home-"));
  const cwd = mkdtempSync(join(dir, "cwd-"));
  storeSyntheticThread(join(resumed, "state.db"), "bench-resume", 2000).close();
  const a: Launch[] = [];
  const b: Launch[] = [];
  await launchOnce(fresh, cwd, []); // warm the page cache
  for (let i = 0; i < runs; i++) {
    a.push(await launchOnce(fresh, cwd, []));
    b.push(await launchOnce(resumed, cwd, ["--resume", "bench-resume"]));
  }
  rmSync(dir, { recursive: true, force: true });
  const m = (xs: number[]) => fmt(median(xs));
  line(`TUI launch (pty): first frame (median of ${runs})`, m(a.map((r) => r.firstMs)), "≤ 350 ms");
  line(`TUI launch (pty): Ink's frame, a usable prompt`, m(a.map((r) => r.usableMs)));
  line(`TUI --resume of 2,000 items (pty): a usable prompt`, m(b.map((r) => r.usableMs)), "≤ 500 ms");
}
