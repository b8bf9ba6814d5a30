// Renders web/public/icon.svg to the PNG icons the web app manifest lists (192 and 512 px),
// with Debian chromium through playwright-core. Run after changing the SVG:
// `node scripts/web-icons.mjs`; the PNGs are committed, so builds need no browser.
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const svg = readFileSync(new URL("../web/public/icon.svg", import.meta.url), "utf8");
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless"],
});
try {
  for (const size of [192, 512]) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}svg{width:${size}px;height:${size}px;display:block}</style>${svg}`,
    );
    await page.screenshot({
      path: new URL(`../web/public/icon-${size}.png`, import.meta.url).pathname,
      omitBackground: true,
    });
    await page.close();
  }
} finally {
  await browser.close();
}
