/**
 * Skills and custom commands over `tandem app-server` (a real process, every message validated
 * against Codex's schema by the test client): `skills/list` lists them schema-exact with the
 * skipped files as `errors`; a `skill` input item attaches the body; `/review-pr 42` in a
 * `turn/start` text is expanded (Codex's schema has no custom-prompt methods) (docs/skills.md).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processStdio } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { writeDeploySkill, writePdfSkill, writeReviewCommand } from "../helpers/skills.js";

describe("skills over tandem app-server", () => {
  const closers: Array<() => Promise<unknown>> = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function project() {
    const proj = outsideDir("tandem-skills-as-");
    dirs.push(proj);
    mkdirSync(join(proj, ".git"));
    const pdf = writePdfSkill(join(proj, ".claude", "skills"));
    const deploy = writeDeploySkill(join(proj, ".agents", "skills"));
    mkdirSync(join(proj, ".agents", "skills", "Bad_Name"), { recursive: true });
    const bad = join(proj, ".agents", "skills", "Bad_Name", "SKILL.md");
    writeFileSync(bad, "---\nname: Bad_Name\ndescription: x\n---\n");
    writeReviewCommand(join(proj, ".tandem", "commands"));
    return { proj, pdf, deploy, bad };
  }

  async function start(script: unknown) {
    const mock: MockProcess = await startMockProcess(script);
    closers.push(() => mock.stop());
    const s = processStdio({
      TANDEM_HOME: tempDir("tandem-home-"),
      HOME: tempDir("tandem-user-home-"),
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: mock.url,
    });
    closers.push(async () => {
      expect(s.client.violations).toEqual([]);
      await s.close();
    });
    await s.client.initialize({});
    return { client: s.client, mock };
  }

  it("skills/list returns the project's skills as SkillMetadata, and invalid files as errors", async () => {
    const p = project();
    const { client } = await start({ steps: [] });
    const res = await client.request("skills/list", { cwds: [p.proj] });
    expect(res.data).toHaveLength(1);
    const entry = res.data[0];
    expect(entry.cwd).toBe(p.proj);
    expect(entry.skills).toEqual([
      {
        name: "deploy-app",
        description: "Deploy the app to the staging cluster. Use when the user asks to deploy.",
        shortDescription: "Deploy to staging",
        path: p.deploy,
        scope: "repo",
        enabled: true,
        interface: { shortDescription: "Deploy to staging" },
        dependencies: {
          tools: [{ type: "env_var", value: "API_TOKEN", description: "Staging deploy token" }],
        },
      },
      expect.objectContaining({
        name: "pdf-tools",
        path: p.pdf,
        scope: "repo",
        enabled: true,
        dependencies: null,
      }),
    ]);
    expect(entry.errors).toEqual([{ path: p.bad, message: expect.stringContaining("lowercase letters") }]);
  });

  it("a skill input item attaches the body; /review-pr 42 in turn/start text is expanded", async () => {
    const p = project();
    const { client } = await start({
      steps: [
        {
          expect: { input_contains: ["<name>pdf-tools</name>", "BODY-MARKER-PDF"] },
          output: [{ type: "message", text: "a" }],
        },
        {
          expect: { input_contains: ["Review pull request #42 (all arguments: 42)"] },
          output: [{ type: "message", text: "b" }],
        },
      ],
    });
    const threadId = (await client.request("thread/start", { cwd: p.proj })).thread.id;
    await client.request("turn/start", {
      threadId,
      input: [
        { type: "text", text: "extract invoice.pdf" },
        { type: "skill", name: "pdf-tools", path: p.pdf },
      ],
    });
    const first = await client.notification("turn/completed", (n) => n.threadId === threadId);
    expect(first.turn.status).toBe("completed");
    await client.request("turn/start", { threadId, input: [{ type: "text", text: "/review-pr 42" }] });
    const second = await client.notification(
      "turn/completed",
      (n) => n.threadId === threadId && n.turn.id !== first.turn.id,
    );
    expect(second.turn.status).toBe("completed");
  });
});
