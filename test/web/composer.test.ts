/**
 * Writing to the agent from the web app (README "Answer from anywhere"), in Debian chromium against a real
 * `tandem serve` stack: the new-thread form (working directory from the recent ones, mode), Enter
 * sends and Shift+Enter is a newline, an attached image, steering a running turn, and
 * interrupting it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { type Served, serve } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { DESKTOP, launch, noBrowser, type Opened, openApp, PHONE, shot } from "../helpers/web.js";

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

describe.skipIf(noBrowser)("web app composer", () => {
  // Fails if the form ignores the chosen mode or working directory, if the recent directory is
  // not offered, or if Enter / Shift+Enter do not send / break the line.
  it("new thread from the form; Shift+Enter breaks the line, Enter sends", async () => {
    const script: Script = {
      steps: [
        { expect: { input_contains: ["first"] }, output: [{ type: "message", text: "one" }] },
        {
          expect: { input_contains: ["line one\\nline two"] },
          output: [{ type: "message", text: "got both lines" }],
        },
      ],
    };
    sv = await serve({ script });
    // A recent thread in the server's directory, so the form can offer it.
    const first = (await sv.call("POST", "/thread", {})).json.id;
    await sv.call("POST", `/thread/${first}/turn`, { text: "first" });
    await sv.h.waitFor((e) => e.type === "turn.completed");
    opened = await openApp(browser, sv, PHONE);
    const { page } = opened;
    await page.locator("#threads-button").tap();
    await page.locator("#new-thread").tap();
    const form = page.locator("#new-thread-form");
    await form.waitFor();
    expect(await page.locator("#nt-cwd").inputValue()).toBe(sv.h.cwd);
    await page.locator("#nt-mode").selectOption("default");
    await shot(page, "web-composer-new-thread.png");
    await form.getByRole("button", { name: "Create thread" }).tap();
    await form.waitFor({ state: "detached" });
    const created = [...sv.h.runtime.threads.unstored()].find((t) => t.id !== first)!;
    expect(created).toMatchObject({ cwd: sv.h.cwd, mode: "default" });

    const box = page.locator("#composer-text");
    await box.fill("line one");
    await box.press("Shift+Enter");
    await box.pressSequentially("line two");
    expect(await box.inputValue()).toBe("line one\nline two");
    await box.press("Enter");
    await page.locator("#transcript .md", { hasText: "got both lines" }).waitFor();
    expect(await box.inputValue()).toBe("");
    expect(opened.errors).toEqual([]);
  });

  // Fails if the composer cannot steer a running turn (steer input never reaches the model) or
  // the Interrupt button does not stop it.
  it("steers a running turn, then interrupts the next one", async () => {
    // The turn's command waits until the steer is on screen (the test then creates `go`), so the
    // steer is queued while the turn runs however slow the machine is.
    const gate = join(tempDir("tandem-steer-gate-"), "go");
    const script: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: `while [ ! -e ${gate} ]; do sleep 0.05; done`, yield_time_ms: 30000 },
            },
          ],
        },
        { expect: { input_contains: ["use tabs please"] }, output: [{ type: "message", text: "steered" }] },
        { delay_ms: 20_000, output: [{ type: "message", text: "too late" }] },
      ],
    };
    sv = await serve({ script });
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    const box = page.locator("#composer-text");
    await box.fill("format the code");
    await box.press("Enter");
    await page.locator("#send", { hasText: "Steer" }).waitFor();
    await box.fill("use tabs please");
    await box.press("Enter");
    await page.locator("#transcript .entry.user", { hasText: "use tabs please" }).waitFor();
    writeFileSync(gate, "");
    await page.locator("#transcript .md", { hasText: "steered" }).waitFor();
    await page.locator("#send", { hasText: "Send" }).waitFor();

    await box.fill("and now something slow");
    await box.press("Enter");
    await page.locator("#interrupt").click();
    const end = await sv.h.waitFor((e) => e.type === "turn.completed" && e.status !== "completed");
    expect(end).toMatchObject({ status: "interrupted" });
    await page.locator("#transcript .entry.turn.end .status", { hasText: "interrupted" }).waitFor();
    await shot(page, "web-composer-interrupted.png");
    expect(opened.errors).toEqual([]);
  });

  // Fails if an attached image is not sent with the message (the model never sees it), is sent
  // unscaled as the original file, or is not shown in the transcript, live and after a reload.
  it("attaches an image: scaled to JPEG, sent with the message, shown live and after a reload", async () => {
    const script: Script = {
      steps: [
        {
          expect: { input_contains: ["data:image/jpeg;base64,"] },
          output: [{ type: "message", text: "nice icon" }],
        },
      ],
    };
    sv = await serve({ script });
    opened = await openApp(browser, sv, PHONE);
    const { page } = opened;
    const png = readFileSync(new URL("../../web/public/icon-512.png", import.meta.url));
    await page
      .locator("#composer-images")
      .setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: png });
    await page.locator(".attachments img").waitFor();
    await page.locator("#composer-text").fill("what is this?");
    await page.locator("#send").tap();
    await page.locator("#transcript .md", { hasText: "nice icon" }).waitFor();
    // The user entry's image may draw a frame after the answer on a loaded machine: wait for it.
    await page.locator("#transcript .entry.user img").first().waitFor();
    expect(await page.locator("#transcript .entry.user img").count()).toBe(1);
    const sent = JSON.stringify(sv.h.model.requests[0]);
    expect(sent).toContain("what is this?");
    expect(sent).not.toContain("data:image/png");
    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await page.locator("#transcript .entry.user img[src^='data:image/jpeg']").waitFor();
    await shot(page, "web-composer-image.png");
    expect(opened.errors).toEqual([]);
  });
});
