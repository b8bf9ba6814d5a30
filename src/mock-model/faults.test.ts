import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "./script.js";
import { type MockModel, startMockModel } from "./server.js";
import { chatBody, json, parseSse, post, readBody, readEvents, responsesBody } from "./test-util.js";

let server: MockModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: Script): Promise<MockModel> {
  server = await startMockModel({ script, port: 0 });
  return server;
}

const hello = { output: [{ type: "message" as const, text: "hello again" }] };

describe("http faults", () => {
  it("answers a 429 with retry-after and an OpenAI-style body, then moves on", async () => {
    const srv = await start({ steps: [{ fault: { type: "http", status: 429, retry_after: 2 } }, hello] });
    const res = await post(`${srv.url}/responses`, responsesBody());
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await json(res)).toEqual({
      error: {
        message: "Rate limit reached for mock-model. Please try again in 1s.",
        type: "requests",
        code: "rate_limit_exceeded",
      },
    });
    const next = await readEvents(await post(`${srv.url}/responses`, responsesBody()));
    expect(next.events.at(-1).type).toBe("response.completed");
  });

  it("supports default 5xx bodies, message/code overrides, raw string and object bodies", async () => {
    const srv = await start({
      steps: [
        { fault: { type: "http", status: 500 } },
        { fault: { type: "http", status: 400, message: "too big", code: "context_length_exceeded" } },
        { fault: { type: "http", status: 502, body: "<html>bad gateway</html>" } },
        { fault: { type: "http", status: 503, body: { detail: "custom" }, retry_after_ms: 250 } },
      ],
    });
    const call = () => post(`${srv.url}/chat/completions`, chatBody());
    const a = await call();
    expect(a.status).toBe(500);
    expect((await json(a)).error).toMatchObject({ type: "server_error", code: "server_error" });
    const b = await call();
    expect((await json(b)).error).toEqual({
      message: "too big",
      type: "invalid_request_error",
      code: "context_length_exceeded",
    });
    const c = await call();
    expect([c.status, await c.text()]).toEqual([502, "<html>bad gateway</html>"]);
    const d = await call();
    expect(d.headers.get("retry-after-ms")).toBe("250");
    expect(await json(d)).toEqual({ detail: "custom" });
  });
});

describe("cut", () => {
  it("by default drops the connection right before response.completed", async () => {
    const srv = await start({ steps: [{ ...hello, fault: { type: "cut" } }] });
    const { events, error } = await readEvents(await post(`${srv.url}/responses`, responsesBody()));
    expect(error).toBeDefined();
    expect(events.at(-1).type).toBe("response.output_item.done");
    expect(events.some((e) => e.type === "response.completed")).toBe(false);
  });

  it("drops after exactly N events, also with token pacing", async () => {
    const srv = await start({
      steps: [
        { ...hello, fault: { type: "cut", after_events: 2 } },
        { ...hello, token_delay_ms: 5, fault: { type: "cut", after_events: 5 } },
        { ...hello, fault: { type: "cut", after_events: 0 } },
      ],
    });
    const a = await readEvents(await post(`${srv.url}/responses`, responsesBody()));
    expect([a.events.map((e) => e.type), a.error !== undefined]).toEqual([
      ["response.created", "response.in_progress"],
      true,
    ]);
    const b = await readEvents(await post(`${srv.url}/responses`, responsesBody()));
    expect([b.events.length, b.error !== undefined]).toEqual([5, true]);
    const c = await post(`${srv.url}/responses`, responsesBody());
    expect(c.status).toBe(200);
    const body = await readBody(c);
    expect([body.text, body.error !== undefined]).toEqual(["", true]);
  });

  it("on chat, ends without the finish chunk or [DONE]", async () => {
    const srv = await start({ steps: [{ ...hello, fault: { type: "cut" } }] });
    const { events, error } = await readEvents(await post(`${srv.url}/chat/completions`, chatBody(true)));
    expect(error).toBeDefined();
    expect(events.map((c: any) => c.choices[0].delta.content ?? "").join("")).toBe("hello again");
    expect(events.some((c: any) => c === "[DONE]" || c.choices[0].finish_reason)).toBe(false);
  });
});

