/**
 * The app server over a real runtime (SQLite, scripted model over HTTP) with an in-memory stdio
 * pair: responder registration (Q3) follows attachment and disconnects, and a disconnect leaves
 * questions pending (Q11).
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { questionScript } from "../../../test/helpers/app-server.js";
import { TestClient } from "../../../test/helpers/app-server-client.js";
import { type Harness, harness } from "../../../test/helpers/index.js";
import { runtimeInternals } from "../../runtime/internals.testing.js";
import { AppServer } from "./server.js";
import { StdioTransport } from "./transport.js";

async function client(server: AppServer, name: string) {
  const input = new PassThrough();
  const output = new PassThrough();
  const c = new TestClient(name, (text) => input.write(`${text}\n`));
  let buf = "";
  output.on("data", (d) => {
    buf += d;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      c.receive(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  await server.connect(new StdioTransport(input, output));
  await c.initialize();
  return { client: c, disconnect: () => input.end() };
}

describe("AppServer", () => {
  let h: Harness | undefined;
  let server: AppServer | undefined;
  afterEach(async () => {
    await server?.close();
    await h?.close();
    server = h = undefined;
  });

  it("attaches connections as responders and detaches them on disconnect; questions stay pending", async () => {
    h = await harness({ script: questionScript() });
    server = new AppServer({ runtime: h.runtime, version: "0.0.0-test", home: h.home, log: () => {} });
    const a = await client(server, "a");
    const started = await a.client.request("thread/start", { cwd: h.cwd });
    const threadId = started.thread.id;
    expect(runtimeInternals(h.runtime).responders.list(threadId)).toEqual([
      { kind: "app-server", id: "conn_1" },
    ]);
    await a.client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "go" }],
      collaborationMode: { mode: "plan", settings: { model: "m" } },
    });
    const question = await a.client.serverRequest("item/tool/requestUserInput");

    a.disconnect();
    for (let i = 0; i < 100 && server.sessionCount > 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(server.sessionCount).toBe(0);
    expect(runtimeInternals(h.runtime).responders.has(threadId)).toBe(false);
    expect(h.runtime.questions.list({ threadId }).map((q) => q.request_id)).toEqual([question.id]);
    expect(a.client.violations).toEqual([]);
  });

  it("a thread no client is attached to has no responder: the model is told no one can answer", async () => {
    h = await harness({ script: questionScript() });
    server = new AppServer({ runtime: h.runtime, version: "0.0.0-test", home: h.home, log: () => {} });
    const watcher = await client(server, "watcher");
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    const turn = thread.startTurn("go", { options: { mode: "plan" } });
    // The scripted model's next step expects the answer; with no responder it gets `unavailable`.
    await turn.done;
    const output = (h.model.requests[1] as any)?.input.find((i: any) => i.call_id === "call_q01" && i.output);
    expect(JSON.parse(output.output)).toMatchObject({ status: "unavailable" });
    expect(watcher.client.serverRequests).toEqual([]);
    expect(watcher.client.violations).toEqual([]);
  });
});
