/**
 * Chat Completions providers (requirements L11): the same task over `/v1/chat/completions`, items
 * translated to messages and back. `tandem exec` process against `tandem mock-model`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

describe("chat completions wire", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
  });

  it("runs the seed task through a chat provider from config", async () => {
    mock = await startMockProcess(Scripts.readmeDemo());
    const cwd = tempDir();
    const r = await runTandem(
      [
        "exec",
        "--json",
        "--cd",
        cwd,
        "-c",
        'model_provider="local"',
        "-c",
        `model_providers.local={ base_url = "${mock.url}", env_key = "LOCAL_KEY", wire = "chat" }`,
        "请创建 README.md，内容如下：\n\n# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。",
      ],
      { env: { TANDEM_HOME: tempDir(), LOCAL_KEY: "local" } },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(
      events.filter((e) => e.type === "item.completed" && e.item.type === "command_execution"),
    ).toHaveLength(3);
    expect(readFileSync(join(cwd, "README.md"), "utf8")).toContain("# Codex Demo");
    const bodies = jsonLines(readFileSync(mock.log, "utf8"));
    expect(bodies).toHaveLength(4);
    const last = bodies[3];
    expect(last.messages[0].role).toBe("system");
    const tools = last.messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id);
    expect(tools).toEqual(["call_001", "call_002", "call_003"]);
    const asst = last.messages.filter((m: any) => m.role === "assistant" && m.tool_calls);
    expect(asst.map((m: any) => m.tool_calls[0].id)).toEqual(["call_001", "call_002", "call_003"]);
    expect(last.tools[0].function.name).toBe("exec_command");
  });

  it("times out an idle chat stream and retries it", async () => {
    mock = await startMockProcess({
      steps: [{ fault: { type: "hang" } }, { output: [{ type: "message", text: "hello after the hang" }] }],
    });
    const r = await runTandem(
      [
        "exec",
        "-c",
        'model_provider="local"',
        "-c",
        `model_providers.local={ base_url = "${mock.url}", env_key = "LOCAL_KEY", wire = "chat" }`,
        "-c",
        "stream_idle_timeout_ms=300",
        "hi",
      ],
      { env: { TANDEM_HOME: tempDir(), LOCAL_KEY: "local" } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("hello after the hang\n");
    expect(r.stderr).toMatch(/stream idle for 300 ms; retrying in \d+ ms/);
  });
});
