/**
 * `tandem mcp add|list|get|remove` through the real `./bin/tandem` process (README "MCP servers"):
 * the file on disk, the live status `list` reports, and bad config as a config error.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { runTandem } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING, ODD } from "../helpers/mcp.js";

describe("tandem mcp (processes)", () => {
  // Fails if add/remove lose other settings, list does not really connect (tool count, reason
  // of a failure), get shows env values, or remove of an unknown server succeeds.
  it("add, list, get and remove edit config.toml and report live status", async () => {
    const home = tempDir("tandem-home-");
    const file = join(home, "config.toml");
    writeFileSync(file, 'model = "o3"\n\n[questions]\ndefault_mode = true\n');
    const env = { TANDEM_HOME: home };
    const add = await runTandem(
      ["mcp", "add", "everything", "--env", "FOO=secret", "--", process.execPath, EVERYTHING],
      { env },
    );
    expect(add.code).toBe(0);
    expect(add.stdout).toContain('Added MCP server "everything"');
    expect(
      (await runTandem(["mcp", "add", "broken", "--", process.execPath, ODD, "exit"], { env })).code,
    ).toBe(0);
    expect((await runTandem(["mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp"], { env })).code).toBe(0);
    const doc = parse(readFileSync(file, "utf8")) as any;
    expect(doc.model).toBe("o3");
    expect(doc.questions.default_mode).toBe(true);
    expect(doc.mcp_servers.everything).toEqual({
      command: process.execPath,
      args: [EVERYTHING],
      env: { FOO: "secret" },
    });
    expect(doc.mcp_servers.web).toEqual({ url: "http://127.0.0.1:9/mcp" });

    const list = await runTandem(["mcp", "list", "--json"], { env });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<Record<string, any>>;
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(byName.everything.status).toBe("ok");
    expect(byName.everything.tools).toBeGreaterThan(5);
    expect(byName.everything.env).toEqual({ FOO: "*****" });
    expect(byName.broken).toMatchObject({ status: "failed" });
    expect(byName.broken.error).toContain("cannot open its database");
    expect(byName.web.status).toBe("failed");
    const table = await runTandem(["mcp", "list"], { env });
    expect(table.stdout).toMatch(/everything\s+stdio\s+.*ok \(\d+ tools\)/);
    expect(table.stdout).toMatch(/broken\s+stdio\s+.*failed: /);

    const get = await runTandem(["mcp", "get", "everything"], { env });
    expect(get.stdout).toContain("transport: stdio");
    expect(get.stdout).not.toContain("secret");

    expect((await runTandem(["mcp", "remove", "web"], { env })).code).toBe(0);
    const gone = await runTandem(["mcp", "remove", "web"], { env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no MCP server "web"');
    const after = parse(readFileSync(file, "utf8")) as any;
    expect(Object.keys(after.mcp_servers).sort()).toEqual(["broken", "everything"]);
    expect(after.model).toBe("o3");
  });

  // Fails if a bad name or a half-given server is written, or misuse exits 0.
  it("refuses bad input without writing anything", async () => {
    const home = tempDir("tandem-home-");
    const env = { TANDEM_HOME: home };
    const bad = await runTandem(["mcp", "add", "a.b", "--", "x"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"a.b" is not a valid MCP server name');
    const both = await runTandem(["mcp", "add", "x", "--url", "http://h/mcp", "--", "cmd"], { env });
    expect(both.code).toBe(2);
    expect((await runTandem(["mcp", "add", "x", "--url", "ftp://h"], { env })).stderr).toContain(
      "http(s) URL",
    );
    // Nothing about MCP was written (without bubblewrap the test harness itself puts a sandbox
    // fallback in config.toml, test/helpers/system-tools.ts: only that may be there).
    const written = existsSync(join(home, "config.toml"))
      ? readFileSync(join(home, "config.toml"), "utf8")
      : "";
    expect(written).not.toContain("mcp_servers");
  });

  // Fails if a wrong [mcp_servers.*] table is accepted or only warned about (config error style).
  it("a bad [mcp_servers] table is a config error naming the field", async () => {
    const home = tempDir("tandem-home-");
    writeFileSync(join(home, "config.toml"), '[mcp_servers.x]\ncommand = "a"\nurl = "http://h/mcp"\n');
    const r = await runTandem(["mcp", "list"], { env: { TANDEM_HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("mcp_servers.x: set exactly one of `command`");
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
