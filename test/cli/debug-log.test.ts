/**
 * The debug log (README "Debugging") through the real CLI: `TANDEM_LOG=trace ./bin/tandem exec`
 * against `tandem mock-model` (both real processes) writes the full wire of a turn to a private file
 * under $TANDEM_HOME/log; `--log-file` picks the file (debug level on its own); `log_level` in
 * config.toml turns it on; a bad TANDEM_LOG warns and the run goes on; a bad --log-file exits 2.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const MARK = "tool-output-5d1c";
const script = {
  steps: [
    {
      output: [
        {
          type: "function_call",
          name: "exec_command",
          call_id: "call_echo",
          arguments: { cmd: `echo ${MARK}` },
        },
      ],
    },
    { output: [{ type: "message", text: "Echoed it." }] },
  ],
};

/** The records of a log file. */
function records(file: string): any[] {
  return jsonLines(readFileSync(file, "utf8"));
}

function onlyLog(home: string): string {
  const files = readdirSync(join(home, "log"));
  expect(files).toHaveLength(1);
  return join(home, "log", files[0]);
}

describe("debug log through the CLI", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  const env = (home: string, extra: Record<string, string> = {}) => ({
    TANDEM_HOME: home,
    OPENAI_API_KEY: "sk-cli-test-key-91ab",
    OPENAI_BASE_URL: mock!.url,
    ...extra,
  });
  const exec = (home: string, extra: Record<string, string> = {}, flags: string[] = []) =>
    runTandem(["exec", "-s", "danger-full-access", ...flags, "echo the mark"], {
      env: env(home, extra),
      killAfterMs: 30_000,
    });

  it("TANDEM_LOG=trace exec: request bodies, response events, the tool call and its output, in a 0600 file of a 0700 dir", async () => {
    mock = await startMockProcess(script);
    const home = tempDir("tandem-log-home-");
    const r = await exec(home, { TANDEM_LOG: "trace" });
    expect(r.code, r.stderr).toBe(0);
    const file = onlyLog(home);
    expect(file).toMatch(/\/log\/tandem-\d{8}T\d{6}Z-\d+\.log$/);
    expect(r.stderr).toContain(`tandem exec: writing a trace log to ${file} (secrets masked)`);
    expect(statSync(join(home, "log")).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const recs = records(file);
    const requests = recs.filter((x) => x.area === "model" && x.msg === "request");
    expect(requests).toHaveLength(2);
    expect(requests[0].url).toBe(`${mock.url}/responses`);
    expect(JSON.stringify(requests[0].body.input)).toContain("echo the mark");
    // The tool's output went back to the model in the second body.
    const output = requests[1].body.input.find((i: any) => i.type === "function_call_output");
    expect(output).toMatchObject({ call_id: "call_echo" });
    expect(output.output).toContain(MARK);
    // Each response: status, then every SSE event, the function call among them.
    expect(recs.filter((x) => x.msg === "response").map((x) => x.status)).toEqual([200, 200]);
    const events = recs.filter((x) => x.msg === "stream event").map((x) => x.event);
    const call = events.find(
      (e) => e.type === "response.output_item.done" && e.item.type === "function_call",
    );
    expect(call.item).toMatchObject({ name: "exec_command", call_id: "call_echo" });
    expect(events.some((e) => e.type === "response.output_text.delta")).toBe(true);
    expect(events.filter((e) => e.type === "response.completed")).toHaveLength(2);
    // The call's life cycle, with its output at trace.
    const tool = recs.filter((x) => x.area === "tool");
    expect(tool.map((x) => [x.msg, x.call_id, x.name])).toEqual([
      ["call started", "call_echo", "exec_command"],
      ["call finished", "call_echo", "exec_command"],
    ]);
    expect(tool[1].status).toBe("completed");
    expect(tool[1].output).toContain(MARK);
    const ended = recs.filter((x) => x.msg === "stream ended");
    expect(ended.map((x) => x.outcome)).toEqual(["completed", "completed"]);
    expect(typeof ended[0].ms).toBe("number");
    // The API key is never written, not even inside the authorization header it travels in.
    expect(readFileSync(file, "utf8")).not.toContain("sk-cli-test-key-91ab");
  });

  it("--log-file alone writes debug records (no bodies) to that file and nothing under the home", async () => {
    mock = await startMockProcess(script);
    const home = tempDir("tandem-log-home-");
    const file = join(tempDir("tandem-log-file-"), "run.log");
    const r = await exec(home, {}, ["--log-file", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(home, "log"))).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const recs = records(file);
    expect(recs[0]).toMatchObject({ area: "log", msg: "started", surface: "exec", log_level: "debug" });
    expect(recs.every((x) => x.level === "debug")).toBe(true);
    const requests = recs.filter((x) => x.msg === "request");
    expect(requests).toHaveLength(2);
    expect(requests[0].body).toBeUndefined();
    expect(requests[0].bytes).toBeGreaterThan(100);
    expect(recs.some((x) => x.msg === "stream event")).toBe(false);
  });

  it("log_level in config.toml turns it on in the default place", async () => {
    mock = await startMockProcess(script);
    const home = tempDir("tandem-log-home-");
    writeFileSync(join(home, "config.toml"), 'log_level = "debug"\n');
    const r = await exec(home);
    expect(r.code, r.stderr).toBe(0);
    const recs = records(onlyLog(home));
    expect(recs.filter((x) => x.msg === "stream ended")).toHaveLength(2);
  });

  it("a TANDEM_LOG that is not a level is a warning; the run goes on and nothing is logged", async () => {
    mock = await startMockProcess(script);
    const home = tempDir("tandem-log-home-");
    const r = await exec(home, { TANDEM_LOG: "verbose" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'tandem exec: ignoring TANDEM_LOG="verbose": not a log level (use debug, trace or off)',
    );
    expect(r.stdout).toContain("Echoed it.");
    expect(existsSync(join(home, "log"))).toBe(false);
  });

  it("a --log-file that cannot be opened exits 2 before anything runs, saying which", async () => {
    mock = await startMockProcess(script);
    const home = tempDir("tandem-log-home-");
    const file = join(tempDir("tandem-log-file-"), "missing-dir", "x.log");
    const r = await exec(home, {}, ["--log-file", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tandem: --log-file ${file}: cannot open it for writing (ENOENT)\n`);
    expect(existsSync(mock.log), "the model got a request").toBe(false);
  });

  it("tandem mock-model --log-file: each request it served, with the step it played", async () => {
    const file = join(tempDir("tandem-log-file-"), "mock.log");
    const cwd = tempDir("tandem-mock-cwd-");
    const scriptFile = join(cwd, "s.json");
    writeFileSync(scriptFile, JSON.stringify(script));
    const { spawn } = await import("node:child_process");
    const { BIN } = await import("../helpers/cli.js");
    const proc = spawn(BIN, ["mock-model", "--script", scriptFile, "--log-file", file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((res, rej) => {
        proc.stdout.on("data", (d) => {
          const m = /listening on (\S+)/.exec(String(d));
          if (m) res(m[1]);
        });
        proc.once("exit", (code) => rej(new Error(`mock-model exited ${code}`)));
      });
      mock = { url, log: join(cwd, "none"), proc, stop: async () => {} };
      const r = await exec(tempDir("tandem-log-home-"));
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await new Promise<void>((res) => {
        proc.once("exit", () => res());
        proc.kill("SIGTERM");
      });
      mock = undefined;
    }
    const recs = records(file);
    expect(recs.filter((x) => x.msg === "step").map((x) => x.step)).toEqual([1, 2]);
    const http = recs.filter((x) => x.msg === "http");
    expect(http.map((x) => [x.method, x.path, x.status])).toEqual([
      ["POST", "/v1/responses", 200],
      ["POST", "/v1/responses", 200],
    ]);
    expect(typeof http[0].ms).toBe("number");
  });
});
