/**
 * `tandem doctor` and `tandem login` through the real `./bin/tandem`: a fresh machine (no
 * TANDEM_HOME yet, bubblewrap not on PATH, a model URL nothing listens on) gets each problem and
 * its fix and exit 1; with the scripted model up and everything present every check passes; a key
 * piped to `tandem login` is stored 0600 and is what a later `tandem exec` sends — in the
 * Authorization header only.
 */
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

/** A PATH with every command of the current PATH except `bwrap` (a machine without bubblewrap). */
function pathWithoutBwrap(): string {
  const dir = tempDir("tandem-doctor-nobwrap-");
  for (const d of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names)
      if (n !== "bwrap" && !existsSync(join(dir, n))) symlinkSync(join(d, n), join(dir, n));
  }
  return dir;
}

/** A loopback URL nothing listens on (a port that was free a moment ago). */
async function deadUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

const KEY = "sk-doctor-test-0123456789";
const mocks: MockProcess[] = [];
afterAll(async () => {
  for (const m of mocks) await m.stop();
});

describe("tandem doctor", () => {
  // Fails if a missing bwrap, a missing key or a dead model URL passes, if a fix is not printed,
  // or if the home is not made 0700.
  it("on a fresh machine: creates TANDEM_HOME 0700, names each problem with its fix, exits 1", async () => {
    const home = join(tempDir("tandem-doctor-"), "fresh-home");
    const url = await deadUrl();
    const r = await runTandem(["doctor"], {
      env: { TANDEM_HOME: home, OPENAI_BASE_URL: url, PATH: pathWithoutBwrap() },
      freshHome: true,
    });
    expect(r.code).toBe(1);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const line = (name: string) =>
      r.stdout.split("\n").find((l) => new RegExp(`^\\w+\\s+${name}\\s`).test(l)) ?? "";
    expect(line("home")).toMatch(/^ok .*created .*fresh-home \(mode 0700\)/);
    expect(line("bwrap")).toMatch(/^fail .*not installed.* — fix: .*install.* bubblewrap/);
    expect(line("api-key")).toMatch(
      /^fail .*OPENAI_API_KEY is not set.* — fix: export OPENAI_API_KEY=… or run `tandem login`/,
    );
    expect(line("model")).toContain(
      `fail  model    cannot reach ${url}/models: connection refused — fix: start the model server`,
    );
    expect(line("node")).toMatch(/^ok /);

    const j = await runTandem(["doctor", "--json"], {
      env: { TANDEM_HOME: home, OPENAI_BASE_URL: url, PATH: pathWithoutBwrap() },
      freshHome: true,
    });
    expect(j.code).toBe(1);
    const report = JSON.parse(j.stdout);
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.checks.map((c: any) => [c.name, c]));
    expect(byName.bwrap.status).toBe("fail");
    expect(byName.model.status).toBe("fail");
    expect(byName.model.fix).toContain("start the model server");
    expect(byName.store.status).toBe("ok");
  });

  it.skipIf(missing("bwrap").length > 0)(
    "with the scripted model, a key, a store and an MCP server: all ok, exit 0",
    async () => {
      const mock = await startMockProcess({ model: "gpt-doctor", api_key: KEY, steps: [] });
      mocks.push(mock);
      const home = tempDir("tandem-doctor-ok-");
      const server = join(
        import.meta.dirname,
        "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
      );
      writeFileSync(
        join(home, "config.toml"),
        `model = "gpt-doctor"\nsandbox_mode = "workspace-write"\n[mcp_servers.everything]\ncommand = "${process.execPath}"\nargs = ["${server}"]\n`,
      );
      const r = await runTandem(["doctor", "--json"], {
        env: { TANDEM_HOME: home, OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: KEY },
      });
      const report = JSON.parse(r.stdout);
      expect(report.checks.filter((c: any) => c.status !== "ok")).toEqual([]);
      expect(report.checks.map((c: any) => c.name)).toEqual([
        "home",
        "node",
        "config",
        "bwrap",
        "api-key",
        "model",
        "store",
        "mcp:everything",
      ]);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain(KEY);

      // A wrong key is caught by the model check, and the model must be one the server lists.
      const bad = await runTandem(["doctor"], {
        env: { TANDEM_HOME: home, OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: "sk-wrong-key" },
      });
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/fail {2}model .*refused the API key \(HTTP 401\)/);
      const other = await runTandem(["doctor", "-m", "gpt-other"], {
        env: { TANDEM_HOME: home, OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: KEY },
      });
      expect(other.stdout).toMatch(/fail {2}model .*"gpt-other" is not among its 1 models \("gpt-doctor"\)/);
    },
  );
});

