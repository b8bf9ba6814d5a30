/**
 * Restarting `tandem serve` under an open tab (README, "The web app"), with real processes
 * (`./bin/tandem serve`, `tandem mock-model`) and Debian chromium at 390x844:
 * - same TANDEM_HOME: the tab reconnects by itself (no reload), its pending question stays and
 *   is answered through the new process, and the URL printed before still opens the app;
 * - a question settled while the server was down: its sheet closes after the reconnect;
 * - `--rotate-token`: the token box shows with no sheet over it, and the new link pasted into
 *   the same tab connects without a reload;
 * - a stream the browser gives up on (an error status, e.g. a proxy's 503) is opened again.
 */
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { startHttpServer } from "../../src/surfaces/http/server.js";
import { type MockProcess, type ServeRun, spawnServe, startMockProcess } from "../helpers/cli.js";
import { type Served, serve as serveInProcess, TOKEN } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { freePort } from "../helpers/infra/postgres.js";
import { launch, noBrowser, type Opened, openApp, PHONE } from "../helpers/web.js";

const ask = {
  output: [
    {
      type: "function_call" as const,
      name: "request_user_input",
      arguments: {
        questions: [
          {
            id: "color",
            header: "Color",
            question: "Which colour survives restarts?",
            options: [
              { label: "Blue", description: "calm" },
              { label: "Green", description: "fresh" },
            ],
          },
        ],
      },
    },
  ],
};

let browser: Browser;
let mock: MockProcess | undefined;
let serve: ServeRun | undefined;
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
  await stop();
  await mock?.stop();
  mock = undefined;
});

async function start(home: string, port: number, args: string[] = []): Promise<{ link: string }> {
  serve = await spawnServe(["--port", String(port), "-c", `openai_base_url="${mock!.url}"`, ...args], {
    TANDEM_HOME: home,
    OPENAI_API_KEY: "k",
    TANDEM_SERVE_TOKEN: undefined,
  });
  return { link: serve.lines[1].replace(/^open /, "") };
}
async function stop(): Promise<void> {
  const p = serve?.proc;
  serve = undefined;
  if (!p || p.exitCode !== null) return;
  const exited = new Promise((r) => p.once("exit", r));
  p.kill("SIGTERM");
  await exited;
}
const tokenOf = (link: string) => decodeURIComponent(link.split("#token=")[1]);

async function openTab(link: string): Promise<Page> {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  opened = { context, page, errors };
  await page.goto(link);
  await page.locator("#conn[data-state=live]").waitFor();
  // Survives only if the page is never reloaded.
  await page.evaluate(() => {
    (globalThis as any).__sameDocument = true;
  });
  return page;
}
const sameDocument = (page: Page) => page.evaluate(() => (globalThis as any).__sameDocument === true);

/** Starts a plan-mode thread whose turn asks; resolves with the thread id. */
async function asking(base: string, token: string): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const id = (
    (await (
      await fetch(`${base}/thread`, { method: "POST", headers, body: '{"mode":"plan"}' })
    ).json()) as any
  ).id;
  await fetch(`${base}/thread/${id}/turn`, { method: "POST", headers, body: '{"text":"pick a colour"}' });
  return id;
}

