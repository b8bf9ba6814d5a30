/**
 * Codex `thread/shellCommand` on Tandem's app server (README "Your own commands: `!`"): a real
 * app server (in-process stdio, every frame validated against the Codex schema by the test
 * client) against `tandem mock-model`. The command runs, streams as a commandExecution item,
 * shows in `thread/read`, and the next model request carries it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";

describe("tandem app-server: thread/shellCommand", () => {
  const served: Served[] = [];
  let mock: MockProcess | undefined;
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      expect(await s.close()).toBe(0);
    }
    await mock?.stop();
    mock = undefined;
  });

  it("runs the user's command: streamed, in thread/read, and in the next model request", async () => {
    mock = await startMockProcess(
      {
        steps: [
          {
            expect: { input_contains: ["<user_shell_command>", "APP_SERVER_LISTED.txt", "Exit code: 0"] },
            output: [{ type: "message", text: "Seen it." }],
          },
        ],
      },
      { log: true },
    );
    const home = tempDir("tandem-home-");
    sandboxFallback(home);
    const cwd = tempDir("tandem-shell-cwd-");
    writeFileSync(join(cwd, "APP_SERVER_LISTED.txt"), "x");
    const s = inProcessStdio({ TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url });
    served.push(s);
    const client = s.client;
    await client.initialize();
    const { thread } = await client.request("thread/start", { cwd });
    expect(await client.request("thread/shellCommand", { threadId: thread.id, command: "ls" })).toEqual({});
    const done = await client.notification(
      "item/completed",
      (p) => p.threadId === thread.id && p.item.type === "commandExecution",
    );
    expect(done.item.aggregatedOutput).toContain("APP_SERVER_LISTED.txt");
    expect(done.item.exitCode).toBe(0);
    await client.notification("turn/completed", (p) => p.threadId === thread.id);

    const read = await client.request("thread/read", { threadId: thread.id, includeTurns: true });
    const items = read.thread.turns.flatMap((t: any) => t.items);
    const cmd = items.find((i: any) => i.type === "commandExecution");
    expect(cmd).toMatchObject({ command: "ls", exitCode: 0, status: "completed" });
    expect(cmd.aggregatedOutput).toContain("APP_SERVER_LISTED.txt");
    expect(items.some((i: any) => i.type === "userMessage")).toBe(false);

    await client.request("turn/start", { threadId: thread.id, input: [{ type: "text", text: "what now?" }] });
    const msg = await client.notification("item/completed", (p) => p.item.type === "agentMessage");
    expect(msg.item.text).toBe("Seen it.");
  });
});
