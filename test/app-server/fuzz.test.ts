/**
 * Bad input never breaks the app server (requirements S3, §8): malformed JSON, oversized messages, wrong
 * types, unknown methods, replies to unknown request ids. Every case gets an error (a JSON-RPC error,
 * or a `warning` for a stray response, which JSON-RPC cannot answer), nothing crashes, and the
 * pending question is still answerable afterwards.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ANSWER, answerAndFinish, questionScript, serverEnv, startPlanTurn } from "../helpers/app-server.js";
import {
  inProcessStdio,
  processStdio,
  type ServerProcess,
  type TestClient,
  wsClient,
  wsServer,
} from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { replayable } from "../helpers/fc-replay.js";

const MiB = 1024 * 1024;

/** Sends `raw` with id `id` and waits for the error response to it. */
async function errorFor(client: TestClient, raw: string, id: string | number | null) {
  const before = client.received.length;
  client.sendRaw(raw);
  const m = await client.waitFor(
    (x) => client.received.indexOf(x) >= before && x.id === id && x.error !== undefined,
    10_000,
  );
  return m.error as { code: number; message: string; data?: any };
}

describe("tandem app-server fuzz", () => {
  let mock: MockProcess | undefined;
  let server: ServerProcess | undefined;
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) expect(c.violations).toEqual([]);
    if (server) await server.stop();
    server = undefined;
    await mock?.stop();
    mock = undefined;
  });

  it("answers every malformed, oversized, mistyped or unknown message with an error over stdio", async () => {
    mock = await startMockProcess(questionScript());
    const s = processStdio(serverEnv(mock));
    server = s.server;
    const { client } = s;
    clients.push(client);
    await client.initialize();
    const { threadId, question } = await startPlanTurn(client);

    expect((await errorFor(client, "{not json", null)).code).toBe(-32700);
    expect((await errorFor(client, "ÿþ{", null)).code).toBe(-32700);
    expect((await errorFor(client, `${"[".repeat(100_000)}${"]".repeat(100_000)}`, null)).code).toBe(-32600);
    expect((await errorFor(client, "[1,2]", null)).message).toMatch(/batches are not supported/);
    expect((await errorFor(client, '"hello"', null)).code).toBe(-32600);
    expect((await errorFor(client, '{"id":1}', 1)).code).toBe(-32600);
    expect((await errorFor(client, '{"id":{"a":1},"method":"thread/list"}', null)).code).toBe(-32600);
    expect((await errorFor(client, '{"id":1e300,"method":"thread/list"}', null)).code).toBe(-32600);
    expect((await errorFor(client, '{"id":2,"method":42}', 2)).code).toBe(-32600);
    expect((await errorFor(client, '{"jsonrpc":"1.0","id":3,"method":"thread/list"}', 3)).code).toBe(-32600);
    const unknown = await errorFor(client, '{"id":4,"method":"nope/nope","params":{}}', 4);
    expect(unknown).toMatchObject({ code: -32601, message: "method not found: nope/nope" });
    const badTypes = await errorFor(
      client,
      '{"id":5,"method":"turn/start","params":{"threadId":5,"input":"hi"}}',
      5,
    );
    expect(badTypes.code).toBe(-32602);
    expect(badTypes.message).toMatch(/threadId: .*expected string/);
    expect(badTypes.message).toMatch(/input: .*expected array/);
    const skill = await errorFor(
      client,
      JSON.stringify({
        id: 6,
        method: "turn/start",
        params: { threadId, input: [{ type: "skill", name: "x" }] },
      }),
      6,
    );
    expect(skill.code).toBe(-32602);
    expect(
      (await errorFor(client, '{"id":7,"method":"thread/resume","params":{"threadId":"nope"}}', 7)).code,
    ).toBe(-32001);
    const busy = await errorFor(
      client,
      JSON.stringify({
        id: 8,
        method: "turn/start",
        params: { threadId, input: [{ type: "text", text: "more" }] },
      }),
      8,
    );
    expect(busy.code).toBe(-32003);
    const reply = (id: number, params: unknown) =>
      JSON.stringify({ id, method: "tandem/question/reply", params });
    const answers = { stack: { selected: ["Rust"] } };
    expect(await errorFor(client, reply(9, { threadId, requestId: "q_nope", answers }), 9)).toMatchObject({
      code: -32010,
      data: { reason: "unknown_request" },
    });
    expect(
      (await errorFor(client, reply(10, { threadId: "other", requestId: question.id, answers }), 10)).code,
    ).toBe(-32013);
    const two = { stack: { selected: ["Rust", "TypeScript (Recommended)"] } };
    const invalid = await errorFor(client, reply(11, { threadId, requestId: question.id, answers: two }), 11);
    expect(invalid).toMatchObject({ code: -32014, data: { reason: "invalid_reply" } });
    expect(invalid.message).toMatch(/takes one option/);
    expect((await errorFor(client, '{"id":12,"method":"initialize","params":{}}', 12)).code).toBe(-32602);

    // Oversized: skipped without buffering it whole, answered, and the next message still works.
    const big = `{"id":13,"method":"thread/list","params":{"pad":"${"x".repeat(9 * MiB)}"}}`;
    expect((await errorFor(client, big, null)).message).toMatch(/exceeds the 8388608-byte limit/);

    // Responses to ids the server never used: a warning (JSON-RPC cannot answer a response).
    client.sendRaw('{"id":"nope","result":{}}');
    expect((await client.notification("warning", (p) => /"nope"/.test(p.message))).message).toMatch(
      /unknown request id/,
    );
    client.sendRaw('{"id":999,"error":{"code":1,"message":"x"}}');
    await client.notification("warning", (p) => /999/.test(p.message));
    client.sendRaw('{"method":"no/such/notification"}');

    // A malformed result to the real question: refused, and the question is asked again.
    client.sendRaw(JSON.stringify({ id: question.id, result: { answers: "Rust" } }));
    const refused = await client.notification("tandem/question/replyRefused");
    expect(refused).toMatchObject({ requestId: question.id, code: "invalid_reply" });
    const retried = await client.waitFor((m) => m.id === `${question.id}.2`);
    expect(retried).toMatchObject({
      method: "item/tool/requestUserInput",
      params: { threadId, itemId: "call_q01" },
    });

    // Still answerable, and the thread still works.
    await answerAndFinish(client, mock, retried);
    expect(s.stderr()).toMatch(/refused \(invalid_reply\)/);
    expect(await s.close()).toBe(0);
    server = undefined;
  });

  it("before initialize, a second initialize, and random garbage: errors, never a crash", async () => {
    mock = await startMockProcess(questionScript());
    const s = inProcessStdio(serverEnv(mock));
    const { client } = s;
    clients.push(client);
    expect((await client.call("thread/list", {})).error).toMatchObject({ code: -32002 });
    await client.initialize();
    expect(
      (await client.call("initialize", { clientInfo: { name: "x", version: "1" } })).error,
    ).toMatchObject({
      code: -32004,
    });
    const { question } = await startPlanTurn(client);

    let probe = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.string({ maxLength: 200 })), async (value) => {
        const raw = typeof value === "string" ? value : JSON.stringify(value);
        if (raw.includes("\n")) return;
        client.sendRaw(raw);
        // The connection still answers, in order.
        const id = `probe-${probe++}`;
        client.sendRaw(JSON.stringify({ id, method: "tandem/question/list", params: {} }));
        const m = await client.waitFor((x) => x.id === id, 5_000);
        expect(m.result.requests.map((r: any) => r.request_id)).toEqual([question.id]);
      }),
      replayable({ numRuns: 300 }),
    );
    await answerAndFinish(client, mock, question);
    expect(await s.close()).toBe(0);
  });

  it("websocket: oversized and binary frames get errors and the connection keeps working", async () => {
    mock = await startMockProcess(questionScript());
    const started = await wsServer(serverEnv(mock));
    server = started.server;
    const c = await wsClient(started.url, "ws");
    clients.push(c.client);
    await c.client.initialize();
    const { question } = await startPlanTurn(c.client);
    const big = `{"id":1,"method":"thread/list","params":{"pad":"${"x".repeat(9 * MiB)}"}}`;
    expect((await errorFor(c.client, big, null)).message).toMatch(/exceeds/);
    const before = c.client.received.length;
    c.socket.send(Buffer.from('{"id":2,"method":"thread/list"}'), { binary: true });
    const binary = await c.client.waitFor((m) => c.client.received.indexOf(m) >= before && m.error);
    expect(binary.error.message).toMatch(/binary frames/);
    expect((await errorFor(c.client, "{", null)).code).toBe(-32700);
    c.client.respond(question, ANSWER);
    await c.client.notification("turn/completed", (p) => p.turn.status === "completed");
    await c.close();
  });
});
