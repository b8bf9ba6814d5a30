import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "./script.js";
import { type MockModel, startMockModel } from "./server.js";
import { chatBody, post, readEvents, responsesBody } from "./test-util.js";

let server: MockModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: Script): Promise<MockModel> {
  server = await startMockModel({ script, port: 0 });
  return server;
}

async function chunks(url: string, body: unknown = chatBody()) {
  const res = await post(`${url}/chat/completions`, body);
  expect(res.status).toBe(200);
  const { events, error } = await readEvents(res);
  expect(error).toBeUndefined();
  return events;
}

describe("Chat Completions wire", () => {
  it("streams content, a finish chunk, a usage chunk when asked, then [DONE]", async () => {
    const { url } = await start({
      steps: [
        {
          output: [
            { type: "reasoning", summary: "Hmm, easy." },
            { type: "message", text: "Hello there, friend" },
          ],
        },
      ],
    });
    const body = chatBody(true);
    const evs = await chunks(url, body);
    expect(evs.at(-1)).toBe("[DONE]");
    const data = evs.slice(0, -1);
    for (const c of data) {
      expect(c).toMatchObject({ id: "chatcmpl_1", object: "chat.completion.chunk", model: "test-model" });
      expect(typeof c.created).toBe("number");
    }
    expect(data[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    const deltas = data.flatMap((c: any) => c.choices.map((ch: any) => ch.delta));
    expect(deltas.map((d: any) => d.reasoning_content ?? "").join("")).toBe("Hmm, easy.");
    expect(deltas.map((d: any) => d.content ?? "").join("")).toBe("Hello there, friend");
    const finish = data.at(-2);
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: "stop" });
    const usage = data.at(-1);
    expect(usage.choices).toEqual([]);
    const prompt = Math.ceil(JSON.stringify(body.messages).length / 4);
    expect(usage.usage).toMatchObject({
      prompt_tokens: prompt,
      completion_tokens: 8,
      total_tokens: prompt + 8,
    });
    expect(usage.usage.completion_tokens_details).toEqual({ reasoning_tokens: 3 });
  });

  it("streams parallel tool calls with indexes and raw arguments, finishing with tool_calls", async () => {
    const raw = "not json at all";
    const { url } = await start({
      steps: [
        {
          output: [
            { type: "function_call", name: "exec_command", arguments: { cmd: "echo a long enough command" } },
            { type: "function_call", name: "exec_command", arguments: raw, call_id: "call_b" },
            { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch" },
          ],
        },
      ],
    });
    const evs = await chunks(url);
    expect(evs.at(-1)).toBe("[DONE]");
    const data = evs.slice(0, -1);
    expect(data.some((c: any) => c.usage)).toBe(false);
    const calls: { id?: string; name?: string; args: string }[] = [];
    for (const c of data) {
      for (const tc of c.choices[0].delta.tool_calls ?? []) {
        calls[tc.index] ??= { args: "" };
        if (tc.id) {
          expect(tc.type).toBe("function");
          calls[tc.index].id = tc.id;
          calls[tc.index].name = tc.function.name;
        }
        calls[tc.index].args += tc.function.arguments;
      }
    }
    expect(calls).toEqual([
      { id: "call_1_1", name: "exec_command", args: '{"cmd":"echo a long enough command"}' },
      { id: "call_b", name: "exec_command", args: raw },
      { id: "call_1_3", name: "apply_patch", args: "*** Begin Patch" },
    ]);
    expect(data.at(-1).choices[0].finish_reason).toBe("tool_calls");
  });

  it("shares one script between both wires, step by step", async () => {
    const srv = await start({
      steps: [
        { output: [{ type: "message", text: "from responses" }] },
        { output: [{ type: "message", text: "from chat" }] },
      ],
    });
    const r = await post(`${srv.url}/responses`, responsesBody());
    const { events } = await readEvents(r);
    expect(events.at(-1).response.output[0].content[0].text).toBe("from responses");
    const evs = await chunks(srv.url.replace(/\/v1$/, ""));
    expect(evs.map((c: any) => c.choices?.[0]?.delta.content ?? "").join("")).toBe("from chat");
    expect(evs[0].id).toBe("chatcmpl_2");
    expect(srv.stepIndex()).toBe(2);
  });
});
