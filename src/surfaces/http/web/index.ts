/**
 * Serves the web app (requirements S4; sources in web/, built by Vite into dist/web/ by
 * scripts/build.mjs) as static files from the package: nothing is fetched from elsewhere at run
 * time. Public routes: the app holds no data until it has a token.
 *
 * Contract:
 * - Only the files of the built app are served, each at its own path (a fixed table read once
 *   from disk; no path from a request ever reaches the file system). `/` is index.html.
 * - Every response carries a strict Content-Security-Policy: scripts, styles, the manifest and
 *   connections only from this origin, images also as data: URLs; no inline script, no other
 *   host, no framing, no form posts, no <base>.
 * - Hashed assets (`/assets/*`) are cached for a year (their names change with their content);
 *   everything else is revalidated on every load.
 * - Without a built app (sources never built) `/` answers 503 with the command that builds it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webmanifest": "application/manifest+json",
  ".json": "application/json",
  ".ico": "image/x-icon",
};

/**
 * Where the built app is: beside the bundle (dist/web when this runs as dist/*.js), or the
 * repository's dist/web when this runs from the sources (tests, `npm run dev`).
 */
export function webRoot(): string | undefined {
  const here = fileURLToPath(new URL(".", import.meta.url));
  for (const dir of [join(here, "web"), join(here, "../../../../dist/web")])
    if (existsSync(join(dir, "index.html"))) return dir;
  return undefined;
}

interface Asset {
  body: Uint8Array;
  type: string;
  immutable: boolean;
}

/** Every file of the built app by URL path. Read once per process. */
let cache: { root: string | undefined; files: Map<string, Asset> } | undefined;
export function webAssets(): Map<string, Asset> {
  const root = webRoot();
  if (cache && cache.root === root) return cache.files;
  const files = new Map<string, Asset>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const rel = relative(root!, path).split(sep).join("/");
        const type = TYPES[extname(name)];
        if (type)
          files.set(`/${rel}`, { body: readFileSync(path), type, immutable: rel.startsWith("assets/") });
      }
    }
  };
  if (root) walk(root);
  cache = { root, files };
  return files;
}

export function webRoutes(): Hono {
  const app = new Hono();
  const files = webAssets();
  const send = (a: Asset) => () =>
    new Response(a.body, {
      headers: {
        "content-type": a.type,
        "cache-control": a.immutable ? "public, max-age=31536000, immutable" : "no-cache",
        "content-security-policy": CSP,
      },
    });
  const index = files.get("/index.html");
  if (index) app.get("/", send(index));
  else
    app.get(
      "/",
      () =>
        new Response("The web app is not built. Run `npm run build` in the Tandem checkout.\n", {
          status: 503,
          headers: { "content-type": "text/plain; charset=utf-8", "content-security-policy": CSP },
        }),
    );
  for (const [path, asset] of files) app.get(path, send(asset));
  app.get("/favicon.ico", () => new Response(null, { status: 204 }));
  return app;
}