describe("tandem doctor, MCP servers", () => {
  // Fails if one server's failure hides another's result, or a failing server is not reported.
  it("reports each MCP server on its own line: one that cannot start fails, the other is ok", async () => {
    const home = tempDir("tandem-doctor-mcp-");
    const server = join(
      import.meta.dirname,
      "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    writeFileSync(
      join(home, "config.toml"),
      `[mcp_servers.broken]\ncommand = "/nonexistent/mcp-server"\n[mcp_servers.good]\ncommand = "${process.execPath}"\nargs = ["${server}"]\n`,
    );
    const r = await runTandem(["doctor", "--json"], {
      env: { TANDEM_HOME: home, OPENAI_BASE_URL: await deadUrl() },
    });
    expect(r.code).toBe(1);
    const byName = Object.fromEntries(JSON.parse(r.stdout).checks.map((c: any) => [c.name, c]));
    expect(byName["mcp:broken"].status).toBe("fail");
    expect(byName["mcp:broken"].fix).toContain("[mcp_servers.broken]");
    expect(byName["mcp:good"]).toMatchObject({ status: "ok" });
    expect(byName["mcp:good"].found).toMatch(/^started, \d+ tools$/);
  });
});

describe("tandem login", () => {
  // Fails if the key is not stored 0600, lands in config.toml, is not used without OPENAI_API_KEY,
  // or travels anywhere but the Authorization header.
  it("a piped key is stored 0600 (sealed) and a later exec sends it as the bearer token", async () => {
    const mock = await startMockProcess({
      api_key: KEY,
      steps: [{ output: [{ type: "message", text: "logged in fine" }] }],
    });
    mocks.push(mock);
    const home = join(tempDir("tandem-login-"), "home");
    const env = { TANDEM_HOME: home, OPENAI_BASE_URL: mock.url };
    const none = await runTandem(["login", "--status"], { env, freshHome: true });
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("run `tandem login`");

    const login = await runTandem(["login"], { env, input: `  ${KEY}\n`, freshHome: true });
    expect(login.code).toBe(0);
    const file = join(home, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, "utf8")).not.toContain(KEY);
    expect(existsSync(join(home, "config.toml"))).toBe(false);
    expect(login.stdout + login.stderr).not.toContain(KEY);

    const status = await runTandem(["login", "--status"], { env, freshHome: true });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`stored in ${file}`);
    expect(status.stdout).not.toContain(KEY);

    const log = join(home, "debug.log");
    const exec = await runTandem(["exec", "--skip-git-repo-check", "--log-file", log, "say hi"], { env });
    expect(exec.stderr).not.toContain("no API key");
    expect(exec.code).toBe(0);
    expect(exec.stdout).toContain("logged in fine");
    expect(readFileSync(mock.log, "utf8")).not.toContain(KEY); // not in the request body
    expect(readFileSync(log, "utf8")).not.toContain(KEY);
    expect(exec.stdout + exec.stderr).not.toContain(KEY);

    const out = await runTandem(["logout"], { env });
    expect(out.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    const after = await runTandem(["exec", "--skip-git-repo-check", "say hi"], { env });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain("or run `tandem login`");
  });

  it("refuses an empty key and an empty stdin, storing nothing", async () => {
    const home = tempDir("tandem-login-empty-");
    for (const input of ["\n", "   \n", ""]) {
      const r = await runTandem(["login"], { env: { TANDEM_HOME: home }, input });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(input ? /the key is empty; nothing stored/ : /nothing on stdin; pipe the key/);
    }
    expect(existsSync(join(home, "credentials.json"))).toBe(false);
  });
});
