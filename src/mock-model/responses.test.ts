import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "./script.js";
import { type MockModel, startMockModel } from "./server.js";
import { json, post, readEvents, responsesBody } from "./test-util.js";

let server: MockModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: Script, log?: string): Promise<MockModel> {
  server = await startMockModel({ script, port: 0, log });
  return server;
}

async function events(url: string, body: unknown = responsesBody()) {
  const res = await post(`${url}/responses`, body);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const { events, error } = await readEvents(res);
  expect(error).toBeUndefined();
  return events;
}

describe("Responses wire", () => {
  it("streams a message with the full event grammar, sequence numbers and default usage", async () => {
    const { url } = await start({ steps: [{ output: [{ type: "message", text: "Hello world" }] }] });
    const body = responsesBody();
    const evs = await events(url, body);
    expect(evs.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(evs.map((e) => e.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(evs.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta)).toEqual([
      "Hello ",
      "world",
    ]);
    const item = {
      type: "message",
      id: "msg_1_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello world", annotations: [] }],
    };
    expect(evs[8].item).toEqual(item);
    const done = evs[9].response;
    expect(done).toMatchObject({
      id: "resp_1",
      object: "response",
      status: "completed",
      model: "test-model",
    });
    expect(done.output).toEqual([item]);
    const input = Math.ceil(JSON.stringify(body.input).length / 4);
    expect(done.usage).toEqual({
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + 3,
    });
  });

  it("streams reasoning and a function call, with usage overrides", async () => {
    const { url } = await start({
      model: "scripted",
      steps: [
        {
          output: [
            { type: "reasoning", summary: "Think first.", encrypted_content: "enc" },
            { type: "function_call", name: "exec_command", arguments: { cmd: "ls -la" } },
          ],
          usage: { input_tokens: 100, cached_tokens: 40, output_tokens: 7 },
        },
      ],
    });
    const evs = await events(url);
    const summary = evs.filter((e) => e.type === "response.reasoning_summary_text.delta").map((e) => e.delta);
    expect(summary.join("")).toBe("Think first.");
    expect(evs.find((e) => e.type === "response.reasoning_summary_text.done").text).toBe("Think first.");
    const args = evs.filter((e) => e.type === "response.function_call_arguments.delta");
    expect(args.every((e) => e.item_id === "fc_1_2" && e.output_index === 1)).toBe(true);
    expect(args.map((e) => e.delta).join("")).toBe('{"cmd":"ls -la"}');
    const done = evs.filter((e) => e.type === "response.output_item.done").map((e) => e.item);
    expect(done).toEqual([
      {
        type: "reasoning",
        id: "rs_1_1",
        summary: [{ type: "summary_text", text: "Think first." }],
        encrypted_content: "enc",
      },
      {
        type: "function_call",
        id: "fc_1_2",
        call_id: "call_1_2",
        name: "exec_command",
        arguments: '{"cmd":"ls -la"}',
        status: "completed",
      },
    ]);
    const completed = evs.at(-1);
    expect(completed.response.model).toBe("scripted");
    expect(completed.response.output).toEqual(done);
    expect(completed.response.usage).toMatchObject({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 40 },
      output_tokens: 7,
      total_tokens: 107,
    });
  });

  it("sends parallel calls in one step and raw non-JSON arguments verbatim", async () => {
    const raw = '{"cmd": "echo hi", oops';
    const { url } = await start({
      steps: [
        {
          output: [
            { type: "function_call", name: "exec_command", arguments: { cmd: "a" } },
            { type: "function_call", name: "exec_command", arguments: raw, call_id: "call_raw" },
            { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
          ],
        },
      ],
    });
    const evs = await events(url);
    const items = evs.at(-1).response.output;
    expect(items.map((i: any) => [i.type, i.call_id, i.arguments ?? i.input])).toEqual([
      ["function_call", "call_1_1", '{"cmd":"a"}'],
      ["function_call", "call_raw", raw],
      ["custom_tool_call", "call_1_3", "*** Begin Patch\n*** End Patch"],
    ]);
    const rawDeltas = evs.filter(
      (e) => e.type === "response.function_call_arguments.delta" && e.output_index === 1,
    );
    expect(rawDeltas.map((e) => e.delta).join("")).toBe(raw);
    const custom = evs.filter((e) => e.type === "response.custom_tool_call_input.delta").map((e) => e.delta);
    expect(custom.join("")).toBe("*** Begin Patch\n*** End Patch");
    expect(evs.find((e) => e.type === "response.custom_tool_call_input.done").input).toBe(
      "*** Begin Patch\n*** End Patch",
    );
  });

  it("keeps default ids unique across a looping run and counts steps", async () => {
    const srv = await start({ loop: true, steps: [{ output: [{ type: "function_call", name: "f" }] }] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await events(srv.url)).at(-1).response.output[0].call_id);
    expect(ids).toEqual(["call_1_1", "call_2_1", "call_3_1"]);
    expect(srv.stepIndex()).toBe(3);
  });

  it("answers 400 once the script is exhausted", async () => {
    const srv = await start({ steps: [{ output: [{ type: "message", text: "only" }] }] });
    await events(srv.url);
    const res = await post(`${srv.url}/responses`, responsesBody());
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toBe("mock-model: script exhausted after 1 steps");
  });

  it("checks expectations against the request and names the failed step", async () => {
    const srv = await start({
      steps: [
        { expect: { input_contains: ["README absent\n", '"role":"user"'] }, output: [] },
        { expect: { input_contains: ["zebra", "hi"] }, output: [] },
      ],
    });
    await events(srv.url, responsesBody([{ role: "user", content: "README absent\n" }]));
    const res = await post(`${srv.url}/responses`, responsesBody());
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error.message).toBe(
      'mock-model: step 2 expectation failed: the request does not contain "zebra" (expect.input_contains)',
    );
    expect(error.code).toBe("expectation_failed");
    expect(srv.stepIndex()).toBe(2);
  });

  // Fails if a side step takes a step from the sequence, or does not answer every match.
  it("side steps answer matching requests outside the sequence, any number of times", async () => {
    const srv = await start({
      side_steps: [
        { when: { input_contains: ["task title"] }, output: [{ type: "message", text: "Title" }] },
      ],
      steps: [
        { output: [{ type: "message", text: "first" }] },
        { output: [{ type: "message", text: "second" }] },
      ],
    });
    const text = async (content: string) =>
      (await events(srv.url, responsesBody([{ role: "user", content }])))
        .filter((e: any) => e.type === "response.output_text.done")
        .map((e: any) => e.text)
        .join("");
    expect(await text("write a task title")).toBe("Title");
    expect(await text("hello")).toBe("first");
    expect(await text("another task title")).toBe("Title");
    expect(await text("again")).toBe("second");
    expect(srv.stepIndex()).toBe(2);
  });

  it("logs every request body as one JSON line and keeps them in memory", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "mock-model-log-")), "requests.jsonl");
    const srv = await start({ steps: [{ output: [] }, { output: [] }] }, log);
    const bodies = [
      responsesBody([{ role: "user", content: "one" }]),
      responsesBody([{ role: "user", content: "二" }]),
    ];
    await events(srv.url, bodies[0]);
    await (await post(`${srv.url}/responses`, bodies[1])).text();
    const lines = readFileSync(log, "utf8").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual(bodies);
    expect(srv.requests).toEqual(bodies);
  });

  it("serves /v1/models, /health, 404s, malformed JSON and non-streaming requests", async () => {
    const srv = await start({ model: "mock-1", steps: [{ output: [] }] });
    const origin = srv.url.replace(/\/v1$/, "");
    expect(srv.url).toBe(`http://127.0.0.1:${srv.port}/v1`);
    expect((await json(await fetch(`${srv.url}/models`))).data[0].id).toBe("mock-1");
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    const missing = await post(`${srv.url}/embeddings`, {});
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.message).toBe("mock-model: no route for POST /v1/embeddings");
    const bad = await post(`${srv.url}/responses`, "{nope");
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.message).toMatch(/^mock-model: request body is not valid JSON/);
    const still = await post(`${srv.url}/responses`, { model: "m", input: [] });
    expect(still.status).toBe(400);
    expect((await json(still)).error.message).toContain("set stream: true");
    expect(srv.stepIndex()).toBe(0);
    await events(`${origin}`);
    expect(srv.stepIndex()).toBe(1);
  });

  // Fails if `api_key` is not enforced on a route, or if a refused request consumes a step.
  it("with api_key, refuses requests without the right bearer token (401) and serves the rest", async () => {
    const srv = await start({ api_key: "sk-mock", steps: [{ output: [{ type: "message", text: "hi" }] }] });
    const origin = srv.url.replace(/\/v1$/, "");
    const body = JSON.stringify(responsesBody());
    const send = (auth?: string) =>
      fetch(`${srv.url}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
        body,
      });
    for (const auth of [undefined, "Bearer sk-other", "sk-mock"]) {
      const res = await send(auth);
      expect(res.status).toBe(401);
      expect((await json(res)).error.code).toBe("invalid_api_key");
    }
    expect((await fetch(`${srv.url}/models`)).status).toBe(401);
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    expect(srv.stepIndex()).toBe(0);
    const models = await fetch(`${srv.url}/models`, { headers: { authorization: "Bearer sk-mock" } });
    expect(models.status).toBe(200);
    expect(await (await send("Bearer sk-mock")).text()).toContain("response.completed");
    expect(srv.stepIndex()).toBe(1);
  });

  // Speed is bench's job (no timing threshold here). Fails if the looping script stops answering.
  it("answers 200 zero-delay round trips of a looping script", async () => {
    const srv = await start({
      loop: true,
      steps: [{ output: [{ type: "function_call", name: "exec_command", arguments: { cmd: "true" } }] }],
    });
    for (let i = 0; i < 200; i++) {
      const res = await post(`${srv.url}/responses`, responsesBody());
      expect(await res.text()).toContain("response.completed");
    }
    expect(srv.stepIndex()).toBe(200);
  });
});
