/**
 * A user hook's warning over `tandem acp` (README "Hooks"): a real agent process, a real scripted
 * model and the SDK's client side as the editor.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpRun, startAcp, textOf } from "../helpers/acp-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";

describe("tandem acp: hook.warning", () => {
  let mock: MockProcess | undefined;
  let run: AcpRun | undefined;
  afterEach(async () => {
    await run?.close();
    await mock?.stop();
    mock = run = undefined;
  });

  // Fails if the ACP surface drops hook.warning events: the editor's user would never learn that
  // their UserPromptSubmit hook failed.
  it("a failing hook shows as a line of the agent's message", async () => {
    const dir = outsideDir("tandem-acp-hook-");
    const hook = join(dir, "broken.sh");
    writeFileSync(hook, "#!/bin/sh\necho 'broken on purpose' >&2\nexit 3\n");
    chmodSync(hook, 0o755);
    const home = tempDir("tandem-acp-home-");
    writeFileSync(
      join(home, "hooks.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] } }),
    );
    mock = await startMockProcess({ steps: [{ output: [{ type: "message", text: "answered" }] }] });
    run = startAcp(mock, [], home);
    await run.initialize();
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [],
    });
    const res = await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(res.stopReason).toBe("end_turn");
    const text = run.of(sessionId, "agent_message_chunk").map(textOf).join("");
    expect(text).toMatch(/^Hook: hook `[^`]*broken\.sh` \(UserPromptSubmit\)[^\n]*\n/);
    expect(text).toContain("answered");
  });
});
