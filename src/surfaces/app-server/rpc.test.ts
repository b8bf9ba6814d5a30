import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  ConnectionClosedError,
  type ConnectionOptions,
  ErrorCode,
  RemoteError,
  RequestCancelledError,
  RequestTimeoutError,
  RpcConnection,
  RpcError,
} from "./rpc.js";
import { StdioTransport } from "./transport.js";

/** A connection over a real stdio transport on stream pairs; `sent` collects what it wrote. */
async function connection(opts: Partial<ConnectionOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const sent: any[] = [];
  let buf = "";
  output.on("data", (d) => {
    buf += d;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      sent.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  const logs: string[] = [];
  const conn = new RpcConnection(new StdioTransport(input, output, 1024), {
    onRequest: () => ({}),
    log: (l) => logs.push(l),
    ...opts,
  });
  await conn.start();
  const send = async (m: unknown) => {
    input.write(`${typeof m === "string" ? m : JSON.stringify(m)}\n`);
    await new Promise((r) => setImmediate(r));
  };
  return { conn, sent, send, logs, input };
}

describe("RpcConnection", () => {
  it("writes a response before the notifications its handler caused", async () => {
    let conn!: RpcConnection;
    const c = await connection({
      onRequest: (method) => {
        conn.notify("turn/started", { n: 1 });
        return { method };
      },
    });
    conn = c.conn;
    await c.send({ id: 1, method: "turn/start" });
    expect(c.sent).toEqual([
      { id: 1, result: { method: "turn/start" } },
      { method: "turn/started", params: { n: 1 } },
    ]);
  });

  it("mirrors jsonrpc once the client uses it", async () => {
    const c = await connection();
    await c.send({ id: 1, method: "a" });
    await c.send({ jsonrpc: "2.0", id: 2, method: "b" });
    c.conn.notify("n");
    expect(c.sent).toEqual([
      { id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", method: "n" },
    ]);
  });

  it("turns handler failures into wire errors without stacks; async handlers respond later", async () => {
    const c = await connection({
      onRequest: (method) => {
        if (method === "refuse") throw new RpcError(ErrorCode.TurnConflict, "busy", { x: 1 });
        if (method === "crash") throw new Error("boom");
        return Promise.resolve({ later: true });
      },
    });
    await c.send({ id: 1, method: "refuse" });
    await c.send({ id: 2, method: "crash" });
    await c.send({ id: 3, method: "async" });
    expect(c.sent).toEqual([
      { id: 1, error: { code: -32003, message: "busy", data: { x: 1 } } },
      { id: 2, error: { code: -32603, message: "internal error in crash: boom" } },
      { id: 3, result: { later: true } },
    ]);
    expect(c.logs.join("\n")).toMatch(/crash failed: Error: boom\n\s+at /);
  });

  it("settles outgoing requests exactly once: result, error, forget, timeout, close", async () => {
    const stray: unknown[] = [];
    const c = await connection({ onStrayResponse: (id) => stray.push(id) });
    // Capture each outcome as soon as the request exists (no unhandled rejections).
    const outcome = (r: { id: unknown; result: Promise<unknown> }) => ({
      id: r.id,
      settled: r.result.then(
        (value) => ({ value }),
        (error: Error) => ({ error }),
      ),
    });
    const a = outcome(c.conn.request("ask", { q: 1 }));
    const b = outcome(c.conn.request("ask", {}, { id: "q_b" }));
    const f = outcome(c.conn.request("ask", {}, { id: "q_f" }));
    const t = outcome(c.conn.request("ask", {}, { timeoutMs: 10 }));
    const z = outcome(c.conn.request("ask", {}));
    expect(() => c.conn.request("ask", {}, { id: "q_b" })).toThrow(/already pending/);
    expect(c.sent[0]).toEqual({ id: 1, method: "ask", params: { q: 1 } });
    await c.send({ id: a.id, result: { ok: 1 } });
    expect(await a.settled).toEqual({ value: { ok: 1 } });
    await c.send({ id: "q_b", error: { code: 7, message: "no" } });
    expect(await b.settled).toEqual({ error: new RemoteError(7, "no") });
    expect(c.conn.forget("q_f")).toBe(true);
    expect(((await f.settled) as { error: Error }).error).toBeInstanceOf(RequestCancelledError);
    await c.send({ id: "q_f", result: {} });
    await c.send({ id: a.id, result: {} });
    expect(stray).toEqual(["q_f", 1]);
    expect(((await t.settled) as { error: Error }).error).toBeInstanceOf(RequestTimeoutError);
    await c.conn.close();
    expect(((await z.settled) as { error: Error }).error).toBeInstanceOf(ConnectionClosedError);
    const late = outcome(c.conn.request("ask", {}));
    expect(((await late.settled) as { error: Error }).error).toBeInstanceOf(ConnectionClosedError);
    expect(c.conn.pendingCount).toBe(0);
  });

  it("answers malformed input with errors and keeps going", async () => {
    const notes: string[] = [];
    const c = await connection({ onNotification: (m) => notes.push(m) });
    await c.send("{oops");
    await c.send("[]");
    await c.send({ id: true, method: "x" });
    await c.send({ id: 4 });
    await c.send({ method: "initialized" });
    await c.send(`{"id":5,"method":"x","pad":"${"p".repeat(2000)}"}`);
    await c.send({ id: 6, method: "x" });
    expect(c.sent.map((m) => [m.id, m.error?.code ?? "ok"])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [4, -32600],
      [null, -32600],
      [6, "ok"],
    ]);
    expect(notes).toEqual(["initialized"]);
  });
});
