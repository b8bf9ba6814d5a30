/**
 * `/review` in the web composer (README "Review: `/review`"), in Debian chromium against a real
 * `tandem serve` stack: the composer offers it in the `/` list, sending it starts the read-only
 * review turn (POST /thread/:id/review), and the JSON answer is drawn as a findings list — live
 * and after a reload — never as JSON.
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { type Served, serve } from "../helpers/http.js";
import { DESKTOP, launch, noBrowser, type Opened, openApp } from "../helpers/web.js";

let browser: Browser;
let sv: Served | undefined;
let opened: Opened | undefined;
beforeAll(async () => {
  if (!noBrowser) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await opened?.context.close();
  opened = undefined;
  await sv?.close();
  sv = undefined;
});

describe.skipIf(noBrowser)("web composer: /review", () => {
  it("/review base main shows the findings as a list, live and after a reload", async () => {
    const answer = {
      findings: [
        {
          title: "Handle the empty list",
          body: "`max([])` raises **ValueError**.",
          priority: 0,
          confidence_score: 0.9,
          code_location: { absolute_file_path: "/repo/stats.py", line_range: { start: 7, end: 9 } },
        },
      ],
      overall_correctness: "patch is incorrect",
      overall_explanation: "Empty input crashes.",
    };
    const script: Script = {
      steps: [
        { output: [{ type: "message", text: "warmed" }] },
        {
          expect: { input_contains: ["Code review requested: changes against 'main'"] },
          output: [{ type: "message", text: JSON.stringify(answer) }],
        },
      ],
    };
    sv = await serve({ script });
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    const box = page.locator("#composer-text");
    await box.fill("warm up");
    await box.press("Enter");
    await page.locator("#transcript .md", { hasText: "warmed" }).waitFor();
    await box.pressSequentially("/rev");
    await page.locator("#composer-suggest button", { hasText: "/review" }).waitFor();
    await box.fill("/review base main");
    await box.press("Enter");
    const card = page.locator("#transcript .entry.review");
    await card.locator(".findings li", { hasText: "Handle the empty list" }).waitFor();
    expect(await card.locator(".place").textContent()).toBe("/repo/stats.py:7-9");
    expect(await card.locator(".priority").textContent()).toBe("P0");
    expect(await page.locator("#transcript").textContent()).toContain("Review: changes against 'main'");
    expect(await page.locator("#transcript").textContent()).not.toContain('"findings"');
    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await page.locator("#threads li").first().click();
    await page
      .locator("#transcript .entry.review .findings li", { hasText: "Handle the empty list" })
      .waitFor();
    const text = await page.locator("#transcript").textContent();
    expect(text).toContain("Review: changes against 'main'");
    expect(text).not.toContain("You are reviewing code changes");
    expect(opened.errors).toEqual([]);
  });
});
