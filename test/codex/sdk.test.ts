/**
 * The unmodified `@openai/codex-sdk` drives `./bin/tandem` through `codexPathOverride`,
 * with `baseUrl` pointing at the scripted model (a real process): S2 compatibility.
 */
import { Codex } from "@openai/codex-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { BIN, type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";

describe("@openai/codex-sdk drives tandem", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
  });

  it("thread.run() returns the final message, three command items and usage; resumeThread continues", async () => {
    const demo = Scripts.readmeDemo();
    mock = await startMockProcess({
      steps: [
        ...demo.steps,
        {
          expect: { input_contains: ["README.md 已创建并完成验证", "now summarise"] },
          output: [{ type: "message", text: "Summary: one file created." }],
        },
      ],
    });
    const home = tempDir();
    sandboxFallback(home);
    const codex = new Codex({
      codexPathOverride: BIN,
      baseUrl: mock.url,
      apiKey: "sdk-key",
      env: { PATH: process.env.PATH ?? "", TANDEM_HOME: home, HOME: home },
    });
    const cwd = tempDir();
    const thread = codex.startThread({
      workingDirectory: cwd,
      skipGitRepoCheck: true,
      model: "gpt-5.2-codex",
    });
    const turn = await thread.run(
      "请创建 README.md，内容如下：\n\n# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。",
    );
    expect(turn.finalResponse).toBe("README.md 已创建并完成验证，内容符合你给出的标题和中文说明。");
    const commands = turn.items.filter((i) => i.type === "command_execution");
    expect(commands).toHaveLength(3);
    expect(commands.every((c) => c.type === "command_execution" && c.exit_code === 0)).toBe(true);
    expect(turn.usage?.input_tokens).toBeGreaterThan(0);
    expect(turn.usage).toHaveProperty("cached_input_tokens");
    expect(turn.usage).toHaveProperty("output_tokens");
    expect(thread.id).toBeTruthy();

    const resumed = codex.resumeThread(thread.id!, { workingDirectory: cwd, skipGitRepoCheck: true });
    const second = await resumed.run("now summarise");
    expect(second.finalResponse).toBe("Summary: one file created.");
    expect(resumed.id).toBe(thread.id);
  });
});
