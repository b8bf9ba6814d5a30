/**
 * The web app as people use it (README "Answer from anywhere"), in Debian chromium against a real `tandem serve` stack
 * on the scripted model, at 1280x800 and 390x844:
 * - a finished thread (plan updates, a patch, a coloured command, a Markdown answer) renders as
 *   elements — h2, strong, pre/code, table, a checklist, a diff — never as raw Markdown, JSON
 *   or patch text, live and after a reload, with no serious accessibility violation;
 * - a three-question form is answered on a phone with Submit on screen without scrolling;
 * - a question answered in another surface (the TUI, through the runtime) says so on the page;
 * - an approval shows a bidi override in its command as a visible symbol;
 * - a reload keeps each turn's diff (commands' changes too) and a failed turn's own marker.
 * Screenshots of each state go to $TANDEM_TEST_ARTIFACTS (test/helpers/web.ts).
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { type Served, serve } from "../helpers/http.js";
import { missing } from "../helpers/system-tools.js";
import {
  axeViolations,
  DESKTOP,
  launch,
  noBrowser,
  type Opened,
  openApp,
  PHONE,
  shot,
} from "../helpers/web.js";

const ANSWER = [
  "## Done",
  "",
  "I **added** `hello.txt` and checked it.",
  "",
  "```ts",
  "const greeting: string = 'hello';",
  "```",
  "",
  "| File | Change |",
  "| --- | --- |",
  "| hello.txt | added |",
  "",
  "- first point",
  "- second point",
  "",
  "See [the docs](https://example.com/docs).",
  "",
  '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"><b onclick="window.__pwned = 3">bold html</b>',
].join("\n");
const PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello from the patch\n+second line\n*** End Patch";
const plan = (statuses: string[]) => ({
  type: "function_call" as const,
  name: "update_plan",
  arguments: {
    explanation: "Small and safe",
    plan: ["Write hello.txt", "Show it", "Report"].map((step, i) => ({ step, status: statuses[i] })),
  },
});
const finished: Script = {
  steps: [
    {
      output: [
        { type: "reasoning", summary: "Plan the file first." },
        plan(["in_progress", "pending", "pending"]),
      ],
    },
    { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH }] },
    {
      output: [
        {
          type: "function_call",
          name: "exec_command",
          arguments: { cmd: "printf '\\033[32mgreen ok\\033[0m\\n'; cat hello.txt" },
        },
      ],
    },
    { output: [plan(["completed", "completed", "completed"])] },
    { output: [{ type: "message", text: ANSWER }] },
  ],
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

/** What the transcript shows as elements; fails the test on any raw Markdown, JSON or patch text. */
async function expectRendered(o: Opened, live: boolean) {
  const { page } = o;
  const t = page.locator("#transcript");
  await t.locator(".md h2", { hasText: "Done" }).waitFor();
  expect(await t.locator(".md strong").first().textContent()).toBe("added");
  expect(await t.locator(".md table th").allTextContents()).toEqual(["File", "Change"]);
  expect(await t.locator(".md table td").allTextContents()).toEqual(["hello.txt", "added"]);
  expect(await t.locator(".md li").allTextContents()).toEqual(["first point", "second point"]);
  const link = t.locator(".md a", { hasText: "the docs" });
  expect(await link.getAttribute("target")).toBe("_blank");
  expect(await link.getAttribute("rel")).toContain("noopener");
  // The fenced block: code, a copy button, and (lazily loaded) highlighting.
  const block = t.locator(".code-block").first();
  expect(await block.locator("pre code").textContent()).toContain("const greeting: string = 'hello';");
  await block.locator("button.copy").waitFor();
  await block.locator("code.hljs span").first().waitFor();
  // The plan: one live checklist, its last state.
  const steps = t.locator(".checklist li");
  await expect.poll(() => steps.count()).toBe(3);
  expect(await t.locator(".checklist input:checked").count()).toBe(3);
  expect(await t.locator(".plan-entry").count()).toBe(1);
  // The patch as a coloured diff with its file name.
  const patch = t.locator(".entry.patch");
  expect(await patch.locator(".diff-path").first().textContent()).toBe("hello.txt");
  expect(await patch.locator(".dl.add").allTextContents()).toEqual([
    "+hello from the patch\n",
    "+second line\n",
  ]);
  // The command: its exit status and ANSI colours rendered, escape codes gone.
  const cmd = t.locator(".entry.command");
  expect(await cmd.locator(".exit").textContent()).toBe("exit 0");
  expect(await cmd.locator(".term .fg-c2").textContent()).toBe("green ok");
  // Reasoning is there, collapsed.
  expect(await t.locator(".entry.reasoning details").getAttribute("open")).toBeNull();
  if (live) await t.locator(".turn-diff .diff-path", { hasText: "hello.txt" }).waitFor();
  // Model HTML is sanitised: no script runs, no handler survives, no remote image loads.
  expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
  expect(await t.locator(".md script, .md [onerror], .md [onclick], .md img[src]").count()).toBe(0);
  const text = (await t.textContent()) ?? "";
  for (const raw of [
    "## Done",
    "**added**",
    "```",
    "| --- |",
    "*** Begin Patch",
    '"plan"',
    '"status"',
    "\u001b[",
  ])
    expect(text, `raw ${JSON.stringify(raw)} on screen`).not.toContain(raw);
}

