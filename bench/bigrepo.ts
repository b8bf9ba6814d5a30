/**
 * Cost that follows the repository (issue 30 item 1): `tandem exec` of a turn that runs N `echo`
 * commands, in a git repository of one file and in one of `files` files (generated in a temp dir,
 * committed), under the default sandbox settings. The per-command overhead is the slope
 * (wall(N=6) − wall(N=1)) / 5, so what a turn pays once (start-up, the first index of the
 * workspace) is reported apart from what every command pays. Medians of alternating runs.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startMockProcess } from "../test/helpers/cli.js";
import { probedExec } from "./probed-exec.js";
import { fmt, line, median } from "./stats.js";

/** A committed git repository of `files` small files, 50 per directory. */
function repo(files: number): string {
  const root = mkdtempSync(join(tmpdir(), "tandem-bench-bigrepo-"));
  for (let i = 0; i < files; i++) {
    const dir = join(root, "packages", `p${Math.floor(i / 5000)}`, "src", `m${Math.floor(i / 50) % 100}`);
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], {
      cwd: root,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "init");
  return root;
}

/** What a model that thinks for `delayMs` before each answer adds: none of it is the repository's. */
const MODEL_MS = 1000;

function script(commands: number, delayMs = 0): unknown {
  const steps = Array.from({ length: commands }, (_, i) => ({
    output: [
      {
        type: "function_call",
        call_id: `call_${i}`,
        name: "exec_command",
        arguments: JSON.stringify({ cmd: `echo step${i}` }),
      },
    ],
    ...(delayMs ? { delay_ms: delayMs } : {}),
  }));
  const last = { output: [{ type: "message", text: "done" }], ...(delayMs ? { delay_ms: delayMs } : {}) };
  return { steps: [...steps, last], loop: true };
}

const run = (url: string, cwd: string, home: string) =>
  probedExec({ url, cwd, home, prompt: "run the echoes", args: ["--skip-git-repo-check"] });

export async function bigRepoFigures(files = 100_000, runs = 5): Promise<void> {
  const small = repo(1);
  const t0 = performance.now();
  const big = repo(files);
  const genMs = performance.now() - t0;
  const mocks = {
    1: await startMockProcess(script(1), { log: false }),
    6: await startMockProcess(script(6), { log: false }),
    slow: await startMockProcess(script(1, MODEL_MS), { log: false }),
  };
  const home = mkdtempSync(join(tmpdir(), "tandem-bench-bigrepo-home-"));
  const res: Record<string, Array<{ ms: number; rssMiB: number; ok: boolean }>> = {};
  for (let i = 0; i <= runs; i++) {
    for (const [name, cwd] of [
      ["small", small],
      ["big", big],
    ] as const) {
      for (const n of [1, 6, "slow"] as const) {
        const r = run(mocks[n].url, cwd, home);
        if (i === 0) continue; // warm-up
        res[`${name}${n}`] ??= [];
        res[`${name}${n}`].push(r);
      }
    }
  }
  await mocks[1].stop();
  await mocks[6].stop();
  await mocks.slow.stop();
  const med = (k: string) => median(res[k].map((r) => r.ms));
  const rss = (k: string) => median(res[k].map((r) => r.rssMiB));
  const failed = Object.values(res)
    .flat()
    .filter((r) => !r.ok).length;
  const slope = (name: string) => (med(`${name}6`) - med(`${name}1`)) / 5;
  const label = files.toLocaleString();
  line(
    `exec, 6 echo commands: 1-file repo vs ${label}-file git repo (median of ${runs}; repo made in ${fmt(genMs)})`,
    `${fmt(med("small6"))} / ${rss("small6").toFixed(0)} MiB vs ${fmt(med("big6"))} / ${rss("big6").toFixed(0)} MiB${failed ? `, ${failed} FAILED` : ""}`,
    "RSS within 10 MiB",
  );
  line(
    `per-command overhead, ${label}-file repo minus 1-file repo`,
    `${fmt(slope("big") - slope("small"))} (${fmt(slope("big"))} vs ${fmt(slope("small"))} per command); once per turn +${fmt(med("big1") - med("small1"))}`,
    "≤ 5 ms per command",
  );
  // The workspace's scan and the turn's stat pass run while the model thinks (the scripted model
  // above answers at once, so there the turn waits for them).
  line(
    `exec, 1 echo, model answering after ${fmt(MODEL_MS)} each time: ${label}-file repo minus 1-file repo`,
    `+${fmt(med("bigslow") - med("smallslow"))} (${fmt(med("bigslow"))} vs ${fmt(med("smallslow"))})`,
  );
  rmSync(small, { recursive: true, force: true });
  rmSync(big, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await bigRepoFigures(Number(process.argv[2]) || 100_000);
