/**
 * A long thread in the web app (issue "Speed that holds as the work grows", item 5): the page
 * draws only the last entries of a long transcript (its first paint does not grow with the
 * thread), says how many are hidden, and draws earlier ones on "Show earlier" — in Debian
 * chromium against a real `tandem serve` whose store was filled beforehand.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import type { ThreadRecord } from "../../src/protocol/threads.js";
import { openStore } from "../../src/store/index.js";
import { serve } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { browserRig, DESKTOP, noBrowser, openApp } from "../helpers/web.js";

const rig = browserRig();
const TURNS = 200;

/** A thread of TURNS turns (a user message and an answer each) in `home`'s store. */
function fill(home: string): string {
  const store = openStore(join(home, "state.db"));
  const id = "0190aaaa-0000-7000-8000-00000000long";
  const now = Date.now();
  store.createThread({
    id,
    session_id: id,
    parent_id: null,
    cwd: home,
    model: "gpt-5",
    mode: "default",
    status: "idle",
    settings: {},
    created_at: now,
    updated_at: now,
    title: "A long thread",
  } as unknown as ThreadRecord);
  for (let i = 0; i < TURNS; i++) {
    const turn = `turn_${i}`;
    store.putTurn({
      id: turn,
      thread_id: id,
      status: "completed",
      started_at: now,
      ended_at: now,
      usage: null,
      error: null,
    });
    const items = [
      { type: "message", role: "user", content: [{ type: "input_text", text: `Question number ${i}` }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: `Answer number ${i}.` }] },
    ] as unknown as ResponseItem[];
    for (const it of items) store.appendItem(id, turn, it);
  }
  store.close();
  return id;
}

describe.skipIf(noBrowser)("web: a long thread", () => {
  it("opens on its last entries, says how many are hidden, and shows earlier ones on request", async () => {
    const home = tempDir("tandem-home-");
    const id = fill(home);
    const sv = await serve({ home, script: { steps: [] } });
    rig.sv = sv;
    const opened = await openApp(rig.browser, sv, DESKTOP);
    rig.opened = opened;
    const { page } = opened;
    await page.locator(`#threads li[data-id="${id}"] .item`).click();
    await page.locator("#transcript .md", { hasText: `Answer number ${TURNS - 1}.` }).waitFor();
    const entries = page.locator("#transcript > .entry:not(.earlier)");
    const drawn = await entries.count();
    expect(drawn).toBeLessThan(2 * TURNS);
    const more = page.locator("#show-earlier");
    const hidden = Number(
      /\((\d[\d,]*) more\)/.exec((await more.textContent()) ?? "")?.[1]?.replace(/,/g, ""),
    );
    expect(hidden).toBeGreaterThan(0);
    expect(await page.locator("#transcript", { hasText: "Question number 0" }).count()).toBe(0);
    while (await more.isVisible()) await more.click();
    await page.locator("#transcript", { hasText: "Question number 0" }).waitFor();
    expect(await entries.count()).toBe(drawn + hidden);
    expect(opened.errors).toEqual([]);
    rmSync(home, { recursive: true, force: true });
  });
});
