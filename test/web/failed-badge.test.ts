/**
 * README "Use it" in a real browser (Debian chromium through playwright-core) against a real
 * `tandem serve` stack: a turn that fails shows a "failed" badge in the thread list and the
 * thread header, live (from the status event) and after a reload (from GET /thread). Skipped,
 * with the install command in the run's summary, without chromium.
 */
import { type Browser, chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { type Served, serve, TOKEN, until } from "../helpers/http.js";
import { missing } from "../helpers/system-tools.js";

const noBrowser = missing("chromium").length > 0;
let browser: Browser | undefined;
let sv: Served | undefined;

beforeAll(async () => {
  if (noBrowser) return;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"],
  });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await sv?.close();
  sv = undefined;
});

describe.skipIf(noBrowser)("web page: a failed turn", () => {
  // Fails if the page maps the `failed` status to something else (statusText), if the thread
  // reads idle after its turn failed (Thread.run setting idle on a failed outcome: the event and
  // GET /thread then say idle), or if the badge loses its failed styling hook (data-s).
  it("shows a failed badge in the list and the header, live and after a reload", async () => {
    const script = { steps: [{ fault: { type: "http", status: 400, message: "bad request" } }] } as Script;
    sv = await serve({ script });
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${sv.url}/#token=${TOKEN}`);
      await page.locator("#conn[data-state=live]").waitFor();
      await until(() => runtimeInternals(sv!.h.runtime).responders.size > 0);
      const id: string = (await sv.call("POST", "/thread", {})).json.id;
      await sv.call("POST", `/thread/${id}/turn`, { text: "hi" });
      await sv.h.waitFor((e) => e.type === "turn.completed");

      const badge = page.locator(`#threads li[data-id="${id}"] .status`);
      await expect.poll(() => badge.textContent()).toBe("failed");
      expect(await badge.getAttribute("data-s")).toBe("failed");
      await page.locator(`#threads li[data-id="${id}"]`).click();
      await expect.poll(() => page.locator("#thread-status").textContent()).toBe("failed");

      await page.reload();
      await page.locator("#conn[data-state=live]").waitFor();
      await expect.poll(() => badge.textContent()).toBe("failed");
      expect(await badge.getAttribute("data-s")).toBe("failed");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
