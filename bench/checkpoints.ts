/**
 * Checkpoint figures (README "Undo, redo, fork and rewind"): on a generated repository in a temp
 * directory, the first scan (every file read and stored once), the checkpoint of one turn that
 * changes 10 files (events, then the stat pass a turn with a command ends with), the store's
 * size on disk, and an undo of that turn (plan + write). A small repository (2,000 files) always;
 * 100,000 files with `TANDEM_BENCH_CHECKPOINTS_100K=1` (generating and scanning them takes
 * minutes on a small machine).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { applyRestore, planRestore } from "../src/checkpoints/restore.js";
import { Workspace } from "../src/checkpoints/workspace.js";
import { fmt, line } from "./stats.js";

/** `files` files of ~2 KB in directories of 100, under a fresh temp directory. */
function generate(files: number): string {
  const root = mkdtempSync(join(tmpdir(), "tandem-bench-cp-"));
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir);
    writeFileSync(join(dir, `f${i}.ts`), `// file ${i}\n${"export const x = 1;\n".repeat(100)}`);
  }
  return root;
}

const mb = (n: number) => `${(n / (1 << 20)).toFixed(1)} MB`;

function storeBytes(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function one(files: number): Promise<void> {
  const label = files.toLocaleString();
  const root = generate(files);
  const state = mkdtempSync(join(tmpdir(), "tandem-bench-cp-state-"));
  const ws = Workspace.open(root, { storeFile: join(state, "cp.db"), globalExcludes: null });
  try {
    const s0 = performance.now();
    await ws.ready();
    const scan = performance.now() - s0;
    line(`checkpoints: first scan of ${label} files`, `${fmt(scan)}, store ${mb(storeBytes(state))}`);
    // One turn: 10 files changed, found by events, then the stat pass a command's turn ends with.
    for (let i = 0; i < 10; i++) writeFileSync(join(root, "d0", `f${i}.ts`), `// changed ${i}\n`);
    const c0 = performance.now();
    const changes = [...(await ws.sync()), ...(await ws.verify())];
    const cp = ws.store.checkpoint("bench", "turn1");
    ws.store.batch(() => {
      for (const c of changes) ws.store.recordChange(cp.id, c.path, c.before, c.after);
    });
    const checkpoint = performance.now() - c0;
    line(
      `checkpoints: one turn (10 files) in ${label} files`,
      `${fmt(checkpoint)} (${changes.length} changes)`,
    );
    const u0 = performance.now();
    const plan = planRestore(ws, cp.id, "undo");
    const r = await applyRestore(ws, plan, { overwrite: false });
    const undo = performance.now() - u0;
    line(
      `checkpoints: undo of that turn in ${label} files`,
      `${fmt(undo)} (${r.applied.length} files written)`,
    );
  } finally {
    ws.close();
    await new Promise((r) => setTimeout(r, 50)); // the store closes after the queue drains
    rmSync(root, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
}

export async function checkpointFigures(): Promise<void> {
  await one(2_000);
  if (process.env.TANDEM_BENCH_CHECKPOINTS_100K === "1") await one(100_000);
  else line("checkpoints: 100,000 files", "skipped (TANDEM_BENCH_CHECKPOINTS_100K=1 runs it)");
}

if (import.meta.url === `file://${process.argv[1]}`) await checkpointFigures();
