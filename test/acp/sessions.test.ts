/**
 * `tandem acp` driven by an independent ACP client (the SDK's client side) over stdio: a real agent
 * process, a real scripted model process. Sessions, streamed updates, tool calls with terminal
 * output and diffs, approvals as permission requests, session/load, and malformed input.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/agent/compaction-prompt.js";
import type { Script } from "../../src/mock-model/index.js";
import { type AcpRun, startAcp, textOf } from "../helpers/acp-client.js";
import { modelRequests } from "../helpers/app-server.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING } from "../helpers/mcp.js";
import { waitUntil } from "../helpers/wait.js";

const message = (text: string) => ({ type: "message" as const, text });
const exec = (callId: string, cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: callId,
  arguments: { cmd, yield_time_ms: 2000 },
});

/** The output the model received for a call (first request that carries it). */
function callOutput(mock: MockProcess, callId: string): string {
  for (const body of modelRequests(mock)) {
    const out = body.input.find(
      (i: any) =>
        (i.type === "function_call_output" || i.type === "custom_tool_call_output") && i.call_id === callId,
    );
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return "";
}

describe("tandem acp: sessions over stdio", () => {
  let mock: MockProcess | undefined;
  const runs: AcpRun[] = [];
  afterEach(async () => {
    for (const r of runs.splice(0)) await r.close();
    await mock?.stop();
    mock = undefined;
  });

  async function serve(script: Script, args: string[] = [], home?: string) {
    mock = await startMockProcess(script);
    const run = startAcp(mock, args, home);
    runs.push(run);
    return run;
  }

  // fails if initialize stops advertising loadSession/images, if session/new loses its modes or mode
  // config option, or if streamed deltas are not forwarded as chunks in order (one whole message, or none).
  it("initialize, session/new with modes, and a prompt streamed as message and thought chunks", async () => {
    const run = await serve({
      steps: [
        {
          output: [
            { type: "reasoning", summary: "Think about the greeting first." },
            message("Hello from the scripted model, streamed word by word."),
          ],
        },
      ],
    });
    const init = await run.initialize();
    expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
    });
    expect(init.agentInfo?.name).toBe("tandem");

    const cwd = tempDir("tandem-acp-ws-");
    const created = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    expect(created.modes?.currentModeId).toBe("default");
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual(["default", "plan"]);
    expect(created.configOptions?.[0]).toMatchObject({
      id: "mode",
      category: "mode",
      currentValue: "default",
    });

    const res = await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "Say hello" }],
    });
    expect(res.stopReason).toBe("end_turn");
    const chunks = run.of(created.sessionId, "agent_message_chunk");
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map(textOf).join("")).toBe("Hello from the scripted model, streamed word by word.");
    expect(run.of(created.sessionId, "agent_thought_chunk").map(textOf).join("")).toBe(
      "Think about the greeting first.",
    );
    // The prompt reached the model as the user's message.
    expect(JSON.stringify(modelRequests(mock!)[0].input)).toContain("Say hello");
  });

  // fails if commands are not `execute` tool calls, if live output is not sent as content updates, if
  // "allow once" does not run the command, or "reject" runs it anyway / does not tell the model.
  it("a command asks for permission: allow once runs it with live output, reject does not", async () => {
    const run = await serve(
      {
        steps: [
          { output: [exec("c1", "echo RAN_$((6*7)) > ran.txt && cat ran.txt")] },
          { expect: { input_contains: ["RAN_42"] }, output: [message("ran it")] },
          { output: [exec("c2", "echo NOPE > rejected.txt")] },
          { expect: { input_contains: ["declined"] }, output: [message("ok, skipped")] },
        ],
      },
      ["-c", 'approval_policy="untrusted"'],
    );
    await run.initialize();
    const cwd = tempDir("tandem-acp-ws-");
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });

    const first = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    const ask = await run.permissions.next("permission request");
    expect(ask.params.sessionId).toBe(sessionId);
    expect(ask.params.toolCall).toMatchObject({ toolCallId: "c1", kind: "execute" });
    expect(ask.params.toolCall.title).toContain("echo RAN_");
    expect(ask.params.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_always", "allow_always"],
      ["reject_once", "reject_once"],
      ["reject_always", "reject_always"],
    ]);
    // Nothing ran before the answer.
    expect(existsSync(join(cwd, "ran.txt"))).toBe(false);
    ask.respond({ outcome: { outcome: "selected", optionId: "allow_once" } });
    expect((await first).stopReason).toBe("end_turn");
    expect(readFileSync(join(cwd, "ran.txt"), "utf8")).toBe("RAN_42\n");
    const call = run.of(sessionId, "tool_call").find((u) => u.toolCallId === "c1");
    expect(call).toMatchObject({ kind: "execute", status: "in_progress" });
    const updates = run.of(sessionId, "tool_call_update").filter((u) => u.toolCallId === "c1");
    expect(updates.some((u) => u.status === "in_progress" && textOf(u).includes("RAN_42"))).toBe(true);
    expect(updates.at(-1)).toMatchObject({ status: "completed", rawOutput: { exit_code: 0 } });
    expect(textOf(updates.at(-1)!)).toContain("RAN_42");

    const second = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    const ask2 = await run.permissions.next("second permission request");
    expect(ask2.params.toolCall.toolCallId).toBe("c2");
    ask2.respond({ outcome: { outcome: "selected", optionId: "reject_once" } });
    expect((await second).stopReason).toBe("end_turn");
    expect(existsSync(join(cwd, "rejected.txt"))).toBe(false);
    expect(callOutput(mock!, "c2")).toContain("declined");
    const last = run.of(sessionId, "tool_call_update").filter((u) => u.toolCallId === "c2");
    expect(last.at(-1)?.status).toBe("failed");
  });

  // fails if apply_patch is not an `edit` tool call with its files as locations, or if the applied
  // patch's diff content loses the path, the old text or the new text.
  it("a patch shows diffs and locations", async () => {
    const cwd = tempDir("tandem-acp-ws-");
    writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\ngamma\n");
    const patch = [
      "*** Begin Patch",
      "*** Add File: hello.txt",
      "+hello",
      "+world",
      "*** Update File: notes.txt",
      "@@",
      " alpha",
      "-beta",
      "+BETA",
      " gamma",
      "*** End Patch",
    ].join("\n");
    const run = await serve({
      steps: [
        { output: [{ type: "custom_tool_call", name: "apply_patch", call_id: "p1", input: patch }] },
        { output: [message("patched")] },
      ],
    });
    await run.initialize();
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const res = await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "patch" }],
    });
    expect(res.stopReason).toBe("end_turn");
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    const start = run.of(sessionId, "tool_call").find((u) => u.toolCallId === "p1")!;
    expect(start.kind).toBe("edit");
    expect(start.locations?.map((l) => l.path)).toEqual([join(cwd, "hello.txt"), join(cwd, "notes.txt")]);
    const done = run.of(sessionId, "tool_call_update").find((u) => u.toolCallId === "p1")!;
    expect(done.status).toBe("completed");
    const diffs = (done.content ?? []).filter((c) => c.type === "diff");
    expect(diffs).toContainEqual({
      type: "diff",
      path: join(cwd, "hello.txt"),
      oldText: null,
      newText: "hello\nworld",
    });
    expect(diffs).toContainEqual({
      type: "diff",
      path: join(cwd, "notes.txt"),
      oldText: "alpha\nbeta\ngamma",
      newText: "alpha\nBETA\ngamma",
    });
  });

  // fails if a patch approval is not an `edit` permission request naming the file, if the pending
  // tool call does not show the proposed diff, or if "reject always" (Tandem's cancel) writes the
  // file or does not stop the turn.
  it("a patch approval shows the proposed diff; reject always cancels the turn", async () => {
    const cwd = tempDir("tandem-acp-ws-");
    const patch = "*** Begin Patch\n*** Add File: blocked.txt\n+never written\n*** End Patch";
    const run = await serve(
      {
        steps: [
          { output: [{ type: "custom_tool_call", name: "apply_patch", call_id: "p9", input: patch }] },
          { output: [message("unreachable")] },
        ],
      },
      ["-c", 'sandbox_mode="read-only"'],
    );
    await run.initialize();
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write it" }],
    });
    const ask = await run.permissions.next("patch permission");
    expect(ask.params.toolCall).toMatchObject({ toolCallId: "p9", kind: "edit" });
    expect(ask.params.toolCall.locations?.map((l) => l.path)).toEqual([join(cwd, "blocked.txt")]);
    const start = run.of(sessionId, "tool_call").find((u) => u.toolCallId === "p9");
    expect(start?.content).toContainEqual({
      type: "diff",
      path: join(cwd, "blocked.txt"),
      oldText: null,
      newText: "never written",
    });
    ask.respond({ outcome: { outcome: "selected", optionId: "reject_always" } });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(existsSync(join(cwd, "blocked.txt"))).toBe(false);
    expect(modelRequests(mock!)).toHaveLength(1);
  });

  // fails if session/new's mcpServers are not started for the session (the model's tool call to the
  // client's server fails), or an SSE server is accepted instead of a clear -32602.
  it("the client's MCP servers run for the session", async () => {
    const run = await serve({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "mcp__editor_tools__echo",
              call_id: "m1",
              arguments: { message: "hi from the editor's server" },
            },
          ],
        },
        { expect: { input_contains: ["Echo: hi from the editor's server"] }, output: [message("echoed")] },
      ],
    });
    await run.initialize();
    const init = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [{ name: "editor tools", command: process.execPath, args: [EVERYTHING], env: [] }],
    });
    const res = await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId: init.sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    expect(res.stopReason).toBe("end_turn");
    expect(callOutput(mock!, "m1")).toContain("Echo: hi from the editor's server");
    const names = modelRequests(mock!)[0].tools.map((t: { name: string }) => t.name);
    expect(names).toContain("mcp__editor_tools__echo");
    const call = run.of(init.sessionId, "tool_call_update").filter((u) => u.toolCallId === "m1");
    expect(call.at(-1)?.status).toBe("completed");
    const sse = await run.agent
      .request(acp.methods.agent.session.new, {
        cwd: tempDir("tandem-acp-ws-"),
        mcpServers: [{ type: "sse", name: "old", url: "http://127.0.0.1:1/sse", headers: [] }],
      })
      .then(
        () => undefined,
        (e) => e as acp.RequestError,
      );
    expect(sse?.code).toBe(-32602);
    expect(sse?.message).toContain("SSE servers are not supported");
  });

  // fails if update_plan is not sent as a `plan` update with the steps and statuses, or if
  // session/load does not replay a stored thread (user and agent messages, tool calls with their
  // final status) from another process.
  it("plan entries, then session/load replays the stored thread in a new process", async () => {
    const home = tempDir("tandem-acp-home-");
    const cwd = tempDir("tandem-acp-ws-");
    const plan = {
      type: "function_call" as const,
      name: "update_plan",
      call_id: "plan1",
      arguments: {
        plan: [
          { step: "Read the code", status: "completed" },
          { step: "Write the fix", status: "in_progress" },
        ],
      },
    };
    const run = await serve(
      {
        steps: [{ output: [plan, exec("c1", "echo LISTED")] }, { output: [message("All done here.")] }],
      },
      [],
      home,
    );
    await run.initialize();
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "make a plan" }],
    });
    expect(run.of(sessionId, "plan").at(-1)?.entries).toEqual([
      { content: "Read the code", status: "completed", priority: "medium" },
      { content: "Write the fix", status: "in_progress", priority: "medium" },
    ]);
    await run.close();
    runs.splice(0);

    const again = startAcp(mock!, [], home);
    runs.push(again);
    await again.initialize();
    const loaded = await again.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd,
      mcpServers: [],
    });
    expect(loaded?.modes?.currentModeId).toBe("default");
    const replay = again.of(sessionId);
    const kinds = replay.map((u) => u.sessionUpdate);
    expect(kinds[0]).toBe("user_message_chunk");
    expect(textOf(replay[0])).toBe("make a plan");
    const cmd = again.of(sessionId, "tool_call").find((u) => u.toolCallId === "c1");
    expect(cmd).toMatchObject({ kind: "execute", status: "completed", title: "echo LISTED" });
    expect(textOf(cmd!)).toContain("LISTED");
    expect(
      again
        .of(sessionId, "plan")
        .at(-1)
        ?.entries.map((e) => e.content),
    ).toEqual(["Read the code", "Write the fix"]);
    expect(again.of(sessionId, "agent_message_chunk").map(textOf).join("")).toBe("All done here.");
    // The replay came before the load's response: nothing arrived for this session after it.
    expect(again.updates.length).toBe(replay.length);
  });

  // fails if a context overflow is not the `max_tokens` stop reason, or another failure resolves as
  // if the turn had ended normally instead of an error naming what failed.
  it("failed turns: max_tokens for a context overflow, a JSON-RPC error naming any other failure", async () => {
    const run = await serve({
      steps: [
        // An overflow compacts once and retries (README "Long sessions"); the second one fails the turn.
        { fault: { type: "failed", code: "context_length_exceeded" } },
        { fault: { type: "failed", code: "context_length_exceeded" } },
        { fault: { type: "http", status: 400, message: "the scripted model refuses this request" } },
        { output: [message("fine again")] },
      ],
    });
    await run.initialize();
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [],
    });
    const send = (text: string) =>
      run.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    expect((await send("one")).stopReason).toBe("max_tokens");
    const failure = await send("two").then(
      () => undefined,
      (e) => e as acp.RequestError,
    );
    expect(failure?.code).toBe(-32603);
    expect(failure?.message).toContain("the scripted model refuses this request");
    expect((await send("three")).stopReason).toBe("end_turn");
  });

  // fails if an unknown session id is not -32002 naming it, if a second prompt during a running one
  // is accepted (or breaks the first), or if a bad cwd / unknown mode is not a clear -32602.
  it("malformed input gets clear errors and the agent keeps serving", async () => {
    // The first prompt's turn runs a command that waits for `gate`: it is running, for sure, until
    // the test creates the file (no race against a delay).
    const gate = join(tempDir("tandem-acp-gate-"), "go");
    const waitForGate = `while [ ! -e ${gate} ]; do sleep 0.05; done; echo gate-open`;
    const run = await serve({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              call_id: "gate1",
              arguments: { cmd: waitForGate },
            },
          ],
        },
        { output: [message("slow answer")] },
        { output: [message("still here")] },
      ],
    });
    await run.initialize();
    const err = (p: Promise<unknown>) =>
      p.then(
        () => {
          throw new Error("expected an error");
        },
        (e) => e as acp.RequestError,
      );
    const unknown = await err(
      run.agent.request(acp.methods.agent.session.prompt, {
        sessionId: "nope",
        prompt: [{ type: "text", text: "hi" }],
      }),
    );
    expect(unknown.code).toBe(-32002);
    expect(unknown.data).toMatchObject({ sessionId: "nope" });
    const relative = await err(
      run.agent.request(acp.methods.agent.session.new, { cwd: "rel/dir", mcpServers: [] }),
    );
    expect(relative.code).toBe(-32602);
    expect(relative.message).toContain("absolute");

    const cwd = tempDir("tandem-acp-ws-");
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const badMode = await err(
      run.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" }),
    );
    expect(badMode.code).toBe(-32602);
    expect(badMode.message).toContain("default, plan");
    // The mode config option moves the mode like session/set_mode (and says so).
    const set = await run.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "mode",
      value: "plan",
    });
    expect(set.configOptions[0]).toMatchObject({ id: "mode", currentValue: "plan" });
    expect(run.of(sessionId, "current_mode_update").at(-1)?.currentModeId).toBe("plan");
    const badOption = await err(
      run.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "speed",
        value: "x",
      }),
    );
    expect(badOption.code).toBe(-32602);
    expect(badOption.message).toContain('unknown config option "speed"');

    const first = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "first" }],
    });
    await waitUntil(
      () => run.of(sessionId, "tool_call").some((u) => u.toolCallId === "gate1"),
      "the first prompt's command to run",
    );
    const busy = await err(
      run.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "second" }],
      }),
    );
    expect(busy.code).toBe(-32600);
    expect(busy.message).toContain("already running a prompt");
    writeFileSync(gate, "");
    expect((await first).stopReason).toBe("end_turn");
    const next = await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "third" }],
    });
    expect(next.stopReason).toBe("end_turn");
    // The refused prompt never reached the model.
    expect(JSON.stringify(modelRequests(mock!))).not.toContain('"second"');
  });

  // fails if the session does not advertise /compact, a "/compact" prompt reaches the model as a
  // user message instead of compacting, the client is not told it happened, or the next prompt
  // is not sent from the compacted view (summary first, the user's words kept).
  it("/compact as a prompt compacts the session's context (advertised as a slash command)", async () => {
    const run = await serve({ steps: [{ output: [message("noted")] }, { output: [message("blue")] }] });
    await run.initialize();
    const cwd = tempDir("tandem-acp-ws-");
    const created = await run.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const sessionId = created.sessionId;
    const prompt = (text: string) =>
      run.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    expect((await prompt("remember: blue")).stopReason).toBe("end_turn");
    const commands = run.of(sessionId, "available_commands_update").at(-1);
    expect(commands?.availableCommands.map((c) => c.name)).toContain("compact");
    expect((await prompt("/compact")).stopReason).toBe("end_turn");
    const said = run
      .of(sessionId, "agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""))
      .join("");
    expect(said).toMatch(/Compacted the conversation: ~\d+ → ~\d+ tokens/);
    expect((await prompt("what color?")).stopReason).toBe("end_turn");
    const requests = modelRequests(mock!);
    expect(JSON.stringify(requests)).not.toContain('"/compact"');
    const last = JSON.stringify(requests.at(-1).input);
    expect(last).toContain(SUMMARY_MARKER);
    expect(last).toContain("remember: blue");
    // Loaded again, the summary shows as a compaction line, not as something the user typed.
    const before = run.updates.length;
    await run.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    const replay = JSON.stringify(run.updates.slice(before));
    expect(replay).toContain("Compacted the conversation");
    expect(replay).not.toContain(SUMMARY_MARKER);
    expect(replay).toContain("remember: blue");
  });
});
