/**
 * Responses over WebSocket (requirements L13), end to end: a real Runtime on `wire = "responses_websocket"`
 * against `tandem mock-model`'s upgrade route. The mock rebuilds each continuation's logical
 * body from its `previous_response_id` chain, so `model.requests` holds what HTTP would have
 * sent and `model.frames` what actually crossed the socket.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { Scripts } from "../../src/mock-model/index.js";
import { createResponsesWsClient } from "../../src/model/responses-ws.js";
import { sequentialIds } from "../../src/util/ids.js";
import { type Harness, harness } from "../helpers/index.js";

const WS = 'model_providers.openai={ wire = "responses_websocket" }';
const R1 = JSON.parse(readFileSync(new URL("../fixtures/seed-r1.json", import.meta.url), "utf8"));
const BASE =
  "You are a coding agent in the Codex CLI.\nUse the available tools when they are needed.\nRespect the active sandbox and approval policy.";
const STEER = "补充限制：README 必须保留上面的标题和中文说明，不要覆盖其他文件。";
const FIXTURE_CONFIG = [
  'model="gpt-5.2-codex"',
  'service_tier="priority"',
  'model_reasoning_effort="medium"',
  `base_instructions=${JSON.stringify(BASE)}`,
  "include_environment_context=false",
  "include_agents_md=false",
  "questions.enabled=false",
  'enabled_tools=["exec_command"]',
];
const wallTime = (v: unknown) =>
  JSON.parse(JSON.stringify(v).replace(/Wall time: \d+\.\d{4} seconds/g, "<t>"));
const exec = (cmd: string, call_id: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  arguments: { cmd },
  call_id,
});
const say = (text: string) => ({ type: "message" as const, text });

/** Runs the seed's README walkthrough (with the steer before R2) and returns the mock's log. */
async function readmeRun(extra: string[]): Promise<{ requests: any[]; frames: any[] }> {
  const h = await harness({
    script: Scripts.readmeDemo(),
    overrides: [...FIXTURE_CONFIG, ...extra],
    ids: sequentialIds(),
    windowId: "window_001",
    installationId: "install_001",
  });
  try {
    const thread = h.runtime.threads.start({ cwd: h.cwd, sessionId: "session_001" });
    const turn = thread.startTurn(R1.input[1].content[0].text);
    await h.waitFor((e) => e.type === "item.completed" && e.item.id === "call_001");
    thread.steer(STEER);
    expect((await turn.done).status).toBe("completed");
    return { requests: h.model.requests as any[], frames: h.model.frames as any[] };
  } finally {
    await h.close();
  }
}

