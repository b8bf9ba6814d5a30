/**
 * The phone's part of the web app (README, "The web app"), in Debian chromium at 390x844 against
 * a real `tandem serve` stack on the scripted model:
 * - the service worker is registered (scope `/`), the manifest passes chromium's installability
 *   check and its icons load;
 * - a question arriving while the page is hidden is shown through the registration (observed
 *   with `registration.getNotifications()`), with a deep link that holds no token; a click on it
 *   (a `notificationclick` dispatched inside the worker) opens its question's sheet in the open
 *   tab. (With no tab open the worker calls `clients.openWindow`, which needs the user activation
 *   of a real click: a dispatched event cannot exercise it.)
 * - a deep link opens the question it names;
 * - notifications blocked for the site: the page says where to allow them;
 * - over plain http on a network address the page says why it cannot notify.
 * A persistent browser profile is used: chromium's installability check refuses incognito ones.
 */
import { mkdtempSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { startHttpServer } from "../../src/surfaces/http/server.js";
import { type Served, serve, TOKEN, until } from "../helpers/http.js";
import { noBrowser, PHONE, shot } from "../helpers/web.js";

let sv: Served | undefined;
let context: BrowserContext | undefined;
afterEach(async () => {
  await context?.close();
  context = undefined;
  await sv?.close();
  sv = undefined;
});

/** A persistent (non-incognito) phone profile with notifications allowed for `origin`. */
async function phoneProfile(origin?: string): Promise<BrowserContext> {
  const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "tandem-profile-")), {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
    ...PHONE,
  });
  // Chromium grants notifications to secure origins only.
  if (origin) await ctx.grantPermissions(["notifications"], { origin });
  return ctx;
}

async function open(ctx: BrowserContext, url: string): Promise<Page> {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(url);
  await page.locator("#conn[data-state=live]").waitFor();
  return page;
}

const ask = (question: string) => ({
  output: [
    {
      type: "function_call" as const,
      name: "request_user_input",
      arguments: {
        questions: [
          {
            id: "pick",
            header: "Pick",
            question,
            options: [
              { label: "Yes", description: "go on" },
              { label: "No", description: "stop" },
            ],
          },
        ],
      },
    },
  ],
});

/** Starts a plan-mode thread whose first model step asks; resolves with its pending request. */
async function asking(s: Served, before: number) {
  const id = (await s.call("POST", "/thread", { mode: "plan" })).json.id;
  await s.call("POST", `/thread/${id}/turn`, { text: "go" });
  await until(() => s.h.runtime.questions.list().length > before, 10_000);
  const request = s.h.runtime.questions.list().find((r) => r.thread_id === id)!;
  return { id, request };
}

const notifications = (page: Page) =>
  page.evaluate(async () => {
    const reg = await (globalThis as any).navigator.serviceWorker.ready;
    return (await reg.getNotifications()).map((n: any) => ({
      title: n.title as string,
      body: n.body as string,
      tag: n.tag as string,
      data: n.data,
    }));
  });

/** Makes the page report itself hidden, as a phone does for a backgrounded tab. */
const hide = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as any).document;
    Object.defineProperty(doc, "visibilityState", { value: "hidden", configurable: true });
    Object.defineProperty(doc, "hidden", { value: true, configurable: true });
    doc.dispatchEvent(new Event("visibilitychange"));
  });

/** Clicks the notification tagged `tag` inside the service worker, as the OS would. */
async function clickNotification(ctx: BrowserContext, tag: string) {
  const worker = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent("serviceworker"));
  await worker.evaluate(async (t) => {
    const g = globalThis as any;
    const [n] = await g.registration.getNotifications({ tag: t });
    if (!n) throw new Error(`no notification tagged ${t}`);
    g.dispatchEvent(new g.NotificationEvent("notificationclick", { notification: n }));
  }, tag);
}

