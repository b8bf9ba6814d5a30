/**
 * Serves the web page (SPEC S4, issue 4 part 3) from memory: `/` (HTML), `/app.css`, `/app.js`.
 * The assets are TypeScript string modules, so the esbuild bundle and the sources serve the same
 * bytes without any file lookup. Public routes: the page holds no data until it has a token.
 *
 * A strict Content-Security-Policy allows only these same-origin assets and same-origin
 * fetch/EventSource: no inline script, no external hosts, no framing.
 */
import { Hono } from "hono";
import { APP_JS } from "./app-js.js";
import { PAGE_CSS } from "./css.js";
import { PAGE_HTML } from "./html.js";
import { QUESTION_JS } from "./question-js.js";
import { TRANSCRIPT_JS } from "./transcript-js.js";

/** The page's whole script: all parts in one strict-mode scope. */
export const PAGE_JS = `(() => {\n"use strict";\n${APP_JS}\n${TRANSCRIPT_JS}\n${QUESTION_JS}\n})();\n`;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function webRoutes(): Hono {
  const app = new Hono();
  const asset = (body: string, type: string) => () =>
    new Response(body, {
      headers: {
        "content-type": type,
        "cache-control": "no-cache",
        "content-security-policy": CSP,
      },
    });
  app.get("/", asset(PAGE_HTML, "text/html; charset=utf-8"));
  app.get("/index.html", asset(PAGE_HTML, "text/html; charset=utf-8"));
  app.get("/app.css", asset(PAGE_CSS, "text/css; charset=utf-8"));
  app.get("/app.js", asset(PAGE_JS, "text/javascript; charset=utf-8"));
  app.get("/favicon.ico", () => new Response(null, { status: 204 }));
  return app;
}