describe("Responses over WebSocket", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("continues with previous_response_id and the new tail; the logical R1–R4 equal HTTP's", async () => {
    const http = await readmeRun([]);
    const ws = await readmeRun([WS]);
    expect(http.frames).toEqual([]);
    expect(ws.requests).toHaveLength(4);
    // Fails if the mock's chain rebuild or the client's tail cut differs from the full body by a
    // single item or key position (compared as serialised text, so key order counts).
    expect(JSON.stringify(wallTime(ws.requests))).toBe(JSON.stringify(wallTime(http.requests)));
    // The first frame is the full R1 with the frame type in front.
    expect(JSON.stringify(ws.frames[0])).toBe(
      JSON.stringify({ type: "response.create", ...http.requests[0] }),
    );
    // R2 continues R1: fails if the client resends the whole input or forgets the chain.
    const r2 = ws.frames[1];
    expect(r2.previous_response_id).toBe("resp_1");
    expect(Object.keys(r2).slice(0, 5)).toEqual([
      "type",
      "model",
      "stream",
      "service_tier",
      "previous_response_id",
    ]);
    expect(r2.input.map((i: any) => i.type)).toEqual(["function_call_output", "message"]);
    expect(r2.input[0].call_id).toBe("call_001");
    expect(r2.input[1].content[0].text).toBe(STEER);
    expect(ws.frames[2].previous_response_id).toBe("resp_2");
    expect(ws.frames[3].previous_response_id).toBe("resp_3");
    expect(ws.frames[3].input).toHaveLength(1);
  });

  it("carries the chain into the next turn, and a changed request field forces a full request", async () => {
    h = await harness({
      script: { steps: [{ output: [say("one")] }, { output: [say("two")] }, { output: [say("three")] }] },
      overrides: [WS],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("first").done).status).toBe("completed");
    expect((await thread.startTurn("second").done).status).toBe("completed");
    expect((await thread.startTurn("third", { options: { effort: "high" } }).done).status).toBe("completed");
    const frames = h.model.frames as any[];
    // Turn 2 extends turn 1 (its answer "one" is the chain's output): only the new user message goes.
    // Fails if client_metadata's turn_id (which changes per turn) were treated as a key field.
    expect(frames[1].previous_response_id).toBe("resp_1");
    expect(JSON.stringify(frames[1].input)).toContain("second");
    expect(JSON.stringify(frames[1].input)).not.toContain("first");
    // Turn 3 changes reasoning.effort: a full request. Fails if only the input prefix were checked.
    expect(frames[2].previous_response_id).toBeUndefined();
    expect(JSON.stringify(frames[2].input)).toContain("first");
    const logical = (h.model.requests as any[])[1].input.map((i: any) => i.content[0].text);
    expect(logical.slice(-3)).toEqual(["first", "one", "second"]);
  });

  it("falls back to a full request on a new socket after the socket drops mid-response", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [exec("echo hi", "c1")] },
          { fault: { type: "cut", after_events: 3 }, output: [say("lost")] },
          { output: [say("{{answer:c1}} done")], expect: { input_contains: ["c1"] } },
        ],
      },
      overrides: [WS],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    const outcome = await thread.startTurn("go").done;
    // Fails if the dropped socket were reused or the failure not retried: the turn would fail.
    expect(outcome.status).toBe("completed");
    const frames = h.model.frames as any[];
    expect(frames).toHaveLength(3);
    expect(frames[1].previous_response_id).toBe("resp_1");
    // The retry after the drop: a full request (the new socket has no chain), same logical body.
    expect(frames[2].previous_response_id).toBeUndefined();
    expect(frames[2].input.length).toBeGreaterThan(frames[1].input.length);
    const reqs = h.model.requests as any[];
    expect(JSON.stringify(reqs[2].input)).toBe(JSON.stringify(reqs[1].input));
    const final = h.runtime.threads
      .history(thread.id)
      .map((s) => s.item)
      .filter((i: any) => i.type === "message" && i.role === "assistant");
    expect(JSON.stringify(final.at(-1))).toContain("done");
  });

  it("an idle socket times out (stream_idle_timeout_ms) and the retry goes out in full", async () => {
    h = await harness({
      script: { steps: [{ output: [say("one")] }, { fault: { type: "hang" } }, { output: [say("two")] }] },
      overrides: [WS, "stream_idle_timeout_ms=300"],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("first").done).status).toBe("completed");
    const t0 = Date.now();
    // Fails if the client waited on the silent socket forever (the turn would hang).
    expect((await thread.startTurn("second").done).status).toBe("completed");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    const frames = h.model.frames as any[];
    expect(frames[1].previous_response_id).toBe("resp_1");
    // The timed-out socket was closed with its chain: the retry is a full request.
    expect(frames[2].previous_response_id).toBeUndefined();
    expect(JSON.stringify(h.model.requests[2])).toBe(JSON.stringify(h.model.requests[1]));
  });

  it("resends in full when the server no longer holds the previous response", async () => {
    // A server that forgets every response (as after a server-side eviction): each
    // continuation gets previous_response_not_found, each full request an answer.
    const got: any[] = [];
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((r) => wss.once("listening", r));
    wss.on("connection", (ws) =>
      ws.on("message", (d) => {
        const frame = JSON.parse(String(d));
        got.push(frame);
        if (frame.previous_response_id) {
          const error = {
            type: "invalid_request_error",
            code: "previous_response_not_found",
            message: "gone",
          };
          return ws.send(JSON.stringify({ type: "error", status: 400, error }));
        }
        const id = `resp_${got.length}`;
        const item = {
          type: "message",
          id: `m${got.length}`,
          role: "assistant",
          content: [{ type: "output_text", text: "ok" }],
        };
        ws.send(JSON.stringify({ type: "response.created", response: { id } }));
        ws.send(JSON.stringify({ type: "response.output_item.done", item }));
        ws.send(JSON.stringify({ type: "response.completed", response: { id } }));
      }),
    );
    const port = (wss.address() as { port: number }).port;
    const client = createResponsesWsClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "k" });
    try {
      const user = (text: string) => ({
        type: "message" as const,
        role: "user" as const,
        content: [{ type: "input_text" as const, text }],
      });
      const prompt = (input: any[]) => ({
        model: "m",
        input,
        tools: [],
        parallelToolCalls: false,
        promptCacheKey: "k",
        clientMetadata: { thread_id: "t1" },
      });
      const run = async (input: any[]) => {
        const out: any[] = [];
        for await (const e of client.stream(prompt(input), new AbortController().signal)) out.push(e);
        return out;
      };
      const first = await run([user("a")]);
      const answer = first.find((e) => e.type === "item_done").item;
      const second = await run([user("a"), answer, user("b")]);
      // Fails if previous_response_not_found reached the turn as a failure instead of a resend.
      expect(second.at(-1).type).toBe("completed");
      expect(got.map((f) => f.previous_response_id ?? null)).toEqual([null, "resp_1", null]);
      expect(got[2].input).toHaveLength(3);
    } finally {
      client.close();
      await new Promise((r) => wss.close(r));
    }
  });

  it("interrupt during a WebSocket response ends the turn interrupted, and the next turn works", async () => {
    h = await harness({
      script: { steps: [{ fault: { type: "hang" } }, { output: [say("after")] }] },
      overrides: [WS],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    const turn = thread.startTurn("hang please");
    await h.waitFor((e) => e.type === "turn.started");
    // The mock has the request (its step consumed) before we interrupt.
    for (let i = 0; i < 200 && h.model.stepIndex() < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(h.model.stepIndex()).toBe(1);
    thread.interrupt();
    // Fails if the interrupt waited on the hanging socket (the turn would never end).
    expect((await turn.done).status).toBe("interrupted");
    const next = await thread.startTurn("again").done;
    expect(next.status).toBe("completed");
    const frames = h.model.frames as any[];
    // The interrupted response never completed: no chain, so the next request is full.
    expect(frames[1].previous_response_id).toBeUndefined();
    expect(JSON.stringify(frames[1].input)).toContain("hang please");
  });
});
