#!/usr/bin/env node
/**
 * The house rules `npm test` checks before the tests (ARCHITECTURE.md "Guards"):
 * - imports follow the floors and the surface rules of .dependency-cruiser.cjs;
 * - no file under src/ or web/src/ is longer than MAX_LINES (files stay readable in one sitting).
 * Exits 1 after printing every breach; 0 (silent but for one summary line) when all hold.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const MAX_LINES = 600;
const root = fileURLToPath(new URL("..", import.meta.url));
const breaches = [];

function* sources(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (/\.(ts|tsx|mjs|js|css)$/.test(e.name)) yield p;
  }
}

let largest = { file: "", lines: 0 };
for (const dir of ["src", "web/src"]) {
  for (const file of sources(join(root, dir))) {
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    const rel = relative(root, file);
    if (lines > largest.lines) largest = { file: rel, lines };
    if (lines > MAX_LINES)
      breaches.push(`${rel}: ${lines} lines (at most ${MAX_LINES}; split it by what its parts do)`);
  }
}

const bin = join(root, "node_modules", ".bin", "depcruise");
const cruise = spawnSync(
  bin,
  ["src", "web/src", "--config", ".dependency-cruiser.cjs", "--output-type", "err"],
  {
    cwd: root,
    encoding: "utf8",
  },
);
if (cruise.error) breaches.push(`dependency-cruiser did not run: ${cruise.error.message}`);
else if (cruise.status !== 0)
  breaches.push(`imports break the house rules (.dependency-cruiser.cjs):\n${cruise.stdout}${cruise.stderr}`);

if (breaches.length > 0) {
  for (const b of breaches) process.stderr.write(`check-house: ${b}\n`);
  process.exit(1);
}
process.stdout.write(
  `check-house: imports follow the floors; largest file ${largest.file} (${largest.lines} lines)\n`,
);
