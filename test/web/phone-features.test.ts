/**
 * What people reach for in a web UI for coding agents, at 390x844 (touch) and 1280x800 in Debian
 * chromium against a real `tandem serve` stack on the scripted model: search across threads,
 * switching model and effort within a thread, and the thread's files changed (the net change of
 * all its turns). Each screen also passes axe's serious/critical rules.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { type Served, serve } from "../helpers/http.js";
import {
  axeViolations,
  DESKTOP,
  launch,
  noBrowser,
  type Opened,
  openApp,
  PHONE,
  shot,
} from "../helpers/web.js";

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

const say = (text: string) => ({ output: [{ type: "message" as const, text }] });
const patch = (body: string) => ({
  output: [
    {
      type: "custom_tool_call" as const,
      name: "apply_patch",
      input: `*** Begin Patch\n${body}\n*** End Patch`,
    },
  ],
});

/** Runs one turn over HTTP and waits for it to end. */
async function turn(s: Served, id: string, text: string) {
  const done = s.h.events.filter((e) => e.event.type === "turn.completed").length;
  await s.call("POST", `/thread/${id}/turn`, { text });
  const end = Date.now() + 10_000;
  while (s.h.events.filter((e) => e.event.type === "turn.completed").length === done) {
    if (Date.now() > end) throw new Error("turn did not complete");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const SIZES = [
  ["phone", PHONE],
  ["desktop", DESKTOP],
] as const;

describe.skipIf(noBrowser).each(SIZES)("web app (%s): search, settings, files changed", (size, screen) => {
  const phone = size === "phone";
  /** A tap on the phone, a click on the desktop. */
  const press = (l: Locator) => (phone ? l.tap() : l.click());
  /** The thread list: behind the ☰ drawer on the phone, always shown on the desktop. */
  const showList = async (page: Page) => {
    if (phone) await press(page.locator("#threads-button"));
    await page.locator("#threads").waitFor();
  };

  // Fails if search ignores what the agent said (content), shows no snippet, or its hit does
  // not open the thread.
  it("searches threads by content and opens a hit", async () => {
    sv = await serve({
      script: { steps: [say("The flux capacitor needs 1.21 gigawatts."), say("Nothing here.")] },
    });
    const a = (await sv.call("POST", "/thread", {})).json.id;
    await turn(sv, a, "how much power?");
    const b = (await sv.call("POST", "/thread", {})).json.id;
    await turn(sv, b, "something else");
    opened = await openApp(browser, sv, screen);
    const { page } = opened;
    await showList(page);
    await page.locator("#thread-search").fill("gigawatt");
    const hits = page.locator("#search-results li[data-id]");
    await expect.poll(() => hits.count()).toBe(1);
    expect(await hits.first().getAttribute("data-id")).toBe(a);
    expect(await hits.first().locator(".snippet").textContent()).toBe(
      "The flux capacitor needs 1.21 gigawatts.",
    );
    expect(await page.locator("#threads").isVisible()).toBe(false);
    await shot(page, `web-${size}-search.png`);
    expect(await axeViolations(page)).toEqual([]);
    await press(hits.first().locator("button"));
    await page.locator("#transcript .md", { hasText: "gigawatts" }).waitFor();
    expect(await page.locator("#threads li[aria-current=true]").getAttribute("data-id")).toBe(a);
  });

  // Fails if the form's model or effort does not reach the next turn's model request, or if
  // "Configured" does not take the thread's own effort away.
  it("switches the model and reasoning effort of the next turns", async () => {
    sv = await serve({ script: { steps: [say("one"), say("two"), say("three")] } });
    const id = (await sv.call("POST", "/thread", {})).json.id;
    await turn(sv, id, "first");
    opened = await openApp(browser, sv, screen);
    const { page } = opened;
    await showList(page);
    await press(page.locator(`#threads li[data-id="${id}"] button`).first());
    await press(page.locator("#settings-button"));
    await page.locator("#set-model").fill("gpt-other");
    await page.locator("#set-effort").selectOption("high");
    await shot(page, `web-${size}-settings.png`);
    expect(await axeViolations(page)).toEqual([]);
    await press(page.locator("#set-save"));
    await page.locator("#settings-form").waitFor({ state: "detached" });
    expect(await page.locator("#settings-button").getAttribute("title")).toBe("gpt-other · effort high");
    await page.locator("#composer-text").fill("second");
    await page.locator("#composer-text").press("Enter");
    await page.locator("#transcript .md", { hasText: "two" }).waitFor();
    const second = sv.h.model.requests[1] as any;
    expect(second.model).toBe("gpt-other");
    expect(second.reasoning?.effort).toBe("high");

    // Cancel and Esc close the form without a change; opened again it is there once.
    await press(page.locator("#settings-button"));
    await press(page.locator("#settings-form button", { hasText: "Cancel" }));
    await page.locator("#settings-form").waitFor({ state: "detached" });
    await press(page.locator("#settings-button"));
    await page.locator("#set-effort").press("Escape");
    await page.locator("#settings-form").waitFor({ state: "detached" });
    expect(sv.h.runtime.threads.record(id)!.settings.effort).toBe("high");
    await press(page.locator("#settings-button"));
    expect(await page.locator("#settings-form").count()).toBe(1);
    await page.locator("#set-effort").selectOption("");
    await press(page.locator("#set-save"));
    await page.locator("#settings-form").waitFor({ state: "detached" });
    expect(sv.h.runtime.threads.record(id)!.settings.effort).toBeUndefined();
    expect(sv.h.runtime.threads.record(id)!.model).toBe("gpt-other");
  });

  // Fails if the view shows turn-by-turn changes instead of the net one (the first version of
  // notes.md would show), leaves a file out, or misses a change to a file that existed before.
  it("shows the thread's files changed: the net change of every turn", async () => {
    const script: Script = {
      steps: [
        patch("*** Add File: notes.md\n+draft one\n+keep me"),
        say("added notes"),
        patch(
          "*** Update File: notes.md\n@@\n-draft one\n+final one\n keep me\n*** Update File: app.txt\n@@\n-old line\n+new line",
        ),
        say("updated"),
      ],
    };
    sv = await serve({ script });
    writeFileSync(join(sv.h.cwd, "app.txt"), "old line\n");
    opened = await openApp(browser, sv, screen);
    const { page } = opened;
    await page.locator("#composer-text").fill("write notes");
    await page.locator("#composer-text").press("Enter");
    await page.locator("#transcript .md", { hasText: "added notes" }).waitFor();
    await sv.h.waitFor((e) => e.type === "turn.completed");
    await page.locator("#composer-text").fill("improve");
    await page.locator("#composer-text").press("Enter");
    await page.locator("#transcript .md", { hasText: "updated" }).waitFor();
    await press(page.locator("#files-button"));
    const view = page.locator("#files-view");
    await view.waitFor();
    const notes = view.locator('li[data-path="notes.md"]');
    await notes.waitFor();
    expect(await notes.getAttribute("data-exact")).toBe("1");
    expect(await notes.locator(".diff-kind").textContent()).toBe("added");
    expect(await notes.locator(".dl.add").allTextContents()).toEqual(["+final one\n", "+keep me\n"]);
    expect(await notes.locator(".dl.del").count()).toBe(0);
    expect(await notes.textContent()).toContain("2 turns");
    const app = view.locator('li[data-path="app.txt"]');
    expect(await app.locator(".dl.del").allTextContents()).toEqual(["-old line\n"]);
    expect(await app.locator(".dl.add").allTextContents()).toEqual(["+new line\n"]);
    expect(await view.locator("#files-h").textContent()).toBe("Files changed in this thread · 2");
    await shot(page, `web-${size}-files.png`);
    expect(await axeViolations(page)).toEqual([]);
    // After a reload (the turns' stored diffs) the view is the same.
    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await page.locator("#transcript .md", { hasText: "updated" }).waitFor();
    await press(page.locator("#files-button"));
    await page.locator('#files-view li[data-path="notes.md"] .dl.add', { hasText: "final one" }).waitFor();
    await press(page.locator("#files-close"));
    await page.locator("#transcript").waitFor();
  });
});
