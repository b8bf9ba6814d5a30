/**
 * Configuration mistakes through the real `./bin/tandem` process (README "Sandbox and approvals", "Also fix"): each is
 * one clear message on stderr naming what is wrong and what to do, exit code 2 (like every other
 * configuration error), never a silent fallback and never a Node stack trace.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RunResult, runTandem } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

/** Nothing listens on port 9: a run that got past configuration would fail differently. */
const env = (home: string) => ({
  TANDEM_HOME: home,
  OPENAI_API_KEY: "k",
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
});

function expectConfigError(r: RunResult, ...parts: string[]): void {
  expect(r.code).toBe(2);
  for (const p of parts) expect(r.stderr).toContain(p);
  expect(r.stderr).not.toMatch(/^\s+at /m); // no stack trace
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stdout).toBe("");
}

describe("configuration errors (processes)", () => {
  // Fails if an unknown model_provider falls back to OpenAI (resolveProvider's `?? {}`).
  it("a misspelt model_provider names the known providers", async () => {
    const home = tempDir();
    const r = await runTandem(
      [
        "exec",
        "--skip-git-repo-check",
        "-c",
        'model_provider="opnai"',
        "-c",
        'model_providers.local.base_url="http://x"',
        "hi",
      ],
      { env: env(home) },
    );
    expectConfigError(r, 'unknown model_provider "opnai"', "openai, local", "[model_providers.opnai]");
  });

  // Fails if `-c key=` is taken as an empty string (then `model` is "" and the request fails late).
  it("-c model= (no value) is refused, as is an empty model", async () => {
    const home = tempDir();
    expectConfigError(
      await runTandem(["exec", "-c", "model=", "hi"], { env: env(home) }),
      "model= has no value",
    );
    expectConfigError(
      await runTandem(["exec", "-c", 'model=""', "hi"], { env: env(home) }),
      "model: must not be empty",
    );
  });

  // Fails if a bad shell_environment_policy is accepted or only warned about.
  it("a bad shell_environment_policy value or key is a config error", async () => {
    const home = tempDir();
    const bad = await runTandem(["exec", "-c", 'shell_environment_policy.inherit="some"', "hi"], {
      env: env(home),
    });
    expectConfigError(bad, "shell_environment_policy.inherit", '"all"|"core"|"none"');
    const typo = await runTandem(["exec", "-c", 'shell_environment_policy.include="x"', "hi"], {
      env: env(home),
    });
    expectConfigError(typo, "shell_environment_policy", '"include"');
    writeFileSync(join(home, "config.toml"), "[shell_environment_policy.set]\nA = 1\n");
    expectConfigError(await runTandem(["threads"], { env: env(home) }), "shell_environment_policy.set.A");
  });

  // Fails if openStore lets mkdir's EEXIST/ENOTDIR escape as a raw error (top level prints .stack).
  it("a TANDEM_HOME that is a regular file: one message naming it, exit 2", async () => {
    const file = join(tempDir(), "home-is-a-file");
    writeFileSync(file, "not a directory\n");
    for (const args of [["exec", "--skip-git-repo-check", "hi"], ["threads"]]) {
      const r = await runTandem(args, { env: env(file) });
      expectConfigError(r, file, "is not a directory", "TANDEM_HOME");
    }
    expect(readFileSync(file, "utf8")).toBe("not a directory\n");
  });

  // Fails if SQLITE_NOTADB escapes as a raw SqliteError with its stack.
  it("a corrupt state.db: one message naming it and what to do, exit 2, file untouched", async () => {
    const home = tempDir();
    mkdirSync(home, { recursive: true });
    const garbage = Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256));
    writeFileSync(join(home, "state.db"), garbage);
    for (const args of [["exec", "--skip-git-repo-check", "hi"], ["threads"]]) {
      const r = await runTandem(args, { env: env(home) });
      expectConfigError(r, join(home, "state.db"), "not a database", "move the damaged file away");
    }
    expect(readFileSync(join(home, "state.db")).equals(garbage)).toBe(true);
  });

  // Fails if a surface starts its runtime its own way again (surfaces/shared/startup.ts): every
  // command that runs threads ends a damaged store, and a configuration error, the same way.
  it("every surface: a corrupt state.db and a bad -c are one line naming them, exit 2", async () => {
    const home = tempDir();
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "state.db"), Buffer.alloc(8192, 7));
    for (const cmd of ["acp", "mcp-server", "app-server", "serve"]) {
      const damaged = await runTandem([cmd], { env: env(home) });
      expectConfigError(damaged, `tandem ${cmd}: `, join(home, "state.db"), "not a database");
      const bad = await runTandem([cmd, "-c", "model="], { env: env(tempDir()) });
      expectConfigError(bad, `tandem ${cmd}: `, "model= has no value");
    }
  });
});
