/**
 * The round-trip floor beside the loop-overhead figures (core.ts): bare `node:http` (or `ws`)
 * in this process sends request bodies shaped and sized like the loop's to a bare server in a
 * child process that parses each body and answers with an SSE body (or frames) of the scripted
 * model's size. Measured as the loop's model time is: request written → first answer byte.
 * Requests are spaced like the loop's (a few ms apart), so caches are as cold as there.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { median } from "./stats.js";

const SERVER = `
const http = require("node:http");
const answer = ("event: response.output_text.delta\\ndata: " + JSON.stringify({ type: "x", delta: "y".repeat(150) }) + "\\n\\n").repeat(12);
const server = http.createServer({ noDelay: true, keepAlive: true }, (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(answer);
  });
});
const { WebSocketServer } = require(process.argv[1]);
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on("connection", (ws) => ws.on("message", (d) => {
  JSON.parse(String(d));
  for (let i = 0; i < 12; i++) ws.send(JSON.stringify({ type: "x", delta: "y".repeat(150) }));
}));
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

/** A body like the loop's n-th request: 12 KB of tools, then 2n history items. */
function bodyAt(n: number, wire: "http" | "websocket"): string {
  const input: unknown[] = [];
  for (let i = 0; i < n; i++) {
    input.push({
      type: "function_call",
      name: "exec_command",
      arguments: '{"cmd":"true"}',
      call_id: `c${i}`,
    });
    input.push({
      type: "function_call_output",
      call_id: `c${i}`,
      output: "Chunk ID: 1a2b3c\nWall time: 0.0031 seconds\nProcess exited with code 0\nOutput:\n",
    });
  }
  // Over WebSocket only the new tail travels (previous_response_id); HTTP sends it all.
  const sentInput = wire === "http" ? input : input.slice(-1);
  return JSON.stringify({ model: "m", stream: true, input: sentInput, tools: [{ d: "t".repeat(12_000) }] });
}

/** Median request-written → first-byte time over `rounds` requests, in ms. */
export async function roundTripFloor(wire: "http" | "websocket", rounds: number): Promise<number> {
  const wsPath = createRequire(import.meta.url).resolve("ws");
  const child = spawn(process.execPath, ["-e", SERVER, wsPath], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) =>
    child.stdout.once("data", (d) => resolve(Number(String(d)))),
  );
  const times: number[] = [];
  try {
    if (wire === "http") {
      const agent = new http.Agent({ keepAlive: true });
      for (let i = 1; i <= rounds; i++) {
        const body = bodyAt(i, wire);
        times.push(
          await new Promise<number>((resolve, reject) => {
            let sent = 0;
            const req = http.request(
              {
                port,
                host: "127.0.0.1",
                method: "POST",
                agent,
                headers: { "content-length": Buffer.byteLength(body) },
              },
              (res) => {
                res.once("data", () => resolve(sent ? performance.now() - sent : Number.NaN));
                res.resume();
              },
            );
            req.on("socket", (s) => s.setNoDelay(true));
            req.on("error", reject);
            req.end(body, () => {
              sent = performance.now();
            });
          }),
        );
        await sleep(4);
      }
      agent.destroy();
    } else {
      const { default: WS } = await import("ws");
      const ws = new WS(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false });
      await new Promise((r) => ws.once("open", r));
      for (let i = 1; i <= rounds; i++) {
        const body = bodyAt(i, wire);
        times.push(
          await new Promise<number>((resolve) => {
            let sent = 0;
            ws.once("message", () => resolve(sent ? performance.now() - sent : Number.NaN));
            ws.send(body, () => {
              sent = performance.now();
            });
          }),
        );
        await sleep(4);
      }
      ws.close();
    }
  } finally {
    child.kill();
  }
  return median(times.slice(10).filter((t) => !Number.isNaN(t)));
}
