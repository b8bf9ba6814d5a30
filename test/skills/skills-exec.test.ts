/**
 * Skills and custom commands through the real CLI (`tandem skills list`, `tandem exec`) against
 * `tandem mock-model`: discovery from the project (up to its git root, never above), Tandem's home
 * and ~/.agents/skills; invalid files reported; a link out of the project not followed; the
 * catalog (not the bodies) in the model request; `$name` attaching a body; a skill whose variable
 * nobody can give is unavailable headless; `/review-pr 42` expanded (docs/skills.md).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { writeDeploySkill, writePdfSkill, writeReviewCommand } from "../helpers/skills.js";

function simpleSkill(root: string, name: string): string {
  mkdirSync(join(root, name), { recursive: true });
  const file = join(root, name, "SKILL.md");
  writeFileSync(file, `---\nname: ${name}\ndescription: The ${name} skill.\n---\nBODY-${name}\n`);
  return file;
}

const roots: string[] = [];

/**
 * A project (git root `proj`, cwd `proj/app`) with good, broken and escaping skills around it.
 * Outside /tmp: the walk up to the git root never runs inside a temp dir (runtime/context.ts).
 */
function world() {
  const root = outsideDir("tandem-skills-");
  roots.push(root);
  const proj = join(root, "proj");
  const cwd = join(proj, "app");
  mkdirSync(join(proj, ".git"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const home = join(root, "tandem-home");
  const userHome = join(root, "user-home");
  const pdf = writePdfSkill(join(proj, ".agents", "skills"));
  mkdirSync(join(proj, ".claude", "skills", "broken"), { recursive: true });
  const broken = join(proj, ".claude", "skills", "broken", "SKILL.md");
  writeFileSync(broken, "---\nname: broken\n---\nno description\n");
  const outside = tempDir("tandem-skills-outside-");
  simpleSkill(outside, "escape");
  symlinkSync(join(outside, "escape"), join(proj, ".agents", "skills", "escape"));
  simpleSkill(join(root, ".agents", "skills"), "above-root");
  simpleSkill(join(home, "skills"), "tandem-skill");
  simpleSkill(join(userHome, ".agents", "skills"), "home-skill");
  writeDeploySkill(join(proj, ".agents", "skills"));
  writeReviewCommand(join(proj, ".claude", "commands"));
  return { root, proj, cwd, home, userHome, pdf, broken, escape: join(proj, ".agents", "skills", "escape") };
}

describe("skills and commands through tandem exec", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });

  const env = (w: ReturnType<typeof world>, m?: MockProcess) => ({
    TANDEM_HOME: w.home,
    HOME: w.userHome,
    OPENAI_API_KEY: "k",
    ...(m ? { OPENAI_BASE_URL: m.url } : {}),
  });
  const requests = (m: MockProcess) => (existsSync(m.log) ? readFileSync(m.log, "utf8") : "");

  it("tandem skills list: project (to the git root), home and ~/.agents skills; invalid and escaping ones reported", async () => {
    const w = world();
    const r = await runTandem(["skills", "list", "--json", "-C", w.cwd], { env: env(w) });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.skills.map((s: any) => s.name)).toEqual([
      "deploy-app",
      "pdf-tools",
      "tandem-skill",
      "home-skill",
    ]);
    const pdf = out.skills.find((s: any) => s.name === "pdf-tools");
    expect(pdf).toMatchObject({
      path: w.pdf,
      scope: "repo",
      allowedTools: "Bash Read",
      metadata: { version: "1.2" },
    });
    expect(out.skills.find((s: any) => s.name === "deploy-app").dependencies.env).toEqual([
      { name: "API_TOKEN", description: "Staging deploy token" },
    ]);
    expect(out.problems).toEqual(
      expect.arrayContaining([
        { path: w.broken, message: expect.stringContaining("`description` is required") },
        { path: w.escape, message: expect.stringContaining("outside the project") },
      ]),
    );
    expect(out.commands).toEqual([
      expect.objectContaining({
        name: "review-pr",
        description: "Review a pull request by number",
        argumentHint: "PR-NUMBER",
      }),
    ]);
    const human = await runTandem(["skills", "-C", w.cwd], { env: env(w) });
    expect(human.stdout).toContain("$pdf-tools");
    expect(human.stdout).toContain("/review-pr PR-NUMBER");
    expect(human.stderr).toContain(`warning: ${w.broken}: frontmatter \`description\` is required`);
  });

  it("the model request carries the catalog (names, descriptions, paths), not the bodies; files skipped are warned about", async () => {
    const w = world();
    mock = await startMockProcess({
      steps: [
        {
          expect: {
            input_contains: ["<skills_catalog>", "- pdf-tools: Extract text and tables", `(file: ${w.pdf})`],
          },
          output: [{ type: "message", text: "ok" }],
        },
      ],
    });
    const r = await runTandem(["exec", "--cd", w.cwd, "summarise the repo"], { env: env(w, mock) });
    expect(r.stderr).not.toContain("expectation failed");
    expect(r.code).toBe(0);
    const sent = requests(mock);
    expect(sent).toContain("pdf-tools");
    expect(sent).not.toContain("BODY-MARKER-PDF");
    expect(sent).not.toContain("above-root");
    expect(sent).not.toContain("BODY-escape");
    expect(r.stderr).toContain(`warning: skill ${w.broken}: frontmatter \`description\` is required`);
  });

  it("$pdf-tools attaches the SKILL.md body to the turn", async () => {
    const w = world();
    mock = await startMockProcess({
      steps: [
        {
          expect: {
            input_contains: ["<skill>\\n<name>pdf-tools</name>", "BODY-MARKER-PDF: follow these steps."],
          },
          output: [{ type: "message", text: "used it" }],
        },
      ],
    });
    const r = await runTandem(["exec", "--cd", w.cwd, "use $pdf-tools on invoice.pdf"], {
      env: env(w, mock),
    });
    expect(r.stderr).not.toContain("expectation failed");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("used it");
  });

  it("headless, a skill whose API_TOKEN nobody can give is unavailable: the turn fails before any model request", async () => {
    const w = world();
    mock = await startMockProcess({ steps: [{ output: [{ type: "message", text: "should not run" }] }] });
    const r = await runTandem(["exec", "--cd", w.cwd, "please $deploy-app now"], { env: env(w, mock) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('skill "deploy-app" is unavailable: it needs API_TOKEN');
    expect(requests(mock)).toBe("");
  });

  it("/review-pr 42 is sent as the prompt file with $1 and $ARGUMENTS substituted", async () => {
    const w = world();
    mock = await startMockProcess({
      steps: [
        {
          expect: {
            input_contains: ["Review pull request #42 (all arguments: 42 --fast). Check tests first."],
          },
          output: [{ type: "message", text: "reviewed" }],
        },
      ],
    });
    const r = await runTandem(["exec", "--cd", w.cwd, "/review-pr 42 --fast"], { env: env(w, mock) });
    expect(r.stderr).not.toContain("expectation failed");
    expect(r.code).toBe(0);
    expect(requests(mock)).not.toContain("/review-pr 42");
  });
});
