/**
 * Skills and custom commands in the web app (Debian chromium against a real `tandem serve`
 * stack): typing `/review-` offers `/review-pr` (from GET /skills), Tab completes it and the model
 * gets the expanded prompt; `$pd` offers `$pdf-tools`, clicking it completes the mention and the
 * model gets the SKILL.md body (docs/skills.md).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Served, serve } from "../helpers/http.js";
import { outsideDir } from "../helpers/index.js";
import { writePdfSkill, writeReviewCommand } from "../helpers/skills.js";
import { DESKTOP, launch, noBrowser, type Opened, openApp } from "../helpers/web.js";

let browser: Browser;
let sv: Served | undefined;
let opened: Opened | undefined;
const dirs: string[] = [];
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
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(noBrowser)("skills in the web composer", () => {
  it("suggests /review-pr and $pdf-tools, completes them, and the server expands both", async () => {
    const proj = outsideDir("tandem-web-skills-");
    dirs.push(proj);
    mkdirSync(join(proj, ".git"));
    writePdfSkill(join(proj, ".agents", "skills"));
    writeReviewCommand(join(proj, ".tandem", "commands"));
    sv = await serve({
      script: {
        steps: [
          { output: [{ type: "message", text: "hello" }] },
          {
            expect: { input_contains: ["Review pull request #7 (all arguments: 7)"] },
            output: [{ type: "message", text: "reviewed seven" }],
          },
          {
            expect: { input_contains: ["BODY-MARKER-PDF"] },
            output: [{ type: "message", text: "pdf done" }],
          },
        ],
      },
    });
    const listed = await sv.call("GET", `/skills?cwd=${encodeURIComponent(proj)}`);
    expect(listed.status).toBe(200);
    expect(listed.json.commands).toEqual([
      { name: "review-pr", description: "Review a pull request by number", argument_hint: "PR-NUMBER" },
    ]);
    expect(listed.json.skills.map((s: any) => s.name)).toEqual(["pdf-tools"]);
    expect(JSON.stringify(listed.json)).not.toContain("BODY-MARKER-PDF");
    expect((await sv.call("GET", "/skills?cwd=relative")).status).toBe(400);
    const id = (await sv.call("POST", "/thread", { cwd: proj })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "hi" });
    await sv.h.waitFor((e) => e.type === "turn.completed");
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    await page.locator(`#threads li[data-id="${id}"]`).click();
    const box = page.locator("#composer-text");
    // "/rev" would list the built-in /review first; "/review-" is the custom command alone.
    await box.pressSequentially("/review-");
    await page.locator("#composer-suggest", { hasText: "/review-pr PR-NUMBER" }).waitFor();
    await box.press("Tab");
    expect(await box.inputValue()).toBe("/review-pr ");
    await box.pressSequentially("7");
    await box.press("Enter");
    await page.locator("#transcript .md", { hasText: "reviewed seven" }).waitFor();
    await box.pressSequentially("extract with $pd");
    await page.locator("#composer-suggest button", { hasText: "$pdf-tools" }).click();
    expect(await box.inputValue()).toBe("extract with $pdf-tools ");
    await box.press("Enter");
    await page.locator("#transcript .md", { hasText: "pdf done" }).waitFor();
    expect(opened.errors).toEqual([]);
  });
});
