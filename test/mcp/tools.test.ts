/**
 * MCP servers' tools through a real Runtime and the scripted model over HTTP (README "MCP servers"):
 * server-everything over stdio and streamable HTTP, server-filesystem limited to the workspace
 * by roots, and a hand-written odd server that exits, hangs or answers garbage.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { type Harness, tempDir } from "../helpers/index.js";
import {
  EVERYTHING,
  everythingHttp,
  FILESYSTEM,
  mcpHarness,
  ODD,
  outputSent,
  serverPids,
  stdio,
} from "../helpers/mcp.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const call = (name: string, args: unknown, call_id: string) => ({
  output: [{ type: "function_call" as const, name, arguments: args as Record<string, unknown>, call_id }],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

async function runTurn(h: Harness) {
  const thread = h.runtime.threads.start({ cwd: h.cwd });
  return { thread, outcome: await thread.startTurn("go").done };
}

const statuses = (h: Harness) =>
  h.events.map((s) => s.event).filter((e): e is EventOf<"mcp.status"> => e.type === "mcp.status");

describe("MCP tools (server-everything over stdio)", () => {
  // Fails if MCP tools are not registered under mcp__<server>__<tool> with the server's schema,
  // a text result does not reach the model's next request, the server is reported more than
  // once, or closing the thread leaves its server running.
  it("echo and get-sum: the model sees the tools with their schemas and the results", async () => {
    h = await mcpHarness(
      { everything: stdio(EVERYTHING) },
      {
        steps: [
          call("mcp__everything__echo", { message: "hello mcp" }, "c1"),
          call("mcp__everything__get-sum", { a: 19, b: 23 }, "c2"),
          say("done"),
        ],
      },
    );
    const { thread, outcome } = await runTurn(h);
    expect(outcome.status).toBe("completed");
    const tools = (h.model.requests[0] as { tools: Array<{ name: string; parameters: any }> }).tools;
    const echo = tools.find((t) => t.name === "mcp__everything__echo");
    expect(echo?.parameters.properties.message.type).toBe("string");
    expect(outputSent(h, "c1")).toBe("Echo: hello mcp");
    expect(String(outputSent(h, "c2"))).toContain("42");
    const st = statuses(h);
    expect(st).toHaveLength(1);
    expect(st[0]).toMatchObject({ server: "everything", status: "ready" });
    expect(st[0].tools).toBeGreaterThan(5);
    // Closing the thread closes its server (fails if disposeTools forgets the MCP connections).
    expect(serverPids(EVERYTHING)).toHaveLength(1);
    await thread.close();
    expect(serverPids(EVERYTHING)).toEqual([]);
  });

  // Fails if an image result is flattened to text: the model must get an input_image part.
  it("get-tiny-image: the image reaches the model as an input_image", async () => {
    h = await mcpHarness(
      { everything: stdio(EVERYTHING) },
      {
        steps: [call("mcp__everything__get-tiny-image", {}, "img"), say("a logo")],
      },
    );
    await runTurn(h);
    const out = outputSent(h, "img") as Array<{ type: string; image_url?: string; text?: string }>;
    expect(Array.isArray(out)).toBe(true);
    const image = out.find((p) => p.type === "input_image");
    expect(image?.image_url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(out.some((p) => p.type === "input_text" && /image you requested/.test(p.text ?? ""))).toBe(true);
  });

  // Fails if interrupt does not abort the MCP call (the turn would wait 30 s) or breaks the
  // connection (the next turn's echo would fail), or if closing leaves the server running.
  it("a long-running tool is interrupted; the server keeps serving; shutdown leaves no process", async () => {
    h = await mcpHarness(
      { everything: stdio(EVERYTHING) },
      {
        steps: [
          call("mcp__everything__trigger-long-running-operation", { duration: 30, steps: 30 }, "long"),
          call("mcp__everything__echo", { message: "still here" }, "after"),
          say("ok"),
        ],
      },
    );
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    const turn = thread.startTurn("go");
    await h.waitFor((e) => e.type === "item.started" && e.item.id === "long");
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    thread.interrupt();
    expect((await turn.done).status).toBe("interrupted");
    expect(Date.now() - t0).toBeLessThan(3000);
    expect((await thread.startTurn("again").done).status).toBe("completed");
    expect(outputSent(h, "after")).toBe("Echo: still here");
    expect(serverPids(EVERYTHING)).toHaveLength(1);
    await h.close();
    h = undefined;
    expect(serverPids(EVERYTHING)).toEqual([]);
  });

  // Fails if tool_timeout_sec is not enforced (the call would run its 20 s).
  it("tool_timeout_sec ends a slow call with an error output the model sees", async () => {
    h = await mcpHarness(
      { everything: { ...stdio(EVERYTHING), tool_timeout_sec: 1 } },
      {
        steps: [
          call("mcp__everything__trigger-long-running-operation", { duration: 20, steps: 20 }, "slow"),
          say("ok"),
        ],
      },
    );
    const t0 = Date.now();
    const { outcome } = await runTurn(h);
    expect(outcome.status).toBe("completed");
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(String(outputSent(h, "slow"))).toContain("timed out after 1 s (tool_timeout_sec)");
  });

  // Fails if `untrusted` runs a tool without readOnlyHint unasked, or asks for a read-only one.
  it("untrusted: a tool without readOnlyHint asks first; decline reaches the model", async () => {
    h = await mcpHarness(
      { everything: stdio(EVERYTHING) },
      {
        steps: [
          call("mcp__everything__echo", { message: "read-only" }, "ro"),
          call("mcp__everything__toggle-simulated-logging", {}, "rw"),
          say("ok"),
        ],
      },
      ['approval_policy="untrusted"'],
    );
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const asked = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(asked.request.call_id).toBe("rw");
    expect(asked.request.approval?.command).toBe("mcp__everything__toggle-simulated-logging {}");
    h.runtime.questions.reply(
      thread.id,
      asked.request.request_id,
      { answers: { decision: { selected: ["Decline"] } } },
      {
        kind: "test",
      },
    );
    expect((await turn.done).status).toBe("completed");
    expect(outputSent(h, "ro")).toBe("Echo: read-only");
    expect(String(outputSent(h, "rw"))).toContain("declined");
    expect(h.events.filter((s) => s.event.type === "question.requested")).toHaveLength(1);
  });
});

describe("MCP tools (other servers and transports)", () => {
  // Fails if the streamable HTTP transport is not wired (the tool would be unknown).
  it("server-everything over streamable HTTP: echo works", async () => {
    const server = await everythingHttp();
    try {
      h = await mcpHarness(
        { web: { url: server.url } },
        {
          steps: [call("mcp__web__echo", { message: "over http" }, "h1"), say("ok")],
        },
      );
      await runTurn(h);
      expect(outputSent(h, "h1")).toBe("Echo: over http");
      expect(statuses(h)).toMatchObject([{ server: "web", status: "ready" }]);
    } finally {
      await h?.close();
      h = undefined;
      await server.stop();
    }
  });

  // Fails if roots are not declared or are not the thread's workspace: server-filesystem started
  // without directories takes its allowed directories from the client's roots.
  it("server-filesystem limited to the workspace by roots: inside reads, outside refused", async () => {
    const outside = tempDir("tandem-outside-");
    writeFileSync(join(outside, "secret.txt"), "outside secret");
    const cwd = tempDir("tandem-cwd-");
    writeFileSync(join(cwd, "notes.txt"), "inside notes");
    h = await mcpHarness(
      { fs: stdio(FILESYSTEM) },
      {
        steps: [
          call("mcp__fs__read_text_file", { path: join(cwd, "notes.txt") }, "in"),
          call("mcp__fs__read_text_file", { path: join(outside, "secret.txt") }, "out"),
          say("ok"),
        ],
      },
      [],
      cwd,
    );
    await runTurn(h);
    expect(String(outputSent(h, "in"))).toContain("inside notes");
    const out = String(outputSent(h, "out"));
    expect(out).not.toContain("outside secret");
    expect(out).toMatch(/denied|outside allowed/i);
  });

  // Fails if a server that exits, hangs or answers garbage crashes the turn, hangs it past the
  // startup timeout, or is reported more than once; or if a bad line does not fail its call.
  it("a server that exits, one that hangs and one that answers garbage leave the turn working", async () => {
    h = await mcpHarness(
      {
        gone: stdio(ODD, "exit"),
        stuck: { ...stdio(ODD, "hang"), startup_timeout_sec: 1 },
        odd: stdio(ODD, "malformed"),
        everything: stdio(EVERYTHING),
      },
      {
        steps: [
          call("mcp__odd__garbage", {}, "g"),
          call("mcp__odd__noise", {}, "n"),
          call("mcp__odd__sample", {}, "s"),
          call("mcp__stuck__anything", {}, "u"),
          call("mcp__everything__echo", { message: "fine" }, "e"),
          say("survived"),
        ],
      },
    );
    const t0 = Date.now();
    const { outcome } = await runTurn(h);
    expect(outcome.status).toBe("completed");
    expect(outcome.lastMessage).toBe("survived");
    expect(Date.now() - t0).toBeLessThan(6000);
    const st = statuses(h);
    expect(st.map((e) => `${e.server}:${e.status}`).sort()).toEqual([
      "everything:ready",
      "gone:failed",
      "odd:ready",
      "stuck:failed",
    ]);
    expect(st.find((e) => e.server === "gone")?.error).toContain("cannot open its database");
    expect(st.find((e) => e.server === "stuck")?.error).toContain("did not start within 1 s");
    const tools = (h.model.requests[0] as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools.some((n) => n.startsWith("mcp__gone__") || n.startsWith("mcp__stuck__"))).toBe(false);
    expect(String(outputSent(h, "g"))).toContain('MCP server "odd" failed the call of garbage');
    // A line that is not JSON fails the call waiting on it (test/mcp/hostile-server.test.ts); the
    // calls after it are read normally.
    expect(String(outputSent(h, "n"))).toContain('MCP server "odd" failed the call of noise');
    expect(String(outputSent(h, "n"))).toContain('not JSON ("this line is not JSON")');
    expect(String(outputSent(h, "s"))).toContain("Tandem refuses sampling/createMessage");
    expect(String(outputSent(h, "u"))).toContain('unknown tool "mcp__stuck__anything"');
    expect(outputSent(h, "e")).toBe("Echo: fine");
    await h.close();
    h = undefined;
    expect(serverPids(ODD)).toEqual([]);
  });
});
