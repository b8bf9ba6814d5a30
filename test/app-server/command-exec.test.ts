/**
 * `command/exec` over a real `tandem app-server` (in-process stdio) with real bubblewrap: a
 * client's command runs under the configured sandbox — it cannot write the workspace when the
 * configuration is read-only, cannot read Tandem's home, does not see the API key — unless the
 * request names another sandbox; output streams as `command/exec/outputDelta` before the
 * response when asked; `command/exec/terminate` ends it. Messages are validated against the
 * Codex schema.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, RpcFailure, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

async function refused(p: Promise<unknown>): Promise<RpcFailure> {
  const err = await p.then(
    () => undefined,
    (e) => e,
  );
  expect(err).toBeInstanceOf(RpcFailure);
  return err as RpcFailure;
}

describe.skipIf(missing("bwrap").length > 0)("tandem app-server: command/exec", () => {
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

  async function start(config: string) {
    mock = await startMockProcess({ steps: [] });
    const home = tempDir("tandem-home-");
    writeFileSync(join(home, "config.toml"), config);
    const s = inProcessStdio(serverEnv(mock, home));
    served.push(s);
    await s.client.initialize();
    // Outside /tmp: temp dirs are writable in every sandbox.
    const cwd = outsideDir("tandem-cmdexec-");
    dirs.push(cwd);
    return { client: s.client, home, cwd };
  }

  // The attack: a client command under a read-only configuration tries to write the workspace,
  // read Tandem's home and the API key. Fails if command/exec runs unsandboxed.
  it("runs under the configured sandbox unless the request names another", async () => {
    const { client, home, cwd } = await start('sandbox_mode = "read-only"\n');
    const r = await client.request("command/exec", {
      command: [
        "sh",
        "-c",
        `echo out; echo err >&2; echo x > w.txt; cat ${home}/config.toml; echo "key=$OPENAI_API_KEY"; exit 3`,
      ],
      cwd,
    });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toContain("out\n");
    expect(r.stdout).toContain("key=\n");
    expect(r.stdout).not.toContain("sandbox_mode");
    expect(r.stderr).toContain("err\n");
    expect(existsSync(join(cwd, "w.txt"))).toBe(false);

    const w = await client.request("command/exec", {
      command: ["sh", "-c", "echo x > w.txt"],
      cwd,
      sandboxPolicy: { type: "workspaceWrite", writableRoots: [], networkAccess: false },
    });
    expect(w).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(existsSync(join(cwd, "w.txt"))).toBe(true);

    const empty = await refused(client.request("command/exec", { command: [] }));
    expect(empty.code).toBe(-32602);
  });

  // Fails if streamed output comes after the response, or is also in it.
  it("streams output before the response; terminate ends a process", async () => {
    const { client, cwd } = await start("");
    const r = await client.request("command/exec", {
      command: ["echo", "hello world"],
      cwd,
      processId: "p1",
      streamStdoutStderr: true,
    });
    expect(r).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    const deltas = client.received.filter((m) => m.method === "command/exec/outputDelta");
    expect(deltas.map((d) => Buffer.from(d.params.deltaBase64, "base64").toString()).join("")).toBe(
      "hello world\n",
    );
    const order = client.received.map((m) => m.method ?? `response:${m.id}`);
    expect(order.indexOf("command/exec/outputDelta")).toBeGreaterThanOrEqual(0);

    const long = client.request("command/exec", {
      command: ["sh", "-c", "echo started; sleep 60"],
      cwd,
      processId: "p2",
      streamStdoutStderr: true,
    });
    await client.notification("command/exec/outputDelta", (p) => p.processId === "p2");
    expect(await client.request("command/exec/terminate", { processId: "p2" })).toEqual({});
    expect((await long).exitCode).not.toBe(0);
    const gone = await refused(client.request("command/exec/terminate", { processId: "p2" }));
    expect(gone.message).toContain("no running process p2");
  });
});