/**
 * Console errors other than the CSP refusing the answer's inline handlers: Chrome reports those
 * while DOMPurify parses the Markdown's HTML (in an inert document) before it drops them; the
 * test checks separately that none ran and none reached the page.
 */
const unexpected = (errors: string[]) =>
  errors.filter((e) => !/^Executing inline event handler violates .*The action has been blocked\.$/.test(e));

describe.skipIf(noBrowser)("web app", () => {
  // Fails if any cell falls back to text (Markdown unrendered, plan as JSON, patch as its raw
  // text, escape codes shown), if model HTML survives sanitising (a script or handler runs), if reload loses the thread or its cells (history rendering), if
  // the phone layout lets the side panel push the transcript aside, or on a serious axe finding.
  it("a finished thread renders as elements, live and after a reload, on desktop and phone", async () => {
    sv = await serve({ script: finished });
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    await page.locator("#composer-text").fill("Add hello.txt");
    await page.locator("#composer-text").press("Enter");
    expect(await sv.h.waitFor((e) => e.type === "turn.completed")).toMatchObject({ status: "completed" });
    await expectRendered(opened, true);
    await shot(page, "web-app-desktop-thread.png");
    expect(await axeViolations(page)).toEqual([]);

    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await expectRendered(opened, false);
    const current = await page.locator("#threads li[aria-current=true]").getAttribute("data-id");
    expect(current).toBe(sv.h.runtime.threads.list()[0].id);
    await shot(page, "web-app-desktop-reloaded.png");
    expect(unexpected(opened.errors)).toEqual([]);
    await opened.context.close();

    opened = await openApp(browser, sv, PHONE);
    const phone = opened.page;
    await phone.locator("#threads-button").tap();
    await phone.locator("#threads li").first().tap();
    await expectRendered(opened, false);
    // The transcript owns the screen: the drawer is closed and the transcript is full width.
    expect(await phone.locator("#threads").isVisible()).toBe(false);
    const box = (await phone.locator("#transcript").boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(389);
    expect(await phone.locator("#inbox-button").isVisible()).toBe(true);
    await shot(phone, "web-app-phone-thread.png");
    expect(await axeViolations(phone)).toEqual([]);
    await phone.locator("#threads-button").tap();
    await phone.locator("#threads").waitFor({ state: "visible" });
    await shot(phone, "web-app-phone-drawer.png");
    expect(unexpected(opened.errors)).toEqual([]);
  });

  // Fails if the sheet's actions scroll away with a long form (Submit below the fold), if a
  // reload loses the pending question, or if answers given by touch do not reach the model.
  it("phone: a three-question form is answered with Submit on screen, also after a reload", async () => {
    const script: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "request_user_input",
              arguments: {
                questions: [
                  {
                    id: "stack",
                    header: "Stack",
                    question: "Which stack should the project use?",
                    options: [
                      { label: "TypeScript (Recommended)", description: "Node 20, strict ESM" },
                      { label: "Rust", description: "cargo, edition 2024" },
                      { label: "Go", description: "modules" },
                    ],
                  },
                  {
                    id: "extras",
                    header: "Extras",
                    question: "Which extras do you want?",
                    multi_select: true,
                    options: [
                      { label: "CI", description: "GitHub Actions" },
                      { label: "Docker", description: "A Dockerfile" },
                      { label: "Docs", description: "A docs folder" },
                      { label: "Lint", description: "A linter config" },
                    ],
                  },
                  { id: "name", header: "Name", question: "What should the project be called?" },
                ],
              },
            },
          ],
        },
        {
          expect: { input_contains: ["Rust", "CI", "Docs", "on the train", "phone-app"] },
          output: [{ type: "message", text: "Set up **phone-app**." }],
        },
      ],
    };
    sv = await serve({ script });
    opened = await openApp(browser, sv, PHONE);
    let page = opened.page;
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "new project" });
    await page.locator("#sheet").waitFor({ state: "visible" });

    await page.reload();
    await page.locator("#conn[data-state=live]").waitFor();
    await page.locator("#sheet").waitFor({ state: "visible" });
    page = opened.page;
    expect(await page.locator("fieldset.q").count()).toBe(3);
    const submitVisible = async () => {
      const b = (await page.locator("#q-submit").boundingBox())!;
      return b.y >= 0 && b.y + b.height <= 844;
    };
    expect(await submitVisible()).toBe(true);
    await shot(page, "web-app-phone-three-questions.png");
    expect(await axeViolations(page)).toEqual([]);
    const fs = page.locator("fieldset.q");
    await fs.nth(0).getByText("Rust", { exact: true }).tap();
    await fs.nth(0).locator("input.note").fill("on the train");
    await fs.nth(1).getByText("CI", { exact: true }).tap();
    await fs.nth(1).getByText("Docs", { exact: true }).tap();
    await fs.nth(2).locator("input.other").fill("phone-app");
    expect(await submitVisible()).toBe(true);
    await shot(page, "web-app-phone-three-answered.png");
    await page.locator("#q-submit").tap();

    expect(await sv.h.waitFor((e) => e.type === "turn.completed")).toMatchObject({ status: "completed" });
    const answered = sv.h.events.find((s) => s.event.type === "question.answered")!.event as any;
    expect(answered.outcome.answers).toEqual({
      stack: { selected: ["Rust"], note: "on the train" },
      extras: { selected: ["CI", "Docs"] },
      name: { selected: [], other: "phone-app" },
    });
    await page.locator("#transcript .md strong", { hasText: "phone-app" }).waitFor();
    expect(opened.errors).toEqual([]);
  });

  // Fails if the page misses that another surface (the TUI answers through the runtime) settled
  // the shown question, keeps offering Submit, or leaves it in the inbox.
  it("a question answered in the TUI shows 'answered elsewhere' on the page", async () => {
    const script: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "request_user_input",
              arguments: {
                questions: [
                  {
                    id: "stack",
                    header: "Stack",
                    question: "Which stack?",
                    options: [
                      { label: "TypeScript", description: "Node" },
                      { label: "Rust", description: "cargo" },
                    ],
                  },
                ],
              },
            },
          ],
        },
        { expect: { input_contains: ["Rust"] }, output: [{ type: "message", text: "ok" }] },
      ],
    };
    sv = await serve({ script });
    opened = await openApp(browser, sv, PHONE);
    const { page } = opened;
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    await sv.call("POST", `/thread/${id}/turn`, { text: "go" });
    await page.locator("#sheet").waitFor({ state: "visible" });
    const requestId = sv.h.runtime.questions.list()[0].request_id;
    const r = sv.h.runtime.questions.reply(
      id,
      requestId,
      { answers: { stack: { selected: ["Rust"] } } },
      { kind: "tui" },
    );
    expect(r.ok).toBe(true);
    await expect
      .poll(() => page.locator("#q-banner").textContent())
      .toBe("Answered elsewhere by tui: stack: Rust");
    expect(await page.locator("#q-submit").count()).toBe(0);
    expect(await page.locator("fieldset.q input").first().isDisabled()).toBe(true);
    expect(await page.locator("#inbox-button .count").textContent()).toBe("0");
    await shot(page, "web-app-answered-elsewhere.png");
    await page.locator("#q-later").tap();
    await page.locator("#sheet").waitFor({ state: "hidden" });
    expect(await sv.h.waitFor((e) => e.type === "turn.completed")).toMatchObject({ status: "completed" });
    expect(opened.errors).toEqual([]);
  });

  // Fails if a reload loses a turn's combined diff (turns.diff not stored, GET /thread/:id not
  // returning it, or the page not drawing it), if a failed turn is marked only as "the last turn"
  // (a later turn succeeds here, so the marker must sit on the failed turn itself), or if the
  // reloaded transcript puts a turn's diff or end anywhere else than live did.
  it("reload keeps each turn's diff (a shell command's change) and a failed turn's marker", async () => {
    const script: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: "printf 'made by a command\\n' > made.txt" },
            },
          ],
        },
        { output: [{ type: "message", text: "Made **made.txt**." }] },
        { fault: { type: "http", status: 400, message: "the model refused" } },
        { output: [{ type: "message", text: "Recovered." }] },
      ],
    };
    sv = await serve({ script });
    opened = await openApp(browser, sv, DESKTOP);
    const { page } = opened;
    const id: string = (await sv.call("POST", "/thread", {})).json.id;
    await page.locator(`#threads li[data-id="${id}"]`).click();
    const turnIds: string[] = [];
    for (const text of ["make a file", "again", "once more"]) {
      const turnId: string = (await sv.call("POST", `/thread/${id}/turn`, { text })).json.turn_id;
      await sv.h.waitFor((e) => e.type === "turn.completed" && e.turn_id === turnId);
      turnIds.push(turnId);
    }
    const t = page.locator("#transcript");
    let reloaded = false;
    /** The transcript's turn diffs and turn ends, in order, with what each shows. */
    const markers = async () => {
      await t.locator(".entry.agent", { hasText: "Recovered." }).waitFor();
      if (!reloaded) await t.locator(`[data-id="end_${turnIds[2]}"]`).waitFor();
      return t.locator(".turn-diff, .entry.turn.end").evaluateAll((els: any[]) =>
        els.map((el) => {
          const id = el.getAttribute("data-id") ?? "";
          return el.classList.contains("turn-diff")
            ? [id, [...el.querySelectorAll(".diff-path")].map((p: any) => p.textContent).join(",")]
            : [id, el.textContent ?? "", el.classList.contains("failed")];
        }),
      );
    };
    const expected = [
      [`diff_${turnIds[0]}`, "made.txt"],
      [`end_${turnIds[0]}`, "completed", false],
      [`end_${turnIds[1]}`, expect.stringMatching(/^failed .*the model refused/), true],
      [`end_${turnIds[2]}`, "completed", false],
    ];
    const live = await markers();
    expect(live).toEqual(expected);
    // Where each marker sits: the diff after the answer it describes, before the next request.
    const order = () =>
      t.locator("li.entry").evaluateAll((els: any[]) =>
        els.flatMap((el) => {
          const id = el.getAttribute("data-id") ?? "";
          if (/^(diff|end)_/.test(id)) return [id];
          return ["user", "agent", "command"].filter((k) => el.classList.contains(k));
        }),
      );
    const liveOrder = await order();
    expect(liveOrder).toEqual([
      ...["user", "command", "agent", `diff_${turnIds[0]}`, `end_${turnIds[0]}`],
      ...["user", `end_${turnIds[1]}`, "user", "agent", `end_${turnIds[2]}`],
    ]);
    expect(await t.locator(".turn-diff .dl.add").allTextContents()).toEqual(["+made by a command\n"]);

    await page.reload();
    reloaded = true;
    await page.locator("#conn[data-state=live]").waitFor();
    expect(await markers()).toEqual(expected);
    expect(await order()).toEqual(liveOrder);
    expect(await t.locator(".turn-diff .dl.add").allTextContents()).toEqual(["+made by a command\n"]);
    // The thread itself is fine again: its last turn completed.
    expect(await page.locator(`#threads li[data-id="${id}"] .status`).textContent()).not.toBe("failed");
    await shot(page, "web-app-reloaded-turns.png");
    expect(unexpected(opened.errors)).toEqual([]);
  });

  // Fails if an approval shows its command with a bidi override acting (Trojan Source: the user
  // would approve text that reads differently from what runs) instead of a visible symbol.
  it.skipIf(missing("bwrap").length > 0)(
    "an approval shows control and bidi characters as symbols",
    async () => {
      const script: Script = {
        steps: [
          {
            output: [
              {
                type: "function_call",
                name: "exec_command",
                arguments: {
                  cmd: "echo safe \u202e;hsab",
                  sandbox_permissions: "require_escalated",
                  justification: "needs the network",
                },
              },
            ],
          },
          { output: [{ type: "message", text: "declined, fine" }] },
        ],
      };
      sv = await serve({ script });
      opened = await openApp(browser, sv, DESKTOP);
      const { page } = opened;
      const id = (await sv.call("POST", "/thread", {})).json.id;
      await sv.call("POST", `/thread/${id}/turn`, { text: "run it" });
      await page.locator("#sheet").waitFor({ state: "visible" });
      expect(await page.locator("#q-title").textContent()).toBe("Run this command?");
      expect(await page.locator(".approval-cmd").textContent()).toBe("echo safe ⟪U+202E⟫;hsab");
      expect(await page.locator("#sheet").textContent()).not.toContain("\u202e");
      await shot(page, "web-app-approval.png");
      expect(await axeViolations(page)).toEqual([]);
      await page.getByText("Decline", { exact: true }).first().click();
      await page.locator("#q-submit").click();
      expect(await sv.h.waitFor((e) => e.type === "turn.completed")).toMatchObject({ status: "completed" });
      // The settled approval stays in the transcript with its decision, live and after a reload.
      await page.locator(`#threads li[data-id="${id}"] .item`).click();
      const drawn = page.locator(".entry.approval");
      await drawn.waitFor();
      expect(await drawn.textContent()).toContain("→ Decline · via web");
      expect(await drawn.textContent()).toContain("echo safe ⟪U+202E⟫;hsab");
      await page.reload();
      await page.locator("#conn[data-state=live]").waitFor();
      await page.locator(`#threads li[data-id="${id}"] .item`).click();
      await drawn.waitFor();
      expect(await drawn.textContent()).toContain("→ Decline · via web");
      expect(opened.errors).toEqual([]);
    },
  );
});
