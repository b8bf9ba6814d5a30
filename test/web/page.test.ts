/**
 * The web page in a real browser (Debian chromium through playwright-core) against a real
 * `tandem serve` stack: the question arrives live, is answered by mouse, touch or keyboard, and
 * the turn completes on the server. Screenshots go to $TANDEM_TEST_ARTIFACTS (test/helpers/web.ts).
 * Skipped, with the install command in the run's summary, without chromium.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Script, Scripts } from "../../src/mock-model/index.js";
import { type Served, serve, until } from "../helpers/http.js";
import { DESKTOP, launch, noBrowser, openApp, PHONE, shot } from "../helpers/web.js";

function demo(expectAfterQuestion: string[] = []): Script {
  const s = Scripts.questionDemo({ tokenDelayMs: 2 });
  s.steps[1] = { ...s.steps[1], expect: { input_contains: expectAfterQuestion } };
  return s;
}

let browser: Browser;
let sv: Served | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  if (!noBrowser) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
  await sv?.close();
  sv = undefined;
});

/** Opens the page with the token in the fragment and waits until its event stream is live. */
async function openPage(
  opts: Parameters<Browser["newContext"]>[0] = DESKTOP,
): Promise<{ page: Page; errors: string[] }> {
  const o = await openApp(browser, sv!, opts);
  context = o.context;
  return o;
}
const turnDone = () => sv!.h.waitFor((e) => e.type === "turn.completed");

