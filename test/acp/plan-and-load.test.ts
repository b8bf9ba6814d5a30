/**
 * `tandem acp` with an independent ACP client (the SDK's client side) over stdio: an
 * `update_plan` call sends its `plan` and then ends `completed` (an editor otherwise shows a
 * tool call spinning forever), and a session that was created but never prompted can be loaded.
 */
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { type AcpRun, startAcp } from "../helpers/acp-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

describe("tandem acp: plans and loading fresh sessions", () => {
  let mock: MockProcess | undefined;
  const runs: AcpRun[] = [];
  afterEach(async () => {
    for (const r of runs.splice(0)) await r.close();
    await mock?.stop();
    mock = undefined;
  });

  async function serve(script: Script, home?: string) {
    mock ??= await startMockProcess(script);
    const run = startAcp(mock, [], home);
    runs.push(run);
    await run.initialize();
    return run;
  }

  // Fails if the update_plan tool call never gets a final status.
  it("update_plan sends the plan and its tool call ends completed", async () => {
    const plan = {
      plan: [
        { step: "Read", status: "completed" },
        { step: "Fix", status: "in_progress" },
      ],
    };
    const run = await serve({
      steps: [
        { output: [{ type: "function_call", name: "update_plan", call_id: "plan1", arguments: plan }] },
        { output: [{ type: "message", text: "ok" }] },
      ],
    });
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [],
    });
    await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "plan" }],
    });
    expect(
      run
        .of(sessionId, "plan")
        .at(-1)
        ?.entries.map((e) => e.status),
    ).toEqual(["completed", "in_progress"]);
    const updates = run.of(sessionId, "tool_call_update").filter((u) => u.toolCallId === "plan1");
    expect(updates.at(-1)?.status).toBe("completed");
  });

  // Fails if session/load refuses (-32002) a session created but never prompted.
  it("session/load of a session never prompted loads, in the same process and in a new one", async () => {
    const home = tempDir("tandem-acp-home-");
    const cwd = tempDir("tandem-acp-ws-");
    const run = await serve({ steps: [{ output: [{ type: "message", text: "hello back" }] }] }, home);
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const same = await run.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    expect(same?.modes?.currentModeId).toBe("default");
    await run.close();
    runs.splice(0);

    const again = await serve({ steps: [] }, home);
    const loaded = await again.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd,
      mcpServers: [],
    });
    expect(loaded?.modes?.currentModeId).toBe("default");
    await again.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(again.of(sessionId, "agent_message_chunk").length).toBeGreaterThan(0);
  });
});
