/**
 * Helpers for the web app's browser tests (Debian chromium through playwright-core against a
 * real `tandem serve` stack, test/helpers/http.ts): one browser per file, pages opened with the
 * token in the fragment, screenshots, and an axe-core accessibility check run inside the page.
 *
 * Screenshots go to $TANDEM_TEST_ARTIFACTS (e.g. `test-artifacts/` in the checkout), by default
 * $TMPDIR/tandem-test-artifacts: tests never write into the repository unless asked to. Suites skip, with the install command in the run's summary, without
 * chromium (test/helpers/system-tools.ts).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { type Served, TOKEN, until } from "./http.js";
import { missing } from "./system-tools.js";

export const noBrowser = missing("chromium").length > 0;
export const ARTIFACTS = process.env.TANDEM_TEST_ARTIFACTS ?? join(tmpdir(), "tandem-test-artifacts");
export const DESKTOP = { viewport: { width: 1280, height: 800 } };
export const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
  colorScheme: "dark" as const,
};

export async function launch(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
}

export interface Opened {
  context: BrowserContext;
  page: Page;
  /** Page errors and console errors (CSP violations show here too). */
  errors: string[];
}

/** Opens the app with the token in the fragment and waits until its event stream is live. */
export async function openApp(
  browser: Browser,
  sv: Served,
  opts: Parameters<Browser["newContext"]>[0] = DESKTOP,
): Promise<Opened> {
  const context = await browser.newContext(opts);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`${sv.url}/#token=${TOKEN}`);
  await page.locator("#conn[data-state=live]").waitFor();
  await until(() => runtimeInternals(sv.h.runtime).responders.size > 0);
  // The token left the address bar as soon as it was read.
  expect(page.url()).not.toContain(TOKEN);
  return { context, page, errors };
}

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, name), fullPage: false });

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core's serious and critical violations on the page as it is now ("rule: target …").
 * axe is evaluated through the DevTools protocol: `page.addScriptTag` would add an inline
 * script, which the app's CSP rightly refuses.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(AXE);
  const found: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> =
    await page.evaluate(async () => {
      const g = globalThis as any;
      return (await g.axe.run(g.document, { resultTypes: ["violations"] })).violations;
    });
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * The hooks a browser test file needs: one chromium for the file (none without it: the suite
 * is skipped with `noBrowser`), and the server and page a test opens (`rig.sv`, `rig.opened`),
 * closed after each test.
 */
export function browserRig(): { browser: Browser; sv?: Served; opened?: Opened } {
  const rig = {} as { browser: Browser; sv?: Served; opened?: Opened };
  beforeAll(async () => {
    if (!noBrowser) rig.browser = await launch();
  });
  afterAll(async () => {
    await rig.browser?.close();
  });
  afterEach(async () => {
    await rig.opened?.context.close();
    rig.opened = undefined;
    await rig.sv?.close();
    rig.sv = undefined;
  });
  return rig;
}
