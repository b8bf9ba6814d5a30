/**
 * `config/value/write` and `config/batchWrite` over a real `tandem app-server` (in-process
 * stdio): what a Codex client saves lands in $TANDEM_HOME/config.toml with the user's comments
 * and layout kept, `config/read` reports it, and nothing else is ever written (unknown keys, bad
 * values, stale versions, other files). Every message is validated against the Codex schema.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, RpcFailure, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";

const CONFIG = [
  "# my settings",
  'model = "gpt-a"  # the one I like',
  "",
  "# writes",
  "[sandbox_workspace_write]",
  "network_access = false",
  "",
].join("\n");

async function refused(p: Promise<unknown>): Promise<RpcFailure> {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(RpcFailure);
  return err as RpcFailure;
}

describe("tandem app-server: config writes", () => {
  const served: Served[] = [];
  let mock: MockProcess | undefined;
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      await s.close();
    }
    await mock?.stop();
  });

  // Fails if writes are refused, rewrite the file, lose a comment, or config/read ignores them.
  it("writes model and effort by line edits; config/read reflects them; refusals write nothing", async () => {
    mock = await startMockProcess({ steps: [] });
    const home = tempDir("tandem-home-");
    const file = join(home, "config.toml");
    writeFileSync(file, CONFIG);
    const s = inProcessStdio(serverEnv(mock, home));
    served.push(s);
    const { client } = s;
    await client.initialize();

    const r = await client.request("config/batchWrite", {
      edits: [
        { keyPath: "model", value: "gpt-b", mergeStrategy: "upsert" },
        { keyPath: "model_reasoning_effort", value: "high", mergeStrategy: "upsert" },
      ],
      filePath: file,
      expectedVersion: null,
      reloadUserConfig: true,
    });
    expect(r).toMatchObject({ filePath: file, status: "ok", version: expect.stringMatching(/^sha256:/) });
    const after = [
      "# my settings",
      'model = "gpt-b"  # the one I like',
      'model_reasoning_effort = "high"',
      "",
      "# writes",
      "[sandbox_workspace_write]",
      "network_access = false",
      "",
    ].join("\n");
    expect(readFileSync(file, "utf8")).toBe(after);
    const read = await client.request("config/read", { includeLayers: false });
    expect(read.config).toMatchObject({ model: "gpt-b", model_reasoning_effort: "high" });

    const one = await client.request("config/value/write", {
      keyPath: "approval_policy",
      value: "never",
      mergeStrategy: "replace",
      expectedVersion: r.version,
    });
    expect(one.status).toBe("ok");
    expect(readFileSync(file, "utf8")).toBe(after.replace('"high"\n', '"high"\napproval_policy = "never"\n'));
    const written = readFileSync(file, "utf8");

    // Unknown key, bad value, stale version, all-or-nothing batch: -32602 with the reason, file untouched.
    const unknown = await refused(
      client.request("config/value/write", {
        keyPath: "notice.hide_warning",
        value: true,
        mergeStrategy: "upsert",
      }),
    );
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain("notice.hide_warning cannot be written here; writable keys: model");
    const bad = await refused(
      client.request("config/value/write", {
        keyPath: "sandbox_mode",
        value: "root",
        mergeStrategy: "upsert",
      }),
    );
    expect(bad.message).toContain("sandbox_mode:");
    const stale = await refused(
      client.request("config/value/write", {
        keyPath: "model",
        value: "gpt-c",
        mergeStrategy: "upsert",
        expectedVersion: r.version,
      }),
    );
    expect(stale.data).toMatchObject({ reason: "version_conflict" });
    await refused(
      client.request("config/batchWrite", {
        edits: [
          { keyPath: "model", value: "gpt-d", mergeStrategy: "upsert" },
          { keyPath: "bogus", value: 1, mergeStrategy: "upsert" },
        ],
      }),
    );
    expect(readFileSync(file, "utf8")).toBe(written);
    expect((await client.request("config/read", {})).config.model).toBe("gpt-b");
  });

  // The attack: a client names another file to write (e.g. a shell profile). Fails if written.
  it("refuses to write any file but $TANDEM_HOME/config.toml", async () => {
    mock = await startMockProcess({ steps: [] });
    const home = tempDir("tandem-home-");
    const s = inProcessStdio(serverEnv(mock, home));
    served.push(s);
    await s.client.initialize();
    const target = join(outsideDir("tandem-cfg-target-"), "profile");
    const err = await refused(
      s.client.request("config/value/write", {
        keyPath: "model",
        value: "x",
        mergeStrategy: "upsert",
        filePath: target,
      }),
    );
    expect(err.code).toBe(-32602);
    expect(err.message).toContain(`Tandem writes only ${join(home, "config.toml")}`);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(home, "config.toml"))).toBe(false);
  });
});
