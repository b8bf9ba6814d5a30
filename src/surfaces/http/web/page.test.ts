import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { webAssets, webRoutes } from "./index.js";
import { webBundleSize } from "./size.js";

const WEB_SRC = join(import.meta.dirname, "../../../../web/src");
function sources(dir = WEB_SRC): Array<{ path: string; text: string }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : [{ path, text: readFileSync(path, "utf8") }];
  });
}

describe("web app assets", () => {
  // Fails if the build stops producing the app (scripts/build.mjs) or the server stops finding it.
  it("is built and served from the package: index.html, its script, stylesheet, manifest and icons", async () => {
    const files = webAssets();
    const html = new TextDecoder().decode(files.get("/index.html")!.body);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(5);
    const app = webRoutes();
    for (const ref of refs) {
      // Fails if the page refers to another host (or a protocol-relative URL) or a missing file.
      expect(ref, ref).toMatch(/^\/[\w./-]+$/);
      const res = await app.request(ref);
      expect(res.status, ref).toBe(200);
      expect(res.headers.get("content-security-policy"), ref).toContain("default-src 'none'");
    }
    expect((await app.request("/manifest.webmanifest")).headers.get("content-type")).toContain("manifest");
    const manifest = JSON.parse(new TextDecoder().decode(files.get("/manifest.webmanifest")!.body));
    for (const icon of manifest.icons) expect((await app.request(icon.src)).status, icon.src).toBe(200);
  });

  // Fails if model text could become markup: an HTML sink other than the two that receive
  // DOMPurify output (the rendered Markdown and highlighted code), or eval / document.write.
  it("inserts HTML only from DOMPurify: no other innerHTML, outerHTML or eval in the app's sources", () => {
    const sinks: string[] = [];
    for (const { path, text } of sources())
      for (const line of text.split("\n"))
        if (
          !/^\s*(\*|\/\/|\/\*)/.test(line) &&
          /innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML=|document\.write|eval\(/.test(line)
        )
          sinks.push(`${path.slice(WEB_SRC.length + 1)}: ${line.trim()}`);
    expect(sinks).toEqual([
      "components/Markdown.tsx: code.innerHTML = html; // sanitised by highlight()",
      'components/Markdown.tsx: return <div className="md" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />;',
    ]);
    const md = readFileSync(join(WEB_SRC, "lib/markdown.ts"), "utf8");
    // Both producers return DOMPurify.sanitize(...) output.
    expect(md.match(/return DOMPurify\.sanitize\(/g)?.length).toBe(2);
  });

  // Fails if a route serves without the strict policy or lets anything inline or foreign in.
  it("is served with a strict content security policy", async () => {
    const app = webRoutes();
    const page = await app.request("/");
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    const script = [...webAssets().keys()].find((p) => /^\/assets\/index-.*\.js$/.test(p))!;
    const js = await app.request(script);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(js.headers.get("cache-control")).toContain("immutable");
    // Nothing outside the built app is reachable.
    expect((await app.request("/../package.json")).status).toBe(404);
    expect((await app.request("/assets/../../package.json")).status).toBe(404);
  });

  // Fails if the first load grows past the budget (README "Answer from anywhere": < 150 KB gzipped), e.g. highlight.js
  // loaded eagerly instead of on the first code block, or a development build of React.
  it("first load stays under 150 KB gzipped, with highlighting loaded on demand", () => {
    const size = webBundleSize();
    expect(size.firstLoad).toBeGreaterThan(10_000);
    expect(size.firstLoad).toBeLessThan(150 * 1024);
    expect(size.lazy).toBeGreaterThan(5_000);
  });
});
