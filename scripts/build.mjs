// Bundles the CLI into dist/ so `tandem --version` starts without loading sources through tsx.
// Code splitting keeps each surface in its own chunk: `import()` in cli.ts loads only what a
// subcommand needs. Dependencies are bundled into those chunks too: Node 20 loads an npm
// package file by file (resolve, stat, open, read, compile each one), and ink alone is ~100
// files — bundled, the terminal UI's first frame came ~300 ms sooner and the README task ~80 ms
// (issue 30). Only packages that cannot be bundled stay in node_modules (EXTERNAL).
// The web app (web/, React + TypeScript) is built by Vite into dist/web/, which `tandem serve`
// serves as static files: the package needs no network and no build step at run time.
import { readFileSync, renameSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { build as viteBuild } from "vite";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

// Build into a private folder and swap it in, so a process running `dist/` while another
// builds sees either the old bundle or the new one (chunk names are content hashes).
const dist = new URL("../dist", import.meta.url);
const tmp = new URL(`../dist.tmp-${process.pid}`, import.meta.url);
rmSync(tmp, { recursive: true, force: true });

/** Native addons (a .node file beside their JS) and ink's optional dev-only devtools (not installed). */
const EXTERNAL = new Set(["better-sqlite3", "@lydell/node-pty", "react-devtools-core"]);
const packageOf = (spec) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");

await build({
  entryPoints: { cli: "src/cli.ts" },
  outdir: tmp.pathname,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  splitting: true,
  logLevel: "warning",
  // Bundled CommonJS packages call require(); an ESM chunk has none of its own.
  banner: {
    js: "import { createRequire as __tandemRequire } from 'node:module'; const require = __tandemRequire(import.meta.url);",
  },
  plugins: [
    {
      // yoga-layout (Ink's layout engine) carries its wasm as base64 but, finding a global
      // fetch(), "downloads" that data: URL through undici: ~30 ms before the terminal UI's
      // first frame for bytes it already has. Without fetch it decodes them in place.
      name: "yoga-without-fetch",
      setup(b) {
        b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (a) => {
          const text = readFileSync(a.path, "utf8");
          const patched = text.replaceAll('"function"!=typeof fetch', "true");
          if (patched === text) throw new Error(`${a.path}: no fetch test to remove (yoga-layout changed?)`);
          return { contents: patched, loader: "js" };
        });
      },
    },
    {
      name: "external-natives",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (a) =>
          a.path.startsWith("node:") || EXTERNAL.has(packageOf(a.path)) ? { external: true } : undefined,
        );
      },
    },
  ],
  // The version is inlined so `tandem --version` reads no file. React and its reconciler are
  // their production builds whatever the user's NODE_ENV (the development ones check every
  // render and cost ~100 ms before the terminal UI's first frame).
  define: {
    __TANDEM_VERSION__: JSON.stringify(version),
    __TANDEM_BUNDLED__: "true",
    "process.env.NODE_ENV": '"production"',
  },
});

// Packages loaded on first use with require() (synchronous callers) get a single file each, so
// the first use reads one file, not the package's dozens: src/skills/yaml.ts.
await build({
  entryPoints: { yaml: "yaml" },
  outdir: new URL("vendor", `${tmp.href}/`).pathname,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  logLevel: "warning",
});

// Vite 8 transforms TSX itself (oxc), so no framework plugin is needed. Always the production
// build of React and friends, also when the caller's NODE_ENV says otherwise (vitest's global
// setup runs this script with NODE_ENV=test): the same bytes whoever builds.
process.env.NODE_ENV = "production";
await viteBuild({
  configFile: false,
  root: new URL("../web", import.meta.url).pathname,
  base: "/",
  mode: "production",
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic" } },
  build: {
    outDir: new URL("web", `${tmp.href}/`).pathname,
    emptyOutDir: true,
    target: "es2022",
    // No data: URLs for assets and no preload polyfill: every byte comes from a file the
    // strict CSP allows (script-src 'self').
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});

const old = new URL(`../dist.old-${process.pid}`, import.meta.url);
try {
  renameSync(dist, old);
} catch {
  // no dist yet
}
renameSync(tmp, dist);
rmSync(old, { recursive: true, force: true });
