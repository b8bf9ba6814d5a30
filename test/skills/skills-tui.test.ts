/**
 * Skills and custom commands in the terminal UI, end to end in tmux against `tandem mock-model`:
 * `/review-pr` is in the `/` list with its description and `/review-pr 42` reaches the model
 * expanded; `$pd` offers `$pdf-tools` and Tab completes it, and sending attaches the body;
 * `/skills` lists the skills and picking one puts `$name ` in the draft (docs/skills.md).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { outsideDir, tempDir } from "../helpers/index.js";
import { writePdfSkill, writeReviewCommand } from "../helpers/skills.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal, defer, pane } = tuiHarness({
  name: "tandem-tui-skills",
  command: builtOrSourceTui(),
});

const READY = "ask Tandem to do something";
const reply = (text: string) => ({ output: [{ type: "message" as const, text }] });

function project(): string {
  const proj = outsideDir("tandem-tui-skills-");
  defer(() => rmSync(proj, { recursive: true, force: true }));
  mkdirSync(join(proj, ".git"));
  writePdfSkill(join(proj, ".agents", "skills"));
  writeReviewCommand(join(proj, ".claude", "commands"));
  return proj;
}

describe.skipIf(!hasTmux)("skills and custom commands in the TUI (tmux)", { timeout: 120_000 }, () => {
  it("/review-pr is listed with its description and /review-pr 42 is sent expanded; a broken skill is warned about", async () => {
    const cwd = project();
    mkdirSync(join(cwd, ".claude", "skills", "broken"), { recursive: true });
    writeFileSync(join(cwd, ".claude", "skills", "broken", "SKILL.md"), "---\nname: broken\n---\n");
    const mock = await startMock({ steps: [reply("reviewed it")] });
    launch({ url: mock.url, cwd, env: { HOME: tempDir("tandem-tui-user-") } });
    await waitFor(READY);
    literal("/rev");
    // The built-in /review comes first, the custom command after it.
    await waitFor(
      /› \/review +review the uncommitted changes[^\n]*\n +\/review-pr +PR-NUMBER — Review a pull request by number/,
    );
    literal("iew-");
    await waitFor(/› \/review-pr +PR-NUMBER — Review a pull request by number/);
    keys("Tab");
    literal("42");
    keys("Enter");
    await waitFor("reviewed it");
    expect(pane()).toMatch(/warning: skill \S+broken\/SKILL\.md: frontmatter `description` is required/);
    expect(pane()).not.toContain("error: warning");
    const sent = JSON.stringify(requests(mock.log));
    expect(sent).toContain("Review pull request #42 (all arguments: 42). Check tests first.");
    expect(sent).not.toContain("/review-pr 42");
  });

  it("$pd completes to $pdf-tools, /skills picks a skill into the draft, and sending attaches the body", async () => {
    const cwd = project();
    const mock = await startMock({ steps: [reply("used the skill"), reply("picked")] });
    launch({ url: mock.url, cwd, env: { HOME: tempDir("tandem-tui-user-") } });
    await waitFor(READY);
    literal("extract this with $pd");
    await waitFor(/› \$pdf-tools +Extract text and tables/);
    keys("Tab");
    literal("please");
    await waitFor("extract this with $pdf-tools please");
    keys("Enter");
    await waitFor("used the skill");
    expect(pane()).toContain("[skill pdf-tools attached: ");
    expect(pane()).not.toContain("BODY-MARKER-PDF");
    expect(JSON.stringify(requests(mock.log)[0])).toContain("BODY-MARKER-PDF");
    literal("/skills");
    keys("Enter");
    await waitFor("Skills — pick one to use it in your message");
    keys("Enter");
    await waitFor(/› \$pdf-tools +│/);
    literal("again");
    keys("Enter");
    await waitFor("picked");
    const second = JSON.stringify(requests(mock.log)[1]);
    expect(second).toContain("$pdf-tools again");
  });
});
