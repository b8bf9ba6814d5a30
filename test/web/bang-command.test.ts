/**
 * `!command` in the web composer (README "Your own commands: `!`"), in Debian chromium against a
 * real `tandem serve` stack: `!ls` runs in the thread's directory, its listing shows as a command
 * cell (live, and after a reload from history), and the next model request carries it.
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

describe.skipIf(noBrowser)("web composer: !command", () => {
  it("!ls shows the listing and the next model request carries it", async () => {
    const script: Script = {
      steps: [
        {
          expect: { input_contains: ["<user_shell_command>", "WEB_LISTED.txt"] },
          output: [{ type: "message", text: "web saw the listing" }],
        },
      ],
    };
    sv = await serve({ script });
    writeFileSync(join(sv.h.cwd, "WEB_LISTED.txt"), "x");
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    const box = page.locator("#composer-text");
    await box.fill("!ls");
    await box.press("Enter");
    await page.locator("#transcript", { hasText: "WEB_LISTED.txt" }).waitFor();
    await sv.h.waitFor((e) => e.type === "turn.completed");
    expect(sv.h.model.requests).toHaveLength(0);
    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await page.locator("#threads li").first().click();
    await page.locator("#transcript", { hasText: "WEB_LISTED.txt" }).waitFor();
    expect(await page.locator("#transcript").innerText()).not.toContain("<user_shell_command>");
    await box.fill("and now?");
    await box.press("Enter");
    await page.locator("#transcript .md", { hasText: "web saw the listing" }).waitFor();
    expect(opened.errors).toEqual([]);
  });
});
