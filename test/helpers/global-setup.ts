/**
 * Vitest global setup: tests that run `./bin/tandem` (which imports dist/cli.js) must test the
 * current sources. `npm test` builds first; a plain `vitest run` gets the same guarantee here:
 * when dist/cli.js or the web app (dist/web/index.html) is missing or older than any source file
 * (src/, the web app's web/, package.json, the build script), dist/ is rebuilt once with `node scripts/build.mjs` before any test file loads. A
 * failed build fails the run with the reason, instead of silently testing an old bundle.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

/** Newest modification time among the files that go into the bundle (tests excluded). */
function newestInput(): { path: string; mtimeMs: number } {
  let newest = { path: "", mtimeMs: 0 };
  const consider = (path: string) => {
    const { mtimeMs } = statSync(path);
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  };
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (!/\.test\.tsx?$/.test(e.name)) consider(path);
    }
  };
  walk(join(ROOT, "src"));
  walk(join(ROOT, "web"));
  consider(join(ROOT, "package.json"));
  consider(join(ROOT, "scripts/build.mjs"));
  return newest;
}

/** When dist/ was last built: the older of the CLI bundle and the web app; 0 when either is missing. */
function builtAt(): number {
  try {
    return Math.min(
      statSync(join(ROOT, "dist/cli.js")).mtimeMs,
      statSync(join(ROOT, "dist/web/index.html")).mtimeMs,
    );
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const input = newestInput();
  const built = builtAt();
  if (built >= input.mtimeMs) return;
  const why =
    built === 0
      ? "dist/cli.js or dist/web/ is missing"
      : `${input.path.slice(ROOT.length + 1)} is newer than dist/`;
  process.stderr.write(`tandem tests: ${why}; building (node scripts/build.mjs)\n`);
  const r = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0 || builtAt() === 0) {
    throw new Error(
      `tandem tests need a current dist/ (${why}) and \`node scripts/build.mjs\` failed ` +
        `(exit ${r.status}):\n${r.stderr || r.stdout || r.error?.message || ""}\n` +
        "Fix the build, or run `npm run build` and look at its output.",
    );
  }
}
