/**
 * The Responses HTTP transport (sse-http.ts) against real servers: keep-alive reuse (counted by
 * a TCP relay in front of `tandem mock-model`), interrupt mid-answer, and SSE framing details
 * (CRLF line ends, multi-line data, a body cut mid-event).
 */
import { createServer as createHttpServer, type Server } from "node:http";
import { connect, createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel } from "../mock-model/index.js";
import { createResponsesClient } from "./responses.js";
import type { ModelEvent, Prompt } from "./types.js";

const prompt: Prompt = {
  model: "m",
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
  tools: [],
  parallelToolCalls: false,
  promptCacheKey: "k",
  clientMetadata: {},
};

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A TCP relay to `port` that counts the connections it accepted. */
async function relay(port: number): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server = createServer((a) => {
    n += 1;
    const b = connect(port, "127.0.0.1");
    a.pipe(b).pipe(a);
    for (const s of [a, b]) {
      sockets.add(s);
      s.on("error", () => {});
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return { port: (server.address() as { port: number }).port, connections: () => n };
}

describe("Responses over HTTP (sse-http)", () => {
  it("reuses one keep-alive connection for consecutive requests", async () => {
    const mock = await startMockModel({
      script: { loop: true, steps: [{ output: [{ type: "message", text: "hello" }] }] },
    });
    closers.push(() => mock.close());
    const r = await relay(mock.port);
    const client = createResponsesClient({ baseUrl: `http://127.0.0.1:${r.port}/v1`, apiKey: "k" });
    for (let i = 0; i < 3; i++) {
      const events = await collect(client.stream(prompt, new AbortController().signal));
      expect(events.at(-1)?.type).toBe("completed");
    }
    // Fails if the pool does not keep connections alive (3 connections: keepAlive false, or an
    // agent per request).
    expect(r.connections()).toBe(1);
    expect(mock.requests).toHaveLength(3);
  });

  it("an abort mid-answer ends the stream interrupted and the next request works", async () => {
    const mock = await startMockModel({
      script: { steps: [{ fault: { type: "hang" } }, { output: [{ type: "message", text: "after" }] }] },
    });
    closers.push(() => mock.close());
    const client = createResponsesClient({ baseUrl: mock.url, apiKey: "k" });
    const ctrl = new AbortController();
    const seen: ModelEvent[] = [];
    for await (const e of client.stream(prompt, ctrl.signal)) {
      seen.push(e);
      if (e.type === "created") ctrl.abort();
    }
    // Fails if the abort waited for the hanging body: the loop would never end.
    expect(seen.at(-1)).toMatchObject({ type: "failed", error: { kind: "interrupted" } });
    const next = await collect(client.stream(prompt, new AbortController().signal));
    expect(next.at(-1)?.type).toBe("completed");
  });

  it("parses CRLF framing and multi-line data, and reports a body cut mid-event as a retryable stream failure", async () => {
    const item = {
      type: "message",
      id: "m1",
      role: "assistant",
      content: [{ type: "output_text", text: "x" }],
    };
    let cut = false;
    const server: Server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const done = JSON.stringify({ type: "response.output_item.done", item });
      // The JSON split over two data lines: joined with a newline, which JSON allows between tokens.
      const at = done.indexOf(":") + 1;
      const twoLines = `data: ${done.slice(0, at)}\r\ndata: ${done.slice(at)}\r\n\r\n`;
      if (cut) return res.end(`event: x\r\n${twoLines}data: {"type":"response.comp`);
      const completed = JSON.stringify({ type: "response.completed", response: { id: "r1" } });
      res.end(`${twoLines}data: ${completed}\r\n\r\n`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const port = (server.address() as { port: number }).port;
    const client = createResponsesClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "k" });
    const ok = await collect(client.stream(prompt, new AbortController().signal));
    expect(ok.map((e) => e.type)).toEqual(["item_done", "completed"]);
    cut = true;
    const bad = await collect(client.stream(prompt, new AbortController().signal));
    // Fails if a partial last event were dropped silently and the stream counted as merely short
    // (it is a stream failure either way) or, worse, parsed.
    expect(bad.map((e) => e.type)).toEqual(["item_done", "failed"]);
    expect(bad.at(-1)).toMatchObject({ type: "failed", error: { kind: "stream", retryable: true } });
  });
});
