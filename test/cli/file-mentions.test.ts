/**
 * `@path` mentions through `tandem exec` against `tandem mock-model` (README "Mention files: `@`"):
 * a mentioned file's contents reach the model after the user's message, a directory its listing;
 * a symlink the model could have planted, leading to Tandem's home or out of the workspace, is
 * never read on the host.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const say = (text: string) => ({ steps: [{ output: [{ type: "message" as const, text }] }] });

/** The text of every input message of the first model request. */
function firstRequestTexts(log: string): string[] {
  const req = jsonLines(readFileSync(log, "utf8"))[0];
  return req.input
    .filter((i: any) => i.type === "message" && i.role === "user")
    .map((i: any) => i.content.map((c: any) => c.text ?? "").join(""));
}

describe("@ mentions (tandem exec)", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  it("attaches a mentioned file and a directory listing; links out of the workspace are not read", async () => {
    mock = await startMockProcess(say("done"));
    const home = tempDir();
    const outside = tempDir();
    const cwd = tempDir();
    writeFileSync(join(home, "credentials-like.txt"), "HOME-SECRET-4242\n");
    writeFileSync(join(outside, "elsewhere.txt"), "OUTSIDE-CONTENT-77\n");
    writeFileSync(join(cwd, "notes.md"), "# Notes\n\nthe answer is forty-two\n");
    mkdirSync(join(cwd, "src"));
    writeFileSync(join(cwd, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(cwd, "my notes.txt"), "spaced file body\n");
    symlinkSync(join(home, "credentials-like.txt"), join(cwd, "home-link"));
    symlinkSync(join(outside, "elsewhere.txt"), join(cwd, "out-link"));
    const prompt =
      'Explain @notes.md, then @src. Also @"my notes.txt" @home-link @out-link @missing.txt me@example.com';
    const r = await runTandem(["exec", "--json", prompt], {
      cwd,
      env: { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url },
    });
    expect(r.code, r.stderr).toBe(0);
    const texts = firstRequestTexts(mock.log);
    const at = texts.findIndex((t) => t.startsWith("Explain @notes.md"));
    expect(at).toBeGreaterThan(-1);
    const attached = texts.slice(at + 1).join("\n");
    expect(attached).toContain('<file path="notes.md" bytes="33">\n# Notes\n\nthe answer is forty-two\n');
    expect(attached).toContain('<directory path="src/">\na.ts\n</directory>');
    expect(attached).toContain("spaced file body");
    expect(attached).toMatch(/<file path="home-link">\n\(not attached: it leads outside the workspace\)/);
    expect(attached).toMatch(/<file path="out-link">\n\(not attached: it leads outside the workspace\)/);
    expect(attached).not.toContain("missing.txt");
    expect(attached).not.toContain("example.com");
    const whole = readFileSync(mock.log, "utf8");
    expect(whole).not.toContain("HOME-SECRET-4242");
    expect(whole).not.toContain("OUTSIDE-CONTENT-77");
    // The JSONL shows the attachment by name, not its body.
    expect(r.stdout).not.toContain("forty-two");
  });
});
