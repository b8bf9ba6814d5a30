/**
 * Proof that the official `openai` SDK parses the mock's streams: raw event iteration,
 * the accumulating helpers (`responses.stream`, `chat.completions.stream`) and errors.
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "./script.js";
import { README_DEMO_ARGUMENTS, README_DEMO_FINAL, readmeDemo } from "./scripts.js";
import { type MockModel, startMockModel } from "./server.js";

let server: MockModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function client(script: Script): Promise<OpenAI> {
  server = await startMockModel({ script, port: 0 });
  return new OpenAI({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
}

const toolStep = {
  output: [
    { type: "reasoning" as const, summary: "Look around first." },
    { type: "message" as const, text: "Listing files." },
    { type: "function_call" as const, name: "exec_command", arguments: { cmd: "ls" } },
    { type: "function_call" as const, name: "exec_command", arguments: { cmd: "pwd" } },
  ],
};

describe("openai SDK over the mock", () => {
  it("responses.create({stream:true}) yields every event, ending with response.completed", async () => {
    const openai = await client({ steps: [toolStep] });
    const stream = await openai.responses.create({ model: "gpt-test", input: "hi", stream: true });
    const types: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.completed") final = event.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.reasoning_summary_text.delta");
    expect(types).toContain("response.function_call_arguments.done");
    expect(final?.output.map((o) => o.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
    ]);
    expect(final?.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("responses.stream() accumulates the final response", async () => {
    const openai = await client({ steps: [toolStep] });
    const stream = openai.responses.stream({ model: "gpt-test", input: "hi" });
    let text = "";
    stream.on("response.output_text.delta", (e) => {
      text = e.snapshot;
    });
    const final = await stream.finalResponse();
    expect(text).toBe("Listing files.");
    expect(final.output_text).toBe("Listing files.");
    const calls = final.output.filter((o) => o.type === "function_call");
    expect(calls.map((c) => [c.call_id, c.arguments])).toEqual([
      ["call_1_3", '{"cmd":"ls"}'],
      ["call_1_4", '{"cmd":"pwd"}'],
    ]);
  });

  it("chat.completions.create({stream:true}) chunks and chat.completions.stream() accumulate", async () => {
    const openai = await client({ steps: [toolStep, toolStep] });
    const messages = [{ role: "user" as const, content: "hi" }];
    const stream = await openai.chat.completions.create({
      model: "gpt-test",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(content).toBe("Listing files.");
    expect(usage?.total_tokens).toBeGreaterThan(0);

    const helper = openai.chat.completions.stream({ model: "gpt-test", messages });
    const completion = await helper.finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Listing files.");
    const calls = (choice.message.tool_calls ?? []).map((c) =>
      c.type === "function" ? c.function : undefined,
    );
    expect(calls).toEqual([
      { name: "exec_command", arguments: '{"cmd":"ls"}' },
      { name: "exec_command", arguments: '{"cmd":"pwd"}' },
    ]);
  });

  it("surfaces HTTP faults as APIError with status and headers", async () => {
    const openai = await client({
      steps: [
        { fault: { type: "http", status: 429, retry_after: 3 } },
        { fault: { type: "http", status: 500 } },
      ],
    });
    const err = await openai.responses.create({ model: "m", input: "hi", stream: true }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect([err.status, err.code, err.headers.get("retry-after")]).toEqual([429, "rate_limit_exceeded", "3"]);
    const err2 = await openai.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "x" }], stream: true })
      .catch((e) => e);
    expect(err2).toBeInstanceOf(OpenAI.InternalServerError);
  });

  it("shows failed as a response.failed event, chat failed as a thrown APIError, cut as a thrown error", async () => {
    const openai = await client({
      steps: [
        { fault: { type: "failed", code: "context_length_exceeded" } },
        { fault: { type: "failed", code: "insufficient_quota" } },
        { ...toolStep, fault: { type: "cut" } },
      ],
    });
    const failed = await openai.responses.create({ model: "m", input: "hi", stream: true });
    const last: string[] = [];
    for await (const event of failed) {
      last.push(event.type);
      if (event.type === "response.failed")
        expect(event.response.error?.code).toBe("context_length_exceeded");
    }
    expect(last.at(-1)).toBe("response.failed");

    const chat = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    const chatErr = await (async () => {
      for await (const _ of chat);
    })().catch((e) => e);
    expect(chatErr).toBeInstanceOf(OpenAI.APIError);
    expect(chatErr.code).toBe("insufficient_quota");

    const cut = await openai.responses.create({ model: "m", input: "hi", stream: true });
    const cutErr = await (async () => {
      for await (const _ of cut);
    })().catch((e) => e);
    expect(cutErr).toBeInstanceOf(Error);
  });

  it("plays the readme demo with the seed's ids and arguments", async () => {
    const openai = await client(readmeDemo());
    const outputs: OpenAI.Responses.ResponseOutputItem[] = [];
    for (let i = 0; i < 4; i++) {
      const final = await openai.responses
        .stream({ model: "gpt-test", input: `request ${i + 1}` })
        .finalResponse();
      outputs.push(...final.output);
    }
    expect(
      outputs.map((o) => (o.type === "function_call" ? [o.id, o.call_id, o.arguments] : o.type)),
    ).toEqual([
      ["fc_001", "call_001", README_DEMO_ARGUMENTS.check],
      ["fc_002", "call_002", README_DEMO_ARGUMENTS.write],
      ["fc_003", "call_003", README_DEMO_ARGUMENTS.verify],
      "message",
    ]);
    const message = outputs[3];
    expect(message.type === "message" && message.content[0]).toMatchObject({ text: README_DEMO_FINAL });
  });
});
