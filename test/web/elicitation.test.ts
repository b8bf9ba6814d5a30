/**
 * A typed MCP elicitation form in the web page, in a real browser (chromium through
 * playwright-core) against a real `tandem serve` stack (README "MCP servers"): typed inputs, the
 * default pre-checked, the server's typed validation message shown in the form, and the accepted
 * answers reaching the (pretend) MCP server typed. Skipped, with the reason, without chromium.
 */
import { type Browser, chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { elicitationLabel } from "../../src/protocol/questions.js";
import { runtimeInternals, threadInternals } from "../../src/runtime/internals.testing.js";
import { elicitationRequest, outcomeToElicitResult } from "../../src/tools/mcp/elicitation.js";
import { defineTool } from "../../src/tools/types.js";
import { type Served, serve, TOKEN, until } from "../helpers/http.js";
import { missing } from "../helpers/system-tools.js";

const noBrowser = missing("chromium").length > 0;
const FORM = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "Your name" },
    email: { type: "string", format: "email", title: "Email", description: "Your email" },
    age: { type: "integer", minimum: 0, maximum: 150, title: "Age", description: "Your age" },
    agree: { type: "boolean", title: "Terms", description: "Agree to the terms?" },
    born: { type: "string", format: "date", title: "Born", description: "Birth date" },
    color: {
      type: "string",
      title: "Color",
      description: "Favourite color",
      oneOf: [
        { const: "r", title: "Red" },
        { const: "g", title: "Green" },
      ],
      default: "g",
    },
  },
  required: ["name", "age", "agree"],
};

let browser: Browser;
let sv: Served | undefined;
beforeAll(async () => {
  if (noBrowser) return;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"],
  });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await sv?.close();
  sv = undefined;
});

describe.skipIf(noBrowser)("web page: a typed elicitation form", () => {
  it("typed inputs and defaults; the server's typed error shows; the answer reaches the server typed", async () => {
    let sent: unknown;
    sv = await serve({
      script: {
        steps: [
          {
            output: [{ type: "function_call", name: "mcp__demo__form", arguments: {}, call_id: "call_form" }],
          },
          { output: [{ type: "message", text: "thanks" }] },
        ],
      },
    });
    const h = sv.h;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${sv.url}/#token=${TOKEN}`);
      await page.locator("#conn[data-state=live]").waitFor();
      await until(() => runtimeInternals(h.runtime).responders.size > 0);

      const thread = h.runtime.threads.start({ cwd: h.cwd });
      threadInternals(h.runtime, thread.id).registry.register(
        defineTool({
          kind: "function",
          name: "mcp__demo__form",
          description: "test MCP form",
          parameters: z.object({}),
          async execute(_a, ctx) {
            const { questions, elicitation } = elicitationRequest("demo", {
              message: "Please fill in the form",
              requestedSchema: FORM,
            } as never);
            sent = outcomeToElicitResult(
              questions,
              await ctx.ask(questions, { source: "internal", elicitation }),
            );
            return { output: JSON.stringify(sent), success: true };
          },
        }),
      );
      const turn = thread.startTurn("form");
      await page.locator("#sheet").waitFor({ state: "visible" });

      // fails if the page hides who asks or the server's message
      expect(await page.locator("#q-thread").textContent()).toContain('MCP server "demo" asks');
      expect(await page.locator(".q-message").textContent()).toBe("Please fill in the form");
      // fails if the page does not say that the server sees what is typed (the one label), or
      // shows a server's field as a secret (masked) one
      expect(await page.locator("#q-notice").textContent()).toBe(
        elicitationLabel({ server: "demo", mode: "form" }),
      );
      expect(await page.locator("input[type=password]").count()).toBe(0);
      const fs = page.locator("fieldset.q");
      // fails if typed questions get plain text inputs (no number/email/date keyboards and pickers)
      expect(await fs.nth(1).locator("input.other").getAttribute("type")).toBe("email");
      expect(await fs.nth(2).locator("input.other").getAttribute("type")).toBe("number");
      expect(await fs.nth(2).locator("input.other").getAttribute("max")).toBe("150");
      expect(await fs.nth(4).locator("input.other").getAttribute("type")).toBe("date");
      expect(await fs.nth(3).locator("input[type=radio]").count()).toBe(2);
      // fails if the default is not pre-checked
      expect(await fs.nth(5).locator("input[value=Green]").isChecked()).toBe(true);
      expect(await fs.nth(2).locator("legend").textContent()).toContain("whole number from 0 to 150");

      await fs.nth(0).locator("input.other").fill("Ada");
      await fs.nth(2).locator("input.other").fill("200");
      await fs.nth(3).getByText("Yes", { exact: true }).click();
      await fs.nth(4).locator("input.other").fill("2000-01-31");
      await page.locator("#q-submit").click();
      // fails if the web page shows anything but the broker's own typed message
      await expect
        .poll(() => page.locator("#q-error").textContent())
        .toBe('question "age": "200" is out of range; expected a whole number from 0 to 150');

      await fs.nth(2).locator("input.other").fill("42");
      await page.locator("#q-submit").click();
      await turn.done;
      // fails if the page's answers do not reach the server typed, with option values
      expect(sent).toEqual({
        action: "accept",
        content: { name: "Ada", age: 42, agree: true, born: "2000-01-31", color: "g" },
      });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