describe.skipIf(noBrowser)("web page", () => {
  it("desktop: the question arrives live; click an option, type a note, submit; the turn completes", async () => {
    sv = await serve({ script: demo(["Rust", "needs cargo first", "tandem-demo"]) });
    const { page, errors } = await openPage();
    await page.locator("#composer-text").fill("Set up the demo project");
    await page.locator("#send").click();

    const sheet = page.locator("#sheet");
    await sheet.waitFor({ state: "visible" });
    await expect
      .poll(() => page.locator("#q-list legend").allTextContents())
      .toEqual(["StackWhich stack should the demo project use?", "NameWhat should the project be called?"]);
    expect(await page.locator("#inbox li").count()).toBe(1);
    await page.getByText("Rust", { exact: true }).click();
    await page.locator("fieldset.q").nth(0).locator("input.note").fill("needs cargo first");
    await page.locator("fieldset.q").nth(1).locator("input.other").fill("tandem-demo");
    await shot(page, "web-desktop-question.png");
    await page.locator("#q-submit").click();

    const done = await turnDone();
    expect(done).toMatchObject({ status: "completed" });
    await sheet.waitFor({ state: "hidden" });
    const answered = sv.h.events.find((s) => s.event.type === "question.answered")!.event as any;
    expect(answered.outcome.answers).toEqual({
      stack: { selected: ["Rust"], note: "needs cargo first" },
      name: { selected: [], other: "tandem-demo" },
    });
    expect(answered.responder.kind).toBe("web");
    await page.getByText(Scripts.QUESTION_DEMO_FINAL).waitFor();
    await page.locator(".entry.command .cmd").first().waitFor();
    expect(await page.locator("#inbox li").count()).toBe(0);
    await shot(page, "web-desktop-done.png");
    expect(errors).toEqual([]);
  });

  it("phone: a question from another surface's turn shows up live and is answered by touch", async () => {
    sv = await serve({ script: demo(["TypeScript (Recommended)", "on my phone"]) });
    const { page, errors } = await openPage(PHONE);
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "Set up the demo project" });

    await page.locator("#sheet").waitFor({ state: "visible" });
    const sheetBox = await page.locator("#sheet [role=dialog]").boundingBox();
    expect(sheetBox!.width).toBeGreaterThanOrEqual(389);
    const option = page.locator("label.opt").first();
    expect((await option.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await option.tap();
    await page.locator("fieldset.q").nth(0).locator("input.note").fill("on my phone");
    await shot(page, "web-phone-question.png");
    await page.locator("#q-submit").tap();
    // One question is unanswered: the page asks before submitting.
    await page.locator("#q-confirm").waitFor({ state: "visible" });
    expect(await page.locator("#q-confirm-text").textContent()).toContain("1 of 2 unanswered (Name)");
    await page.locator("#q-confirm-ok").tap();

    expect(await turnDone()).toMatchObject({ status: "completed" });
    await page.locator("#sheet").waitFor({ state: "hidden" });
    // On a phone the thread list is a drawer behind the menu button.
    await page.locator("#threads-button").tap();
    await page.locator("#threads li").first().tap();
    await page.getByText(Scripts.QUESTION_DEMO_FINAL).waitFor();
    await shot(page, "web-phone-done.png");
    expect(errors).toEqual([]);
  });

  it("keyboard: digits pick, Enter advances and submits after confirming", async () => {
    sv = await serve({ script: demo(["Rust", '"unanswered":["name"]']) });
    const { page } = await openPage();
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "go" });
    await page.locator("#sheet").waitFor({ state: "visible" });
    await page.keyboard.press("2");
    expect(await page.locator("fieldset.q").nth(0).locator("input:checked").inputValue()).toBe("Rust");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("fieldset.q[data-current]").getAttribute("data-index")).toBe("1");
    await page.keyboard.press("Enter");
    await page.locator("#q-confirm").waitFor({ state: "visible" });
    await page.keyboard.press("Enter");
    expect(await turnDone()).toMatchObject({ status: "completed" });
  });

  // Fails if free text is offered beside the options without choosing "Other…" (a text field that
  // is always there), if choosing it (digit 3) does not show its field and focus it, if Submit goes
  // on with "Other…" chosen and nothing typed, or if the typed text does not replace the options.
  it('"Other…" is an explicit choice: its text field appears when chosen, and the text is the answer', async () => {
    sv = await serve({ script: demo(["Zig", "zig-app"]) });
    const { page } = await openPage();
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "go" });
    await page.locator("#sheet").waitFor({ state: "visible" });
    const stack = page.locator("fieldset.q").nth(0);
    expect(await stack.locator("input.other").count()).toBe(0);
    expect(await stack.locator("label.opt .label").allTextContents()).toEqual([
      "TypeScript (Recommended)",
      "Rust",
      "Other…",
    ]);
    await page.keyboard.press("3");
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.className))
      .toBe("other");
    await page.locator("fieldset.q").nth(1).locator("input.other").fill("zig-app");
    await page.locator("#q-submit").click();
    await page.locator("#q-error").waitFor({ state: "visible" });
    expect(await page.locator("#q-error").textContent()).toContain("you chose Other…");
    await stack.locator("input.other").fill("Zig");
    await page.locator("#q-submit").click();
    expect(await turnDone()).toMatchObject({ status: "completed" });
    const answered = sv.h.events.find((s) => s.event.type === "question.answered")!.event as any;
    expect(answered.outcome.answers).toEqual({
      stack: { selected: [], other: "Zig" },
      name: { selected: [], other: "zig-app" },
    });
  });

  it("keyboard: Esc declines and the model is told so", async () => {
    sv = await serve({ script: demo(['"status":"declined"']) });
    const { page } = await openPage();
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "go" });
    await page.locator("#sheet").waitFor({ state: "visible" });
    await page.keyboard.press("Escape");
    expect(await turnDone()).toMatchObject({ status: "completed" });
    const declined = sv.h.events.find((s) => s.event.type === "question.declined")!.event as any;
    expect(declined.responder.kind).toBe("web");
  });

  it("says 'answered elsewhere' when another surface wins", async () => {
    sv = await serve({ script: demo(["Rust"]) });
    const { page } = await openPage();
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "go" });
    await page.locator("#sheet").waitFor({ state: "visible" });
    await page.getByText("TypeScript (Recommended)", { exact: true }).click();
    const requestId = sv.h.runtime.questions.list()[0].request_id;
    const r = await sv.call("POST", `/question/${requestId}/reply`, {
      thread_id: id,
      text: { stack: "Rust" },
    });
    expect(r.status).toBe(200);
    await expect
      .poll(() => page.locator("#q-banner").textContent())
      .toBe("Answered elsewhere by http: stack: Rust");
    expect(await page.locator("#q-submit").isHidden()).toBe(true);
    expect(await page.locator("fieldset.q input").first().isDisabled()).toBe(true);
    await shot(page, "web-answered-elsewhere.png");
    await page.locator("#q-later").click();
    await page.locator("#sheet").waitFor({ state: "hidden" });
    expect(await turnDone()).toMatchObject({ status: "completed" });
  });

  it("masks a secret answer, counts down a timeout policy and snoozes it on interaction", async () => {
    const secret: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "request_user_input",
              arguments: {
                questions: [{ id: "api_key", header: "Key", question: "Paste the API key", secret: true }],
              },
            },
          ],
        },
        { expect: { input_contains: ["$TANDEM_SECRET"] }, output: [{ type: "message", text: "stored" }] },
      ],
    };
    sv = await serve({ script: secret });
    const { page } = await openPage();
    const id = (
      await sv.call("POST", "/thread", {
        mode: "plan",
        question_policy: { type: "timeout", ms: 120_000, on_timeout: "decline" },
      })
    ).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "deploy" });
    await page.locator("#sheet").waitFor({ state: "visible" });
    const countdown = page.locator("#q-countdown");
    await countdown.waitFor({ state: "visible" });
    expect(await countdown.textContent()).toMatch(/^(2:00|1:5\d) left, then declines$/);
    const input = page.locator("input.other");
    expect(await input.getAttribute("type")).toBe("password");
    // A secret question has no note field: a note is shown to the model, the secret never is.
    expect(await page.locator("input.note").count()).toBe(0);
    await input.fill("sk-very-secret-value");
    await until(() => sv!.h.events.some((s) => s.event.type === "question.deadline_changed"));
    await page.keyboard.press("Enter");
    expect(await turnDone()).toMatchObject({ status: "completed" });
    const answered = sv.h.events.find((s) => s.event.type === "question.answered")!.event as any;
    expect(JSON.stringify(answered)).not.toContain("sk-very-secret-value");
    await page.getByText("stored", { exact: true }).waitFor();
    expect(await page.content()).not.toContain("sk-very-secret-value");
  });
});
