/**
 * `@` mention figures (README "Mention files: `@`"): on a generated tree of 100,000 files in a
 * temp directory, the first index build, then the latency of each keystroke's fuzzy search as
 * a user types paths (the index already built), p50 and p99 over every keystroke.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FilesApi } from "../src/runtime/files-api.js";
import { fmt, line, median, quantile } from "./stats.js";

/** `files` empty files as a monorepo has them: packages/pN/src/mM/name.ts, 50 per directory. */
function generate(files: number): string {
  const root = mkdtempSync(join(tmpdir(), "tandem-bench-mentions-"));
  const names = [
    "index",
    "server",
    "client",
    "reducer",
    "handler",
    "utils",
    "config",
    "types",
    "store",
    "view",
  ];
  for (let i = 0; i < files; i++) {
    const dir = join(root, "packages", `p${Math.floor(i / 5000)}`, "src", `m${Math.floor(i / 50) % 100}`);
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${names[i % names.length]}${i}.ts`), "");
  }
  writeFileSync(join(root, "README.md"), "");
  return root;
}

/** Every prefix of each path a user types after `@`. */
const TYPED = ["README", "packages/p7/src/m3/reducer", "handler12345", "p19m99utils", "storeview"].flatMap(
  (w) => [...w].map((_, i) => w.slice(0, i + 1)),
);

export async function mentionFigures(files = 100_000): Promise<void> {
  const label = files.toLocaleString();
  const root = generate(files);
  const api = new FilesApi();
  try {
    const b0 = performance.now();
    await api.warm(root);
    line(`@ mentions: first index of ${label} files`, fmt(performance.now() - b0));
    await api.search(root, "x");
    const per: number[] = [];
    for (const q of TYPED) {
      const t0 = performance.now();
      await api.search(root, q, { limit: 20 });
      per.push(performance.now() - t0);
    }
    line(
      `@ mentions: fuzzy search per keystroke in ${label} files (n=${per.length})`,
      `p50 ${fmt(median(per))} p99 ${fmt(quantile(per, 0.99))}`,
      "< 50 ms",
    );
  } finally {
    api.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await mentionFigures(Number(process.argv[2]) || 100_000);