describe.skipIf(noBrowser)("web app across `tandem serve` restarts", () => {
  // Fails if the tab needs a reload to reconnect (the stream not reopened, or reopened without
  // refetching), if the token changes across restarts (the old URL then fails), or if the
  // question asked before the restart cannot be answered from the reconnected tab.
  it("same TANDEM_HOME: the open tab reconnects by itself, its question is answered, the old URL works", async () => {
    mock = await startMockProcess({
      steps: [
        ask,
        { expect: { input_contains: ["Green"] }, output: [{ type: "message", text: "Green it is." }] },
      ],
    });
    const home = tempDir("tandem-home-");
    const port = await freePort();
    const { link } = await start(home, port);
    const base = `http://127.0.0.1:${port}`;
    const page = await openTab(link);
    await asking(base, tokenOf(link));
    await page.locator("#sheet fieldset.q", { hasText: "Which colour survives restarts?" }).waitFor();

    await stop();
    await page.locator("#conn:not([data-state=live])").waitFor();
    const again = await start(home, port);
    expect(again.link).toBe(link);
    await page.locator("#conn[data-state=live]").waitFor({ timeout: 25_000 });
    expect(await sameDocument(page)).toBe(true);
    const sheet = page.locator("#sheet");
    await sheet.locator("fieldset.q", { hasText: "Which colour survives restarts?" }).waitFor();
    await sheet.getByText("Green", { exact: true }).tap();
    await page.locator("#q-submit").tap();
    await page.locator("#transcript .md", { hasText: "Green it is." }).waitFor({ timeout: 15_000 });
    expect(await sameDocument(page)).toBe(true);

    // The URL printed at the first start opens the app in a new tab too.
    const other = await opened!.context.newPage();
    await other.goto(link);
    await other.locator("#conn[data-state=live]").waitFor();
    expect(opened!.errors).toEqual([]);
  });

  // Fails if a sheet whose question is no longer pending after the reconnect stays on screen.
  it("a question settled while the server was down: its sheet closes after the reconnect", async () => {
    mock = await startMockProcess({ steps: [ask] });
    const home = tempDir("tandem-home-");
    const port = await freePort();
    const { link } = await start(home, port);
    const page = await openTab(link);
    await asking(`http://127.0.0.1:${port}`, tokenOf(link));
    await page.locator("#sheet fieldset.q").waitFor();
    await stop();
    await page.locator("#conn:not([data-state=live])").waitFor();
    // Settled elsewhere while this server was down (another process sharing the home).
    const store = openStore(join(home, "state.db"));
    const [pending] = store.pendingQuestions();
    store.settleQuestion(pending.request_id, { status: "cancelled", reason: "settled while down" });
    store.close();
    await start(home, port);
    await page.locator("#conn[data-state=live]").waitFor({ timeout: 25_000 });
    await page.locator("#sheet").waitFor({ state: "detached" });
    expect(await page.locator("#inbox-button .count").textContent()).toBe("0");
    expect(await sameDocument(page)).toBe(true);
  });

  // Fails if the token box is covered by the old question's sheet, or if a new #token= pasted
  // into the tab does nothing until a reload (no hashchange handling).
  it("--rotate-token: the token box is not covered, and the new link connects the same tab", async () => {
    mock = await startMockProcess({ steps: [ask] });
    const home = tempDir("tandem-home-");
    const port = await freePort();
    const { link } = await start(home, port);
    const page = await openTab(link);
    await asking(`http://127.0.0.1:${port}`, tokenOf(link));
    await page.locator("#sheet fieldset.q").waitFor();
    await stop();
    const rotated = await start(home, port, ["--rotate-token"]);
    expect(rotated.link).not.toBe(link);
    await page.locator("#auth-token").waitFor({ timeout: 25_000 });
    expect(await page.locator("#sheet").count()).toBe(0);
    expect(await page.locator("#auth-error").textContent()).toContain("refused the token");
    await page.evaluate(
      (h) => {
        (globalThis as any).location.hash = h;
      },
      `token=${encodeURIComponent(tokenOf(rotated.link))}`,
    );
    await page.locator("#conn[data-state=live]").waitFor();
    expect(await sameDocument(page)).toBe(true);
    expect(page.url()).toBe(`http://127.0.0.1:${port}/`);
    // Its question is still pending, and shows again.
    await page.locator("#sheet fieldset.q", { hasText: "Which colour survives restarts?" }).waitFor();
  });

  // Fails if a stream that failed for good (EventSource stops retrying after an error status)
  // is not opened again: the page would stay "disconnected" until a reload.
  it("a stream refused with 503 is opened again by itself", async () => {
    let sv: Served | undefined = await serveInProcess({ script: { steps: [] } });
    try {
      opened = await openApp(browser, sv, PHONE);
      const { page } = opened;
      let refused = 0;
      await page.route(/\/event\?/, (route) => {
        if (refused++ < 2) return route.fulfill({ status: 503, body: "busy" });
        return route.continue();
      });
      // Drop the live stream: the browser reconnects into the 503s and gives up.
      await sv.server.close();
      const again = await startHttpServer(sv.h.runtime, { token: TOKEN, port: Number(new URL(sv.url).port) });
      await page.locator("#conn:not([data-state=live])").waitFor();
      await page.locator("#conn[data-state=live]").waitFor({ timeout: 25_000 });
      expect(refused).toBeGreaterThanOrEqual(3);
      await again.close();
      await sv.h.close();
      sv = undefined;
    } finally {
      await sv?.close();
    }
  });
});