describe("failed", () => {
  it.each(["context_length_exceeded", "rate_limit_exceeded", "insufficient_quota", "server_error"] as const)(
    "sends response.failed with code %s",
    async (code) => {
      const srv = await start({ steps: [{ fault: { type: "failed", code } }] });
      const { events, error } = await readEvents(await post(`${srv.url}/responses`, responsesBody()));
      expect(error).toBeUndefined();
      expect(events.map((e) => e.type)).toEqual([
        "response.created",
        "response.in_progress",
        "response.failed",
      ]);
      const failed = events[2].response;
      expect(failed.status).toBe("failed");
      expect(failed.error.code).toBe(code);
      expect(failed.error.message.length).toBeGreaterThan(0);
    },
  );

  it("uses the scripted message, and on chat sends an error chunk without [DONE]", async () => {
    const srv = await start({
      steps: [{ fault: { type: "failed", code: "server_error", message: "boom" } }],
    });
    const { events } = await readEvents(await post(`${srv.url}/chat/completions`, chatBody()));
    expect(events.at(-1)).toEqual({ error: { message: "boom", type: "server_error", code: "server_error" } });
    expect(events).not.toContain("[DONE]");
  });
});

describe("hang and delays", () => {
  it("hangs after response.created until the client disconnects, then serves the next step", async () => {
    const srv = await start({ steps: [{ ...hello, fault: { type: "hang" } }, hello] });
    const abort = new AbortController();
    const res = await post(`${srv.url}/responses`, responsesBody(), abort.signal);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(parseSse(first).map((e) => e.event)).toEqual(["response.created"]);
    const nothing = await Promise.race([reader.read().then(() => "data"), delay(150).then(() => "silence")]);
    expect(nothing).toBe("silence");
    abort.abort();
    const next = await readEvents(await post(`${srv.url}/responses`, responsesBody()));
    expect(next.events.at(-1).type).toBe("response.completed");
  });

  // No timing threshold: if close() left the hanging answer open, `reading` would never settle
  // and the test would time out. Fails if close() waits for open responses instead of ending them.
  it("close() ends a hanging answer", async () => {
    const srv = await start({ steps: [{ fault: { type: "hang" } }] });
    const res = await post(`${srv.url}/chat/completions`, chatBody());
    const reading = readBody(res);
    await delay(50);
    await srv.close();
    server = undefined;
    const { text, error } = await reading;
    expect(error).toBeDefined();
    expect(JSON.parse(parseSse(text)[0].data).choices[0].delta.role).toBe("assistant");
  });

  it("waits delay_ms before the first byte and token_delay_ms before each delta", async () => {
    const srv = await start({
      steps: [
        { ...hello, delay_ms: 150 },
        { output: [{ type: "message", text: "one two three four" }], token_delay_ms: 40 },
      ],
    });
    let started = performance.now();
    const res = await post(`${srv.url}/responses`, responsesBody());
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    await res.text();
    started = performance.now();
    const paced = await post(`${srv.url}/responses`, responsesBody());
    const reader = paced.body!.getReader();
    const firstAt = performance.now() - started;
    let chunks = 0;
    while (!(await reader.read()).done) chunks++;
    const total = performance.now() - started;
    expect(total - firstAt).toBeGreaterThanOrEqual(4 * 40 - 30);
    expect(chunks).toBeGreaterThan(2);
  });

  it("a client that leaves during delay_ms does not wedge the server", async () => {
    const srv = await start({ steps: [{ ...hello, delay_ms: 10_000 }, hello] });
    const abort = new AbortController();
    const pending = post(`${srv.url}/responses`, responsesBody(), abort.signal).catch((e) => e);
    await delay(50);
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    const next = await readEvents(await post(`${srv.url}/responses`, responsesBody()));
    expect(next.events.at(-1).type).toBe("response.completed");
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
