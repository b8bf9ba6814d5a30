// Bundles the CLI into dist/ so `tandem --version` starts without loading sources through tsx.
// Code splitting keeps each surface in its own chunk: `import()` in cli.ts loads only what a
// subcommand needs. Dependencies stay external (node_modules), loaded lazily by those chunks.
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

// Start clean: chunk names are content hashes, so old ones would pile up.
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: "src/cli.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  splitting: true,
  packages: "external",
  logLevel: "warning",
  // The version is inlined so `tandem --version` reads no file.
  define: { __TANDEM_VERSION__: JSON.stringify(version) },
});
