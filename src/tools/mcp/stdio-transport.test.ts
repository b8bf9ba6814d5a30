/**
 * StdioTransport against real child processes: a tiny server that writes, for each request, the
 * raw lines the request names (`$ID` replaced by its id), so each test sends exactly the frames it
 * means to.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "../../util/process-tree.js";
import { FRAME_ERROR, idAtEdges, StdioTransport } from "./stdio-transport.js";

const ECHO_LINES = `require("readline").createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  for (const out of m.params?.lines ?? []) process.stdout.write(out.replaceAll("$ID", JSON.stringify(m.id)) + "\\n");
});`;

const open: StdioTransport[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

async function server(script = ECHO_LINES, maxLineBytes?: number) {
  const t = new StdioTransport({ command: process.execPath, args: ["-e", script], maxLineBytes });
  open.push(t);
  const got: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  t.onmessage = (m) => got.push(m);
  t.onerror = (e) => errors.push(e);
  t.onclose = () => closed++;
  await t.start();
  const request = (id: number, lines: string[] = []) =>
    t.send({ jsonrpc: "2.0", id, method: "say", params: { lines } });
  return { t, got, errors, request, closed: () => closed };
}

async function until(what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const failed = (got: JSONRPCMessage[]) =>
  got.filter((m) => "error" in m).map((m) => m as { id: number; error: { code: number; message: string } });
const ok = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{"n":${id}}}`;

describe("StdioTransport", () => {
  // Fails if a line that is not JSON is only reported (the requests in flight would wait for
  // ever), if it fails fewer than every request in flight, or if reading stops after it.
  it("a line that is not JSON fails every request in flight at once; the next line is read", async () => {
    const s = await server();
    await s.request(1);
    await s.request(2, ["Traceback: boom"]);
    await until("two error responses", () => failed(s.got).length === 2);
    expect(failed(s.got).map((m) => m.id)).toEqual([1, 2]);
    for (const m of failed(s.got)) {
      expect(m.error.code).toBe(FRAME_ERROR);
      expect(m.error.message).toContain('not JSON ("Traceback: boom")');
    }
    expect(s.errors.length).toBe(1);
    await s.request(3, [ok(3)]);
    await until("the answer to 3", () => s.got.length === 3);
    expect(s.got[2]).toEqual({ jsonrpc: "2.0", id: 3, result: { n: 3 } });
  });

  // Fails if a message of the wrong shape fails requests it does not name (when it names one in
  // flight) or is passed on to the client.
  it("a JSON message of the wrong shape fails only its own request", async () => {
    const s = await server();
    await s.request(1);
    await s.request(2, ['{"jsonrpc":"1.0","id":$ID,"result":{}}']);
    await until("the error for 2", () => failed(s.got).length === 1);
    expect(failed(s.got)[0]).toMatchObject({ id: 2, error: { code: FRAME_ERROR } });
    expect(failed(s.got)[0].error.message).toContain("not a JSON-RPC message");
    // 1 is still in flight: the next bad line fails it too.
    await s.request(3, ["{oops"]);
    await until("errors for 1 and 3", () => failed(s.got).length === 3);
    expect(failed(s.got).map((m) => m.id)).toEqual([2, 1, 3]);
  });

  // Fails if an over-long line is buffered and parsed (it would arrive as a result), is not
  // attributed to its own request by the id at its start or end, or stops reading after it.
  it("a line over the cap fails its own request with 'result too large'; the next line is read", async () => {
    const s = await server(ECHO_LINES, 1000);
    const x = "x".repeat(5000);
    await s.request(1);
    await s.request(2, [`{"result":{"t":"${x}"},"jsonrpc":"2.0","id":$ID}`]); // the SDK's key order
    await until("the error for 2", () => failed(s.got).length === 1);
    await s.request(3, [`{"jsonrpc":"2.0","id":$ID,"result":{"t":"${x}"}}`]);
    await until("the error for 3", () => failed(s.got).length === 2);
    expect(failed(s.got).map((m) => m.id)).toEqual([2, 3]);
    const msg = failed(s.got)[0].error.message;
    expect(msg).toContain("result too large");
    expect(msg).toContain("5042 bytes on one line, over Tandem's 1000 bytes limit");
    // No id at either edge: every request in flight fails (1 and 4).
    await s.request(4, [`{"result":{"t":"${x}"},"id":$ID,"jsonrpc":"2.0"}`]);
    await until("errors for 1 and 4", () => failed(s.got).length === 4);
    expect(failed(s.got).map((m) => m.id)).toEqual([2, 3, 1, 4]);
    await s.request(5, [ok(5)]);
    await until("the answer to 5", () => s.got.some((m) => "result" in m));
  });

  // Fails if a request the client cancelled is still failed by a later bad frame (the client
  // would get an answer for a request it forgot), or an answered one is.
  it("answered and cancelled requests are no longer in flight", async () => {
    const s = await server();
    await s.request(1, [ok(1)]);
    await s.request(2);
    await s.t.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } });
    await s.request(3, ["garbage"]);
    await until("the error for 3", () => failed(s.got).length >= 1);
    await s.request(4, [ok(4)]);
    await until("the answer to 4", () => s.got.length === 3);
    expect(failed(s.got).map((m) => m.id)).toEqual([3]);
  });

  // Fails if close() does not end the process, calls onclose twice, or hangs on a server that
  // ignores the end of its stdin.
  it("close() ends the server (killing one that ignores EOF) and calls onclose once", async () => {
    const polite = await server();
    const pid = polite.t.pid!;
    await polite.t.close();
    expect(isAlive(pid)).toBe(false);
    const stubborn = await server(
      "process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000);",
    );
    await stubborn.t.close();
    expect(isAlive(stubborn.t.pid ?? -1)).toBe(false);
    await polite.t.close();
    expect([polite.closed(), stubborn.closed()]).toEqual([1, 1]);
    await expect(polite.request(9)).rejects.toThrow("Not connected");
  });

  // Fails if stderr nobody reads fills its pipe: the server blocks writing it and never answers.
  it("a server's stderr that nobody reads does not block it", async () => {
    // A blocking write, as a server in C or Python makes: it waits for room in the pipe.
    const loud = `require("fs").writeSync(2, "e".repeat(1 << 20)); ${ECHO_LINES}`;
    const s = await server(loud);
    await s.request(1, [ok(1)]);
    await until("the answer to 1", () => s.got.length === 1);
  });

  // Fails if a command that cannot be spawned hangs start() or close().
  it("a command that does not exist rejects start(); close() still settles", async () => {
    const t = new StdioTransport({ command: "/nonexistent/mcp-server" });
    let closed = 0;
    t.onclose = () => closed++;
    t.onerror = () => {};
    await expect(t.start()).rejects.toThrow(/ENOENT/);
    await t.close();
    expect(closed).toBe(1);
  });

  // Fails if the id heuristics read an id that is not the message's own (nested objects).
  it("idAtEdges finds a top-level id at the start or the end only", () => {
    expect(idAtEdges('{"jsonrpc":"2.0","id":7,"result":{"t":"', "")).toBe(7);
    expect(idAtEdges('{"id":"a\\"b","result":', "")).toBe('a"b');
    expect(idAtEdges('{"result":{"id":1', 'xx"},"jsonrpc":"2.0","id":12}')).toBe(12);
    expect(idAtEdges('{"result":{"id":1', '"x":{"id":5}}')).toBeUndefined();
    expect(idAtEdges('{"result":{"id":1', '"x":{"id":5}},"jsonrpc":"2.0"}')).toBeUndefined();
  });
});
