import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { PAGE_CSS } from "./css.js";
import { PAGE_HTML } from "./html.js";
import { PAGE_JS, webRoutes } from "./index.js";

describe("web page assets", () => {
  it("the script is valid JavaScript", () => {
    expect(() => new Script(PAGE_JS)).not.toThrow();
  });

  it("load nothing from other hosts and never render data as HTML", () => {
    for (const text of [PAGE_HTML, PAGE_CSS, PAGE_JS]) expect(text).not.toMatch(/(?:https?:)?\/\/[a-z]/i);
    expect(PAGE_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });

  it("every element id the script uses exists in the page", () => {
    const used = new Set([...PAGE_JS.matchAll(/\$\("([\w-]+)"\)/g)].map((m) => m[1]));
    const defined = new Set([...PAGE_HTML.matchAll(/id="([\w-]+)"/g)].map((m) => m[1]));
    expect(used.size).toBeGreaterThan(20);
    for (const id of used) expect(defined.has(id), id).toBe(true);
  });

  it("is served with a strict content security policy", async () => {
    const app = webRoutes();
    const page = await app.request("/");
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect((await app.request("/app.js")).headers.get("content-type")).toContain("javascript");
    expect(await (await app.request("/app.css")).text()).toBe(PAGE_CSS);
  });
});
