/**
 * Benchmark for `npm run bench` (README "Sandbox and approvals", "How we will know"): time to apply a multi-hunk patch
 * to a 10,000-line file on disk (parse + match + write + diffs for display). No assertions.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch, displayChanges } from "./index.js";

export const BENCH_LINES = 10_000;
export const BENCH_CHUNKS = 20;

/** A 10,000-line source file: numbered functions, so each chunk's context is unique. */
export function benchSource(lines = BENCH_LINES): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++)
    out.push(i % 5 === 0 ? `function step${i}(input) {` : `  return transform(input, ${i}); // line ${i}`);
  return `${out.join("\n")}\n`;
}

/** A patch with `chunks` chunks spread over the file, each replacing one line. */
export function benchPatchText(chunks = BENCH_CHUNKS, lines = BENCH_LINES): string {
  const body: string[] = ["*** Begin Patch", "*** Update File: big.js"];
  for (let c = 0; c < chunks; c++) {
    const at = Math.floor(((c + 0.5) * lines) / chunks);
    const anchor = at - (at % 5);
    body.push(`@@ function step${anchor}(input) {`);
    for (let i = anchor + 1; i < anchor + 4; i++) {
      const line = `  return transform(input, ${i}); // line ${i}`;
      body.push(i === anchor + 2 ? `-${line}` : ` ${line}`);
      if (i === anchor + 2) body.push(`+  return transform(input, ${i} * 2); // changed`);
    }
  }
  body.push("*** End Patch");
  return body.join("\n");
}

/** Applies a 20-chunk patch to a fresh 10,000-line file in a temp dir; returns the elapsed time. */
export function benchPatch(): { ms: number } {
  const dir = mkdtempSync(join(tmpdir(), "tandem-patch-bench-"));
  try {
    writeFileSync(join(dir, "big.js"), benchSource());
    const patch = benchPatchText();
    const started = performance.now();
    const out = applyPatch(patch, dir);
    if (!out.ok) throw new Error(`bench patch failed: ${out.error}`);
    displayChanges(out.changes);
    return { ms: performance.now() - started };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
