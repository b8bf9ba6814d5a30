/**
 * `@` file mentions in the web composer (README "Mention files: `@`"), in Debian chromium against
 * a real `tandem serve` stack: typing `@rea` lists the thread's files fuzzily and `@rdme` narrows the list
 * (`GET /thread/:id/files`), Tab writes `@README.md `, sending attaches the file to the model
 * request, and a reload shows the attachment as one line, not the file's body.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
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

describe.skipIf(noBrowser)("web composer: @ mentions", () => {
  it("@rea lists README.md, @rdme narrows to it, Tab completes it, and the request carries the file", async () => {
    const script: Script = {
      steps: [
        { output: [{ type: "message", text: "warmed" }] },
        {
          expect: { input_contains: ["what is in @README.md", "WEB-README-BODY-5150"] },
          output: [{ type: "message", text: "web read the readme" }],
        },
      ],
    };
    sv = await serve({ script });
    writeFileSync(join(sv.h.cwd, "README.md"), "# Web\nWEB-README-BODY-5150\n");
    writeFileSync(join(sv.h.cwd, "reader.ts"), "export {};\n");
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    const box = page.locator("#composer-text");
    await box.fill("warm up");
    await box.press("Enter");
    await page.locator("#transcript .md", { hasText: "warmed" }).waitFor();
    await box.pressSequentially("what is in @rea");
    const list = page.locator('#composer-suggest[aria-label="Files"]');
    await list.locator("button", { hasText: "@README.md" }).waitFor();
    await list.locator("button", { hasText: "@reader.ts" }).waitFor();
    // Fuzzy: r-d-m-e is README.md only; the list follows the typing.
    await box.press("Backspace");
    await box.press("Backspace");
    await box.pressSequentially("dme");
    await list.locator("button", { hasText: "@reader.ts" }).waitFor({ state: "detached" });
    await box.press("Tab");
    expect(await box.inputValue()).toBe("what is in @README.md ");
    await box.press("Enter");
    await page.locator("#transcript .md", { hasText: "web read the readme" }).waitFor();
    await page.locator("#transcript", { hasText: "[file README.md attached" }).waitFor();
    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await page.locator("#threads li").first().click();
    await page.locator("#transcript", { hasText: "[file README.md attached (27 bytes)]" }).waitFor();
    expect(await page.locator("#transcript").innerText()).not.toContain("WEB-README-BODY-5150");
    expect(opened.errors).toEqual([]);
  });
});
