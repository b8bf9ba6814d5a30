/**
 * app-server `hooks/list` reports the hooks that apply (README "Hooks") in Codex's shape: every
 * message is validated against Codex's schema by the test client.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";

describe("app-server hooks/list", () => {
  let served: Served | undefined;
  let mock: MockProcess | undefined;
  afterEach(async () => {
    if (served) {
      expect(served.client.violations).toEqual([]);
      expect(await served.close()).toBe(0);
    }
    await mock?.stop();
    served = undefined;
    mock = undefined;
  });

  it("lists user and project hooks with source, trust status and hash", async () => {
    mock = await startMockProcess({ steps: [] });
    const home = tempDir("tandem-home-");
    writeFileSync(
      join(home, "hooks.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "/bin/true", timeout: 7 }] }],
          Notification: [{ hooks: [{ type: "command", command: "/bin/true" }] }],
        },
      }),
    );
    const cwd = tempDir("tandem-cwd-");
    mkdirSync(join(cwd, ".claude"));
    writeFileSync(
      join(cwd, ".claude/settings.json"),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "echo stop" }] }] } }),
    );
    sandboxFallback(home);
    served = inProcessStdio(serverEnv(mock, home));
    await served.client.initialize({});
    const [entry] = (await served.client.request("hooks/list", { cwds: [cwd] })).data;
    expect(entry.cwd).toBe(cwd);
    expect(entry.errors).toEqual([]);
    expect(entry.hooks).toEqual([
      expect.objectContaining({
        eventName: "preToolUse",
        handlerType: "command",
        command: "/bin/true",
        matcher: "Bash",
        timeoutSec: 7,
        source: "user",
        sourcePath: join(home, "hooks.json"),
        trustStatus: "trusted",
        enabled: true,
      }),
      expect.objectContaining({
        eventName: "stop",
        command: "echo stop",
        source: "project",
        sourcePath: join(cwd, ".claude/settings.json"),
        trustStatus: "untrusted",
        enabled: false,
        currentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(entry.warnings.join("\n")).toMatch(/1 Notification hook\(s\) not listed/);
  });

  // Fails if app-server drops hook.warning events (a Codex client's user would never learn that a
  // hook failed) or sends them in a shape Codex's schema refuses (the client checks every message).
  it("a failing hook reaches the client as Codex's warning notification", async () => {
    const dir = outsideDir("tandem-as-hook-");
    const hook = join(dir, "broken.sh");
    writeFileSync(hook, "#!/bin/sh\nexit 3\n");
    chmodSync(hook, 0o755);
    mock = await startMockProcess({ steps: [{ output: [{ type: "message", text: "answered" }] }] });
    const home = tempDir("tandem-home-");
    writeFileSync(
      join(home, "hooks.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] } }),
    );
    sandboxFallback(home);
    served = inProcessStdio(serverEnv(mock, home));
    await served.client.initialize({});
    const started = await served.client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
    const threadId: string = started.thread.id;
    await served.client.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    const warning = await served.client.notification("warning", (p) => p.threadId === threadId);
    expect(warning.message).toMatch(/^hook: hook `[^`]*broken\.sh` \(UserPromptSubmit\)/);
    await served.client.notification("turn/completed", (p) => p.threadId === threadId);
  });
});
