/**
 * What a browser downloads to first show the web app (for `npm run bench`): index.html plus
 * every script, stylesheet and module preload it names, gzipped (level 9, as a compressing proxy
 * would send them). Lazily imported chunks (highlight.js and its languages) are counted apart.
 * Reads the built app (webAssets); zero when it is not built.
 */
import { gzipSync } from "node:zlib";
import { webAssets } from "./index.js";

export interface BundleSize {
  /** Gzipped bytes of the first load. */
  firstLoad: number;
  /** Gzipped bytes of the chunks loaded later (on demand). */
  lazy: number;
  files: number;
}

export function webBundleSize(): BundleSize {
  const files = webAssets();
  const html = files.get("/index.html");
  if (!html) return { firstLoad: 0, lazy: 0, files: 0 };
  const gz = (b: Uint8Array) => gzipSync(b, { level: 9 }).length;
  const text = new TextDecoder().decode(html.body);
  const first = new Set(
    [...text.matchAll(/<(?:script|link)\b[^>]*(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1])
      .filter((p) => /\.(js|css)$/.test(p)),
  );
  let firstLoad = gz(html.body);
  let lazy = 0;
  for (const [path, a] of files) {
    if (!path.startsWith("/assets/")) continue;
    if (first.has(path)) firstLoad += gz(a.body);
    else if (path.endsWith(".js")) lazy += gz(a.body);
  }
  return { firstLoad, lazy, files: first.size + 1 };
}
