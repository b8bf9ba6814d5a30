/**
 * Undo, redo, fork and rewind in the web app (README "Undo, redo, fork and rewind"), in Debian
 * chromium against a real `tandem serve` stack on the scripted model: `/undo` and `/redo` in the
 * composer ask on the question sheet (the diff, then Apply) and restore the files; a message's
 * menu rewinds the conversation (and the files) to before it and hands the message back to the
 * composer; `/fork` and "Fork from here" open a new thread with the history.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { serve } from "../helpers/http.js";
import { browserRig, DESKTOP, noBrowser, openApp } from "../helpers/web.js";

const rig = browserRig();

const add = (text: string) => `*** Begin Patch\n*** Add File: notes.txt\n+${text}\n*** End Patch`;
const update = (from: string, to: string) =>
  `*** Begin Patch\n*** Update File: notes.txt\n@@\n-${from}\n+${to}\n*** End Patch`;
const SCRIPT: Script = {
  steps: [
    { output: [{ type: "custom_tool_call", name: "apply_patch", input: add("one") }] },
    { output: [{ type: "message", text: "wrote one" }] },
    { output: [{ type: "custom_tool_call", name: "apply_patch", input: update("one", "two") }] },
    { output: [{ type: "message", text: "wrote two" }] },
  ],
};

async function say(page: Page, text: string): Promise<void> {
  const box = page.locator("#composer-text");
  await box.fill(text);
  await box.press("Enter");
}

/** Answers the sheet's next question by choosing `label` and submitting; waits until it is settled. */
async function choose(page: Page, label: string, expectText?: string): Promise<void> {
  const count = (type: string) => rig.sv!.h.events.filter((s) => s.event.type === type).length;
  const answered = count("question.answered");
  await rig.sv!.h.waitFor(() => count("question.requested") > answered);
  await page.locator("#sheet").waitFor({ state: "visible" });
  if (expectText) expect(await page.locator("#sheet").textContent()).toContain(expectText);
  await page.locator("#sheet").getByText(label, { exact: true }).first().click();
  await page.locator("#q-submit").click();
  await rig.sv!.h.waitFor(() => count("question.answered") > answered);
}

describe.skipIf(noBrowser)("web: undo, redo, fork and rewind", () => {
  it("/undo and /redo ask and restore; rewind from a message's menu; /fork and Fork from here", async () => {
    const sv = await serve({ script: SCRIPT });
    rig.sv = sv;
    const file = join(sv.h.cwd, "notes.txt");
    const opened = await openApp(rig.browser, sv, DESKTOP);
    rig.opened = opened;
    const { page } = opened;
    await say(page, "first");
    await page.locator("#transcript .md", { hasText: "wrote one" }).waitFor();
    await say(page, "second");
    await page.locator("#transcript .md", { hasText: "wrote two" }).waitFor();
    await page.locator("#thread-status:not([data-s=running])").waitFor();
    expect(readFileSync(file, "utf8")).toBe("two\n");
    const id = sv.h.runtime.threads.list()[0].id;

    // /undo: the sheet shows the diff it will apply; Apply restores the file.
    await page.locator("#composer-text").pressSequentially("/un");
    await page.locator("#composer-suggest button", { hasText: "/undo" }).waitFor();
    await say(page, "/undo");
    await choose(page, "Apply", "+one");
    await page.locator("#notice", { hasText: "Undid turn" }).waitFor();
    expect(readFileSync(file, "utf8")).toBe("one\n");
    expect(await page.locator("#composer-text").inputValue()).toBe("");

    await say(page, "/redo");
    await choose(page, "Apply");
    await page.locator("#notice", { hasText: "Redid turn" }).waitFor();
    expect(readFileSync(file, "utf8")).toBe("two\n");

    // Rewind to before the first message, files too: both turns' changes are undone (each asks),
    // the conversation is empty again and the message is back in the composer to edit.
    const first = page.locator("#transcript .entry.user", { hasText: "first" });
    await first.locator(".msg-menu summary").click();
    await first.locator('button[data-action="rewind-code"]').click();
    await choose(page, "Apply");
    await choose(page, "Apply");
    await page.locator("#notice", { hasText: "Rewound to before that message" }).waitFor();
    expect(existsSync(file)).toBe(false);
    expect(await page.locator("#composer-text").inputValue()).toBe("first");
    await page.locator("#transcript .entry.user").first().waitFor({ state: "detached" });
    expect(sv.h.runtime.branches.userMessages(id)).toEqual([]);
    // The part cut away is kept as an archived thread.
    const archived = sv.h.runtime.threads.list().find((t) => t.title.endsWith("(rewound)"));
    expect(archived).toBeDefined();

    // /fork on the archived branch: a new thread with its history, shown at once.
    await page.locator("#notice button", { hasText: "Open it" }).click();
    await page.locator("#transcript .md", { hasText: "wrote two" }).waitFor();
    await say(page, "/fork");
    await page.locator("#notice", { hasText: "Forked into" }).waitFor();
    const forked = sv.h.runtime.threads.list().find((t) => t.title.endsWith("(rewound) (fork)"));
    expect(forked).toBeDefined();
    await page.locator("#transcript .md", { hasText: "wrote two" }).waitFor();
    expect(await page.locator("#thread-title").textContent()).toContain("(fork)");
    // A fork of the archived branch is listed like any thread.
    await page.locator(`#threads li[data-id="${forked!.id}"]`).waitFor();

    // Fork from the first message: the new thread holds that turn only.
    const again = page.locator("#transcript .entry.user", { hasText: "first" });
    await again.locator(".msg-menu summary").click();
    await again.locator('button[data-action="fork"]').click();
    await page.locator("#notice", { hasText: "Forked into" }).waitFor();
    // The notice can come before the new thread's transcript replaces the old one (which holds
    // "wrote one" too): wait for the second turn to go, then for the first turn to be there.
    await page.locator("#transcript .md", { hasText: "wrote two" }).waitFor({ state: "detached" });
    await page.locator("#transcript .md", { hasText: "wrote one" }).waitFor();
    expect(await page.locator("#transcript").textContent()).not.toContain("wrote two");
    expect(opened.errors).toEqual([]);
  });
});
