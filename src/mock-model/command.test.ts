import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runMockModelCommand } from "./command.js";
import { MockModelScriptError } from "./script.js";
import { startMockModel } from "./server.js";

const dir = mkdtempSync(join(tmpdir(), "mock-model-cmd-"));
const scriptPath = join(dir, "script.json");
writeFileSync(scriptPath, JSON.stringify({ steps: [{ output: [{ type: "message", text: "hi" }] }] }));
const LINE = /^mock-model listening on (http:\/\/127\.0\.0\.1:(\d+)\/v1)\n$/;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("runMockModelCommand", () => {
  it("prints one line, serves, and closes when the signal aborts", async () => {
    const printed: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    const abort = new AbortController();
    const running = runMockModelCommand({ script: scriptPath, port: 0, signal: abort.signal });
    await vi.waitFor(() => expect(printed).toHaveLength(1));
    const url = LINE.exec(printed[0])![1];
    expect((await fetch(`${url.replace(/\/v1$/, "")}/health`)).status).toBe(200);
    abort.abort();
    await running;
    await expect(fetch(`${url}/models`)).rejects.toThrow();
    expect(printed).toHaveLength(1);
  });

  // fails if SIGTERM is not handled through util/signals.ts: no line, or exit 0 instead of 143.
  it("runs as a process and exits 143 on SIGTERM, saying so on stderr", async () => {
    const tsx = createRequire(import.meta.url).resolve("tsx");
    const command = fileURLToPath(new URL("./command.ts", import.meta.url));
    const code = `const { runMockModelCommand } = await import(${JSON.stringify(command)});
      process.exitCode = await runMockModelCommand({ script: ${JSON.stringify(scriptPath)}, port: 0 });`;
    const child = spawn(process.execPath, ["--import", tsx, "--input-type=module", "-e", code], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    let out = "";
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out);
      });
      child.once("exit", (c) => reject(new Error(`exited early with ${c}`)));
    });
    const url = LINE.exec(line)![1];
    const res = await fetch(`${url}/models`);
    expect(res.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(out).toBe(line);
    expect(err).toBe("tandem mock-model: SIGTERM received, shutting down (send it again to quit at once)\n");
  });

  it("rejects a bad script path with a MockModelScriptError", async () => {
    const err = await startMockModel({ script: join(dir, "missing.json") }).catch((e) => e);
    expect(MockModelScriptError.isInstance(err)).toBe(true);
    expect(err.message).toContain("cannot read script");
  });

  it("rejects a port that is already taken", async () => {
    const first = await startMockModel({ script: { steps: [] } });
    try {
      await expect(startMockModel({ script: { steps: [] }, port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
