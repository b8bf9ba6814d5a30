/**
 * A user hook's warning in the web app (README "Hooks"), in Debian chromium against a real
 * `tandem serve` stack: a hook that fails shows as a warning line in the transcript.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Served, serve } from "../helpers/http.js";
import { outsideDir, tempDir } from "../helpers/index.js";
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

describe.skipIf(noBrowser)("web transcript: hook.warning", () => {
  // Fails if the page drops hook.warning events (the user would never learn that their hook
  // failed), or lets a control character of the message act instead of showing.
  it("a failing UserPromptSubmit hook shows as a warning entry, and the turn goes on", async () => {
    const dir = outsideDir("tandem-web-hook-");
    const hook = join(dir, "broken\u202ehook.sh");
    writeFileSync(hook, "#!/bin/sh\nexit 3\n");
    chmodSync(hook, 0o755);
    const home = tempDir("tandem-web-home-");
    writeFileSync(
      join(home, "hooks.json"),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `'${hook}'` }] }] },
      }),
    );
    sv = await serve({
      script: { steps: [{ output: [{ type: "message", text: "still answered" }] }] },
      home,
    });
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    const box = page.locator("#composer-text");
    await box.fill("hello");
    await box.press("Enter");
    const warning = page.locator("#transcript .entry.warning");
    await warning.waitFor();
    const text = (await warning.textContent()) ?? "";
    expect(text).toMatch(/^hook: hook `[^`]*broken⟪U\+202E⟫hook\.sh'?` \(UserPromptSubmit\)/);
    expect(await warning.getAttribute("role")).toBe("status");
    await page.locator("#transcript .md", { hasText: "still answered" }).waitFor();
    expect(opened.errors).toEqual([]);
  });
});