describe.skipIf(noBrowser)("web app on a phone: service worker, notifications, deep links", () => {
  // Fails if the worker is not registered at scope /, if the manifest misses a field or an icon
  // chromium needs to offer installing, if a hidden page's question does not reach the
  // registration (e.g. `new Notification()` again), if the notification carries the token, or
  // if its click does not open the question in the open tab.
  it("registered worker, installable manifest, a hidden page's question notifies and its click opens it", async () => {
    const script: Script = {
      steps: [ask("Deploy to staging now?"), { output: [{ type: "message", text: "ok" }] }],
    };
    sv = await serve({ script });
    context = await phoneProfile(sv.url);
    const page = await open(context, `${sv.url}/#token=${TOKEN}`);

    const reg = await page.evaluate(async () => {
      const r = await (globalThis as any).navigator.serviceWorker.ready;
      return { scope: r.scope, script: r.active?.scriptURL };
    });
    expect(reg).toEqual({ scope: `${sv.url}/`, script: `${sv.url}/sw.js` });
    const manifest = (await (await fetch(`${sv.url}/manifest.webmanifest`)).json()) as any;
    expect(manifest).toMatchObject({ start_url: "/", scope: "/", display: "standalone", name: "Tandem" });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/);
    const sizes = manifest.icons.map((i: any) => i.sizes);
    expect(sizes).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    for (const icon of manifest.icons) {
      const r = await fetch(`${sv.url}${icon.src}`);
      expect(r.status, icon.src).toBe(200);
      expect(r.headers.get("content-type")).toBe(icon.type);
    }
    const cdp = await context.newCDPSession(page);
    await expect
      .poll(async () => (await cdp.send("Page.getInstallabilityErrors")).installabilityErrors, {
        timeout: 10_000,
      })
      .toEqual([]);

    await page.locator("#notify").tap();
    await page.locator("#notify[aria-pressed=true]").waitFor();
    expect(await page.locator("#notify").textContent()).toBe("Notifications on");
    await hide(page);
    const { id, request } = await asking(sv, 0);
    await expect
      .poll(async () => [await notifications(page), await page.locator("#notify-why").allTextContents()], {
        timeout: 10_000,
      })
      .toEqual([[expect.anything()], []]);
    const [n] = await notifications(page);
    expect(n.title).toBe("Tandem: a question is waiting");
    expect(n.body).toContain("Deploy to staging now?");
    expect(n.tag).toBe(request.request_id);
    expect(n.data).toMatchObject({ thread: id, question: request.request_id });
    expect(n.data.url).toBe(
      `${sv.url}/#thread=${encodeURIComponent(id)}&question=${encodeURIComponent(request.request_id)}`,
    );
    expect(JSON.stringify(n)).not.toContain(TOKEN);

    // The page opened the sheet itself; put it off, then click the notification.
    await page.locator("#q-later").tap();
    await page.locator("#sheet").waitFor({ state: "detached" });
    await clickNotification(context, request.request_id);
    await page.locator("#sheet #q-title", { hasText: "Pick" }).waitFor();
    expect(await notifications(page)).toEqual([]);
    await shot(page, "web-notify-opened.png");

    // Nothing the worker saw was cached.
    const worker = context.serviceWorkers()[0];
    expect(await worker.evaluate(() => (globalThis as any).caches.keys())).toEqual([]);
  });

  // Fails if the page claims notifications are on (or says nothing) when the user has blocked
  // them for the site, or if it gives no way to allow them again.
  it("notifications blocked for the site: says where to allow them, and stays off", async () => {
    sv = await serve({ script: { steps: [] } });
    context = await phoneProfile();
    const page = await open(context, `${sv.url}/#token=${TOKEN}`);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Browser.setPermission", {
      permission: { name: "notifications" },
      setting: "denied",
      origin: sv.url,
    });
    expect(await page.evaluate(() => (globalThis as any).Notification.permission)).toBe("denied");
    await page.locator("#notify").tap();
    const why = page.locator("#notify-why");
    await why.waitFor();
    expect(await why.textContent()).toContain(
      "Notifications are blocked for this site: allow them in the browser's site settings",
    );
    expect(await page.locator("#notify").getAttribute("aria-pressed")).toBe("false");
    expect(await page.locator("#notify").getAttribute("aria-describedby")).toBe("notify-why");
  });

  // Fails if the fragment's thread and question are ignored (the oldest pending question, which
  // the page opens by itself, would show instead), or if the token is left in the address bar.
  it("a deep link opens the question it names", async () => {
    sv = await serve({ script: { steps: [ask("First question?"), ask("Second question?")] } });
    // Someone who can answer, so the questions wait before any page is open.
    sv.h.runtime.questions.attach("all", { kind: "http", id: "test" });
    const first = await asking(sv, 0);
    const second = await asking(sv, 1);
    expect(first.request.request_id).not.toBe(second.request.request_id);
    context = await phoneProfile(sv.url);
    const link = `${sv.url}/#token=${TOKEN}&thread=${second.id}&question=${encodeURIComponent(second.request.request_id)}`;
    const page = await open(context, link);
    await page.locator("#sheet fieldset.q", { hasText: "Second question?" }).waitFor();
    expect(page.url()).toBe(`${sv.url}/`);
    expect(await page.locator("#threads li[aria-current=true]").getAttribute("data-id")).toBe(second.id);
    // A link pasted into the open tab (no reload) works the same.
    await page.locator("#q-later").tap();
    await page.evaluate(
      (h) => {
        (globalThis as any).location.hash = h;
      },
      `thread=${first.id}&question=${encodeURIComponent(first.request.request_id)}`,
    );
    await page.locator("#sheet fieldset.q", { hasText: "First question?" }).waitFor();
  });
});

const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

describe.skipIf(noBrowser || !lanAddress)("web app over plain http on a network address", () => {
  // Fails if the page claims notifications work (or says nothing) where the browser cannot give
  // it a service worker: not a secure context.
  it("says notifications need https, and registers no worker", async () => {
    sv = await serve({ script: { steps: [] } });
    const lan = await startHttpServer(sv.h.runtime, { token: TOKEN, host: lanAddress!, port: 0 });
    try {
      context = await phoneProfile();
      const page = await open(context, `${lan.url}/#token=${TOKEN}`);
      expect(await page.evaluate(() => (globalThis as any).isSecureContext)).toBe(false);
      await page.locator("#notify").tap();
      const why = page.locator("#notify-why");
      await why.waitFor();
      expect(await why.textContent()).toContain(`Notifications need a secure page: ${lan.url} is plain http`);
      expect(await page.locator("#notify").getAttribute("aria-pressed")).toBe("false");
      expect(await page.evaluate(() => "serviceWorker" in (globalThis as any).navigator)).toBe(false);
    } finally {
      await lan.close();
    }
  });
});
