/**
 * `tandem acp` session/fork with the ACP SDK's client over stdio (README "Undo, redo, fork and
 * rewind"): the agent advertises `sessionCapabilities.fork`; forking a prompted session gives a
 * new session whose next prompt carries the source's conversation, while the source is
 * unchanged; an unknown session is -32002.
 */
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpRun, startAcp } from "../helpers/acp-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { requests } from "../helpers/tui-harness.js";

describe("tandem acp: session/fork", () => {
  let mock: MockProcess | undefined;
  const runs: AcpRun[] = [];
  afterEach(async () => {
    for (const r of runs.splice(0)) await r.close();
    await mock?.stop();
    mock = undefined;
  });

  it("forks a session: the fork continues the conversation, the source stays as it was", async () => {
    mock = await startMockProcess(
      {
        steps: [
          { output: [{ type: "message", text: "ORIGINAL-ANSWER" }] },
          {
            expect: { input_contains: ["remember the walrus", "ORIGINAL-ANSWER", "and in the fork?"] },
            output: [{ type: "message", text: "FORK-ANSWER" }],
          },
        ],
      },
      { log: true },
    );
    const run = startAcp(mock);
    runs.push(run);
    const init = await run.initialize();
    expect((init.agentCapabilities as any)?.sessionCapabilities?.fork).toEqual({});
    const cwd = tempDir("tandem-acp-fork-ws-");
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "remember the walrus" }],
    });
    const request = (method: string, params: unknown) => (run.agent as any).request(method, params);
    const forked = await request("session/fork", { sessionId, cwd, mcpServers: [] });
    expect(forked.sessionId).not.toBe(sessionId);
    expect(forked.modes?.currentModeId).toBeDefined();
    await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId: forked.sessionId,
      prompt: [{ type: "text", text: "and in the fork?" }],
    });
    expect(
      run
        .of(forked.sessionId, "agent_message_chunk")
        .map((u: any) => u.content.text)
        .join(""),
    ).toContain("FORK-ANSWER");
    expect(requests(mock.log)).toHaveLength(2);
    // The source did not get the fork's turn.
    expect(
      run
        .of(sessionId, "agent_message_chunk")
        .map((u: any) => u.content.text)
        .join(""),
    ).not.toContain("FORK-ANSWER");
    await expect(
      request("session/fork", { sessionId: "no-such-session", cwd, mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32002,
    });
  });
});
