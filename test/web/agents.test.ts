/**
 * Sub-agents on the web page (README "Sub-agents"), in Debian chromium against a real `tandem serve`
 * stack on the scripted model: the parent spawns a child (keyed by `<subagent_context>` and its
 * task marker, test/helpers/agent-scripts.ts) that asks one question and then ends with a message that
 * carries the answer.
 * - the question sheet names the sub-agent; the answer given on the page reaches the child;
 * - the parent's transcript shows the spawn_agent call as a sub-agent block (nickname, status,
 *   task) that expands to the child's own transcript with its final message, live and after a
 *   reload (history);
 * - the thread list nests the child under its parent.
 * And, without a browser, the display model: a spawn_agent call is the same sub-agent entry
 * live and from history, and one that failed names no child and keeps the error.
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Transcript } from "../../web/src/lib/transcript.js";
import { askingChild, call, outputOf, quietChild, say, spawnCall } from "../helpers/agent-scripts.js";
import { type Served, serve } from "../helpers/http.js";
import { type Harness, harness } from "../helpers/index.js";
import { axeViolations, DESKTOP, launch, noBrowser, type Opened, openApp, shot } from "../helpers/web.js";

/** Parent: spawn one child, wait for it, then end naming what it found. */
const PARENT = {
  steps: [
    { output: [spawnCall("TASK-A: pick one for the release", "sa")] },
    { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
    { expect: { input_contains: ["TASK-A done: Beta"] }, output: [say("parent done")] },
  ],
  side_steps: askingChild("TASK-A", "qa"),
};

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

describe.skipIf(noBrowser)("web app: sub-agents", () => {
  // Fails if the sheet does not name the sub-agent (attribution dropped from the request or the
  // view), if the answer given on the page does not reach the child (its final message and the
  // parent's wait_agent result carry it), if spawn_agent renders as a generic tool cell (no
  // block, or no nickname/task/status), if expanding the block does not load the child's
  // transcript (history) or misses its live messages, or if the thread list shows the child at
  // the top level instead of under its parent.
  it("the parent's transcript nests the child's, and the thread list nests the child", async () => {
    sv = await serve({ script: PARENT });
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    await page.locator("#composer-text").fill("Ask a helper to pick");
    await page.locator("#composer-text").press("Enter");

    // The child's question opens the sheet, attributed to the sub-agent.
    const sheet = page.locator("#sheet");
    await sheet.waitFor({ state: "visible" });
    expect(await sheet.textContent()).toContain("Sub-agent Ada asks");
    expect(await sheet.textContent()).toContain("TASK-A: which one?");

    // Put the question off: the parent's block shows the child waiting, and expands to its
    // transcript so far (the question pending); its final message then arrives live.
    await shot(page, "web-agents-sheet.png");
    await page.locator("#q-later").click();
    await sheet.waitFor({ state: "hidden" });
    const parentId = sv.h.runtime.threads.list().find((t) => t.parent_id === null)!.id;
    const childId = sv.h.runtime.threads.list().find((t) => t.parent_id === parentId)!.id;
    const block = page.locator(`#transcript > .entry.subagent[data-agent="${childId}"]`);
    await block.waitFor();
    const blockStatus = block.locator(":scope > details > summary > .status");
    expect(await block.locator(".agent-name").textContent()).toBe("Ada");
    expect(await block.locator(".agent-task").textContent()).toBe("TASK-A: pick one for the release");
    await expect.poll(() => blockStatus.textContent()).toBe("1 waiting");
    // Collapsed: the child's transcript is not on the page yet.
    expect(await block.locator(".transcript.nested").count()).toBe(0);
    await block.locator("summary").first().click();
    const nested = block.locator(".transcript.nested");
    // The child's own question cell is in its transcript, not the parent's.
    await nested.locator(".entry.question").waitFor();
    expect(await page.locator("#transcript > .entry.question").count()).toBe(0);
    expect(await nested.locator(".entry.agent").count()).toBe(0);

    // Answer from the inbox, which names the sub-agent too.
    const inboxItem = page.locator("#inbox li").first();
    expect(await inboxItem.textContent()).toContain("Sub-agent Ada");
    await inboxItem.locator("button").click();
    await sheet.getByText("Beta", { exact: true }).click();
    await page.locator("#q-submit").click();
    await sheet.waitFor({ state: "hidden" });
    await nested.locator(".entry.agent", { hasText: "TASK-A done: Beta" }).waitFor();
    // The context every child gets is for the model, not a message anyone wrote.
    expect(await nested.textContent()).not.toContain("<subagent_context>");

    expect(await sv.h.waitFor((e) => e.type === "turn.completed" && e.thread_id === parentId)).toMatchObject({
      status: "completed",
    });
    // The answer given on the page is what the parent's wait_agent got from the child.
    const waited = outputOf(sv.h.model.requests, "w1");
    expect(JSON.stringify(waited)).toContain("TASK-A done: Beta");
    await page.locator("#transcript > .entry.agent", { hasText: "parent done" }).waitFor();
    await expect.poll(() => blockStatus.textContent()).toBe("idle");
    // The wait_agent result is a card — the child, its state, its final message — never JSON.
    const card = page.locator(`#transcript > .entry.waited li[data-agent="${childId}"]`);
    expect(await card.locator(".agent-name").textContent()).toBe("Ada");
    expect(await card.locator(".status").textContent()).toBe("completed");
    expect(await card.locator(".md").textContent()).toContain("TASK-A done: Beta");
    expect(await page.locator("#transcript").textContent()).not.toContain("final_message");

    // The thread list: the child under its parent, named by nickname, the parent counting it.
    const parentRow = page.locator(`#threads > li[data-id="${parentId}"]`);
    const childRow = parentRow.locator(`ul.children > li[data-id="${childId}"]`);
    await childRow.waitFor();
    expect(await childRow.locator(".title .ellipsis").textContent()).toBe("Ada");
    expect(await page.locator(`#threads > li[data-id="${childId}"]`).count()).toBe(0);
    expect(await parentRow.locator(":scope > .item .sub").textContent()).toContain("1 sub-agent");
    await shot(page, "web-agents-expanded.png");
    expect(await axeViolations(page)).toEqual([]);

    // After a reload the same, from history: the block, the child's transcript, the nesting.
    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await page
      .locator(`#transcript > .entry.waited li[data-agent="${childId}"] .status`, { hasText: "completed" })
      .waitFor();
    const again = page.locator(`#transcript > .entry.subagent[data-agent="${childId}"]`);
    await again.locator("summary").click();
    await again.locator(".transcript.nested .entry.agent", { hasText: "TASK-A done: Beta" }).waitFor();
    await page
      .locator(`#threads > li[data-id="${parentId}"] ul.children > li[data-id="${childId}"]`)
      .waitFor();

    // Opening the child itself shows its transcript full size, with a way back to the parent.
    await page.locator(`#threads li[data-id="${childId}"] > .item`).click();
    expect(await page.locator("#thread-title").textContent()).toContain("Sub-agent Ada");
    await page.locator("#transcript > .entry.agent", { hasText: "TASK-A done: Beta" }).waitFor();
    await page.locator("#parent-thread").click();
    await page.locator("#transcript > .entry.subagent").waitFor();
    expect(opened.errors).toEqual([]);
  });
});

describe("sub-agent entries in the transcript model", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  // Fails if spawn_agent falls back to a generic tool cell, if live and history disagree on the
  // child's id, nickname, task or role, or if a failed spawn (unknown role) names a child.
  it("a spawn_agent call is one sub-agent entry, live and from history; a failed one keeps its error", async () => {
    h = await harness({
      script: {
        steps: [
          {
            output: [
              spawnCall("TASK-Q: look around", "s1"),
              call("spawn_agent", { message: "TASK-X", agent_type: "nope" }, "s2"),
            ],
          },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [say("parent done")] },
        ],
        side_steps: quietChild("TASK-Q"),
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    await thread.startTurn("go").done;
    const child = h.runtime.threads.list().find((t) => t.parent_id === thread.id)!;
    const live = new Transcript();
    for (const s of h.events)
      if ("thread_id" in s.event && s.event.thread_id === thread.id) live.apply(s.event);
    const stored = new Transcript();
    stored.load([...thread.items()]);
    const agents = (t: Transcript) => t.entries.filter((e) => e.kind === "subagent");
    expect(agents(live)).toEqual(agents(stored));
    const [ok, failed] = agents(stored);
    expect(ok).toEqual({
      kind: "subagent",
      id: "s1",
      task: "TASK-Q: look around",
      role: "default",
      agentId: child.id,
      nickname: "Ada",
      status: "completed",
    });
    expect(failed).toMatchObject({ id: "s2", role: "nope", agentId: null, status: "failed" });
    expect((failed as { error: string }).error).toContain('unknown agent_type "nope"');
    expect(stored.entries.some((e) => e.kind === "tool" && e.tool === "spawn_agent")).toBe(false);
  });
});
