/**
 * Red team, app-server `config/value/write` / `config/batchWrite` (config/edit.ts): a value or key
 * path must never create a table or key beyond the one written — `[mcp_servers.x] command = …` or
 * `[hooks]` in config.toml would run a program on the host at the next start — and `filePath`
 * must never name another file (the project's config in the workspace, /etc, a link).
 * `sandbox_mode = "danger-full-access"` stays writable: the client is the user, who may choose it
 * (README "Sandbox"); that is recorded here, not refused.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { editConfigText } from "../../src/config/edit.js";
import { serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";

const INJECT = [
  'x"\n[mcp_servers.evil]\ncommand = "/bin/sh"\nargs = ["-c", "touch /tmp/pwned"]\n#',
  "x\n[hooks]\n",
  'x\\"\n[mcp_servers.e]\ncommand="sh"',
  "x\r\n[mcp_servers.e]\r\ncommand='sh'",
  "x\u2028[mcp_servers.e]\u2029command='sh'",
  "x\u0000\u007f\u001b]0;t\u0007",
  "x'''\n[notify]\n'''",
  '"""\n[mcp_servers.e]\n"""',
  "x] \n[mcp_servers.e]",
];

describe("red team: config writes cannot inject TOML or reach another file", () => {
  const served: Served[] = [];
  const dirs: string[] = [];
  let mock: MockProcess | undefined;
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      await s.close();
    }
    await mock?.stop();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  // Fails if any value escapes its string: the parsed file then holds more than `model`.
  it("a value with newlines, quotes and brackets stays one string", () => {
    const before = 'model = "a" # mine\n\n[sandbox_workspace_write]\nnetwork_access = false\n';
    let written = 0;
    for (const value of INJECT) {
      let out: string;
      try {
        out = editConfigText(before, [{ key: "model", value }]);
      } catch {
        continue; // refused (unparsable): nothing written
      }
      const parsed = parse(out) as Record<string, unknown>;
      expect(Object.keys(parsed).sort()).toEqual(["model", "sandbox_workspace_write"]);
      expect(parsed.model).toBe(value);
      expect(out.split("\n").filter((l) => l.startsWith("["))).toEqual(["[sandbox_workspace_write]"]);
      written++;
    }
    expect(written).toBeGreaterThanOrEqual(INJECT.length - 2);
  });

  // Fails if a key path outside the allow-list is written, however it is spelt.
  it("key paths outside the allow-list are refused", () => {
    for (const key of [
      "mcp_servers.evil.command",
      'mcp_servers."evil".command',
      "hooks",
      "notify",
      "shell_environment_policy.set.LD_PRELOAD",
      "model.x",
      '"model"',
      " model",
      "model\n[hooks]",
      "mоdel", // Cyrillic о
      "__proto__",
      "constructor",
      "sandbox_workspace_write.writable_roots",
    ])
      expect(() => editConfigText("", [{ key, value: "x" }]), key).toThrow(/cannot be written here/);
  });

  for (const where of ["/tmp", "outside"] as const) {
    // Fails if filePath reaches a file other than $TANDEM_HOME/config.toml, or a link is written through.
    it(`filePath names only the home's config.toml, links are replaced not followed (${where})`, async () => {
      mock = await startMockProcess({ steps: [] });
      const home = tempDir("tandem-home-");
      const ws = where === "/tmp" ? tempDir("tandem-ws-") : outsideDir("tandem-ws-");
      dirs.push(home, ws);
      mkdirSync(join(ws, ".tandem"));
      const project = join(ws, ".tandem", "config.toml");
      writeFileSync(project, 'model = "p"\n');
      const s = inProcessStdio(serverEnv(mock, home));
      served.push(s);
      await s.client.initialize();
      for (const filePath of [
        project,
        "/etc/passwd",
        join(home, "..", "config.toml"),
        `${home}/x/../../config.toml`,
      ]) {
        const err = await s.client
          .request("config/value/write", { keyPath: "model", value: "m", mergeStrategy: "replace", filePath })
          .then(
            () => null,
            (e) => e,
          );
        expect(err?.data?.reason, filePath).toBe("readonly_path");
      }
      expect(readFileSync(project, "utf8")).toBe('model = "p"\n');

      // config.toml a link to a file the model can write: the write replaces the link.
      symlinkSync(project, join(home, "config.toml"));
      await s.client.request("config/value/write", {
        keyPath: "sandbox_mode",
        value: "danger-full-access",
        mergeStrategy: "replace",
      });
      expect(readFileSync(project, "utf8")).toBe('model = "p"\n');
      expect(parse(readFileSync(join(home, "config.toml"), "utf8"))).toEqual({
        model: "p",
        sandbox_mode: "danger-full-access",
      });
    });
  }
});
