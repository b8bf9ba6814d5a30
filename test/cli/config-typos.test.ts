/**
 * config.toml mistakes as a newcomer makes them, through the real `./bin/tandem`: a string left
 * open is named as such with its line and column; unknown keys get a "did you mean" — a warning
 * from every subcommand at the top level and in [questions], an error in the strict tables
 * (src/config/unknown-keys.ts says why).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTandem } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

function homeWith(toml: string): string {
  const home = tempDir("tandem-cfgtypo-");
  writeFileSync(join(home, "config.toml"), toml);
  return home;
}

describe("config.toml typos", () => {
  it("an unclosed string is reported as such, with line and column and the fix", async () => {
    const home = homeWith('approval_policy = "never"\nmodel = "gpt-5\nsandbox_mode = "read-only"\n');
    const r = await runTandem(["threads"], { env: { TANDEM_HOME: home }, freshHome: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("line 2, column 9: unclosed string");
    expect(r.stderr).toContain('Add the closing "');
    expect(r.stderr).not.toContain("control characters");
  });

  it("other syntax errors keep smol-toml's reason, with line and column", async () => {
    const home = homeWith("model = 1 2\n");
    const r = await runTandem(["threads"], { env: { TANDEM_HOME: home }, freshHome: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /line 1, column \d+: each key-value declaration must be followed by an end-of-line/,
    );
  });

  const typos = 'modle = "gpt-5"\nweb_search = "on"\n[questions]\nenabeld = false\n';
  const expected = [
    'unknown config key "modle" ignored (did you mean "model"?)',
    'unknown config key "web_search" ignored\n',
    'unknown config key "questions.enabeld" ignored (did you mean "enabled"?)',
  ];
  for (const args of [["threads"], ["rules"], ["mcp", "list"], ["export", "nope"]]) {
    it(`unknown keys are warned about, with a "did you mean", by \`tandem ${args.join(" ")}\``, async () => {
      const home = homeWith(typos);
      const r = await runTandem(args, { env: { TANDEM_HOME: home }, freshHome: true });
      for (const line of expected) expect(r.stderr).toContain(`tandem ${args[0]}: warning: ${line}`);
    });
  }

  it("an unknown key in a strict table is an error that suggests the key meant", async () => {
    const home = homeWith(
      '[sandbox_workspace_write]\nnetwork_acess = true\n[mcp_servers.fs]\ncommand = "/bin/true"\ndisabled_tool = ["x"]\n',
    );
    const r = await runTandem(["threads"], { env: { TANDEM_HOME: home }, freshHome: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'sandbox_workspace_write: unknown key "network_acess" (did you mean "network_access"?)',
    );
    expect(r.stderr).toContain(
      'mcp_servers.fs: unknown key "disabled_tool" (did you mean "disabled_tools"?)',
    );
  });
});
