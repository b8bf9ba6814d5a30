/**
 * A skill that depends on an MCP server that is not configured (Codex `agents/openai.yaml`
 * `type: mcp`), used through the runtime API with a real runtime, SQLite and mock-model: Tandem
 * asks to add it with a confirmation question showing the exact command; "No" leaves config.toml
 * untouched and the turn fails with the skill unavailable (no model request); "Yes" adds
 * `[mcp_servers.NAME]` and the turn goes on with the body attached (docs/skills.md).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { type Harness, harness, outsideDir } from "../helpers/index.js";

function docsSkill(proj: string): void {
  const dir = join(proj, ".agents", "skills", "docs-lookup");
  mkdirSync(join(dir, "agents"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    "---\nname: docs-lookup\ndescription: Look things up in the developer docs.\n---\nBODY-MARKER-DOCS\n",
  );
  writeFileSync(
    join(dir, "agents", "openai.yaml"),
    `dependencies:
  tools:
    - type: "mcp"
      value: "devDocs"
      description: "Developer docs MCP server"
      transport: "stdio"
      command: "npx -y dev-docs-mcp --read-only"
`,
  );
}

describe("skill MCP dependencies", () => {
  let h: Harness | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function run(answer: "Yes, add it" | "No", steps: unknown[]) {
    const proj = outsideDir("tandem-skill-mcp-");
    dirs.push(proj);
    mkdirSync(join(proj, ".git"));
    docsSkill(proj);
    h = await harness({ script: { steps } as any, cwd: proj });
    const thread = h.runtime.threads.start({ cwd: proj });
    const detach = h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("find it with $docs-lookup");
    const asked = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    const q = asked.request.questions[0];
    expect(q).toMatchObject({ id: "mcp:devDocs", kind: "single", secret: false });
    expect(q.prompt).toContain(`command ${JSON.stringify("npx -y dev-docs-mcp --read-only")}`);
    const r = h.runtime.questions.reply(
      thread.id,
      asked.request.request_id,
      { answers: { [q.id]: { selected: [answer] } } },
      { kind: "test" },
    );
    expect(r.ok).toBe(true);
    const outcome = await turn.done;
    detach();
    return { outcome, config: join(h.home, "config.toml") };
  }

  it("No: config.toml is not touched and the skill is unavailable", async () => {
    const { outcome, config } = await run("No", []);
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.message).toBe(
      'skill "docs-lookup" is unavailable: the MCP server "devDocs" was not added',
    );
    expect(existsSync(config)).toBe(false);
    expect(h?.model.requests).toHaveLength(0);
  });

  it("Yes: [mcp_servers.devDocs] is added with the skill's command, and the turn goes on with the body", async () => {
    const { outcome, config } = await run("Yes, add it", [
      {
        expect: { input_contains: ["BODY-MARKER-DOCS", "was added to config.toml"] },
        output: [{ type: "message", text: "ok" }],
      },
    ]);
    expect(outcome.status).toBe("completed");
    expect((parse(readFileSync(config, "utf8")) as any).mcp_servers.devDocs).toEqual({
      command: "npx",
      args: ["-y", "dev-docs-mcp", "--read-only"],
    });
  });
});
