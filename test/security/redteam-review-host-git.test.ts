/**
 * Red team: nothing on the host runs git for a review. The model wrote the workspace's
 * .git/config before the review (core.fsmonitor, diff.external, core.pager, a textconv driver
 * and core.hooksPath, each a script that leaves a marker) and .gitattributes; `tandem review`
 * runs, the model runs git inside the sandbox. The host-side marker never appears: no host
 * process ran the planted programs (inside the read-only sandbox they cannot write it either);
 * host git afterwards leaves it at once (the control).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

describe.skipIf(missing("bwrap").length > 0)("red team: a review runs no git on the host", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  for (const where of ["/tmp", "/var/tmp"])
    it(`planted git config runs nowhere on the host (workspace in ${where})`, async () => {
      const cwd = mkdtempSync(join(where, "tandem-review-git-"));
      const marks = tempDir("tandem-review-marks-");
      try {
        const git = (...a: string[]) =>
          execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...a], { cwd, encoding: "utf8" });
        git("init", "-q", "-b", "main");
        writeFileSync(join(cwd, "a.txt"), "one\n");
        git("add", ".");
        git("commit", "-qm", "one");
        writeFileSync(join(cwd, "a.txt"), "two\n");
        const evil = join(cwd, ".git", "evil.sh");
        writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> ${join(marks, "ran")}\n`);
        chmodSync(evil, 0o755);
        mkdirSync(join(cwd, ".git", "hooks-evil"));
        writeFileSync(join(cwd, ".gitattributes"), "* diff=evil\n");
        writeFileSync(
          join(cwd, ".git", "config"),
          `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ${evil}\n\tpager = ${evil}\n\thooksPath = .git/hooks-evil\n` +
            `[diff]\n\texternal = ${evil}\n[diff "evil"]\n\ttextconv = ${evil}\n`,
          { flag: "w" },
        );
        const answer =
          '{"findings": [], "overall_correctness": "patch is correct", "overall_explanation": ""}';
        mock = await startMockProcess({
          steps: [
            {
              output: [
                {
                  type: "function_call",
                  name: "exec_command",
                  call_id: "g",
                  arguments: { cmd: "git status --porcelain; git diff HEAD | cat" },
                },
              ],
            },
            { output: [{ type: "message", text: answer }] },
          ],
        });
        const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
        const r = await runTandem(["review", "-C", cwd], { env });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain("No findings.");
        expect(existsSync(join(marks, "ran"))).toBe(false);
        // The control: git on the host with this config does run the planted program.
        execFileSync("git", ["status"], { cwd, stdio: "ignore" });
        expect(existsSync(join(marks, "ran"))).toBe(true);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
        rmSync(marks, { recursive: true, force: true });
      }
    });
});
