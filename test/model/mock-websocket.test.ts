/**
 * `tandem mock-model`'s WebSocket route (docs/mock-model.md), driven by a raw `ws` client: the
 * `previous_response_id` chain is per socket and only the last completed response continues,
 * unknown ids are `previous_response_not_found` without consuming a step, HTTP faults become
 * error frames, and `--log` gets the logical body while `<log>.frames` gets the frame.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type MockModel, startMockModel } from "../../src/mock-model/index.js";
import { tempDir } from "../helpers/index.js";

/** Opens a socket and collects frames; `until` resolves with the frames up to a terminal one. */
async function open(url: string) {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/responses`);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const inbox: any[] = [];
  let wake: (() => void) | undefined;
  ws.on("message", (d) => {
    inbox.push(JSON.parse(String(d)));
    wake?.();
  });
  const terminal = (f: any) => ["response.completed", "response.failed", "error"].includes(f.type);
  return {
    ws,
    async send(frame: unknown): Promise<any[]> {
      ws.send(JSON.stringify(frame));
      while (!inbox.some(terminal)) await new Promise<void>((r) => (wake = r));
      const at = inbox.findIndex(terminal);
      return inbox.splice(0, at + 1);
    },
  };
}

const create = (input: unknown[], extra: Record<string, unknown> = {}) => ({
  type: "response.create",
  model: "m",
  stream: true,
  ...extra,
  input,
});
const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });

describe("mock-model over WebSocket", () => {
  let mock: MockModel | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it("rebuilds the logical body from the chain and refuses ids it does not hold", async () => {
    const log = join(tempDir(), "requests.jsonl");
    mock = await startMockModel({
      script: {
        steps: [
          { output: [{ type: "message", text: "one" }] },
          { output: [{ type: "message", text: "one" }] },
          {
            output: [{ type: "message", text: "two" }],
            expect: { input_contains: ["first", "one", "second"] },
          },
        ],
      },
      log,
    });
    const a = await open(mock.url);
    const first = await a.send(create([user("first")]));
    expect(first.at(-1).type).toBe("response.completed");
    expect(first.at(-1).response.id).toBe("resp_1");

    // An id this socket never completed: an error frame, and no step is consumed or logged.
    const bad = await a.send(create([user("x")], { previous_response_id: "resp_nope" }));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({
      type: "error",
      status: 400,
      error: { code: "previous_response_not_found" },
    });
    expect(mock.stepIndex()).toBe(1);
    expect(mock.requests).toHaveLength(1);

    // The failed frame ended the chain (like the real service): resp_1 can no longer continue.
    const stale = await a.send(create([user("second")], { previous_response_id: "resp_1" }));
    expect(stale[0].error.code).toBe("previous_response_not_found");

    // A fresh chain: full request, then a continuation whose logical input is the whole history.
    await a.send(create([user("first")]));
    const second = await a.send(create([user("second")], { previous_response_id: "resp_2" }));
    // Fails if `expect` saw only the frame's tail (no "first"/"one"): the step would answer 400.
    expect(second.at(-1).type).toBe("response.completed");
    const logical = mock.requests.at(-1) as any;
    expect(Object.keys(logical)).toEqual(["model", "stream", "input"]);
    expect(logical.input).toEqual([
      user("first"),
      {
        type: "message",
        id: "msg_2_1",
        role: "assistant",
        content: [{ type: "output_text", text: "one", annotations: [] }],
      },
      user("second"),
    ]);
    // Another socket does not share the chain.
    const b = await open(mock.url);
    const other = await b.send(create([user("z")], { previous_response_id: "resp_3" }));
    expect(other[0].error.code).toBe("previous_response_not_found");

    const lines = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toEqual(logical);
    const frames = readFileSync(`${log}.frames`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(frames).toHaveLength(lines.length);
    expect(frames.at(-1).previous_response_id).toBe("resp_2");
    expect(frames.at(-1).input).toEqual([user("second")]);
  });

  it("answers an HTTP fault as an error frame with its status and retry-after", async () => {
    mock = await startMockModel({
      script: { steps: [{ fault: { type: "http", status: 429, retry_after_ms: 40 } }] },
    });
    const a = await open(mock.url);
    const [frame] = await a.send(create([user("hi")]));
    // Fails if the fault were dropped or sent as a bare close: the client could not classify it.
    expect(frame).toMatchObject({
      type: "error",
      status: 429,
      error: { code: "rate_limit_exceeded" },
      headers: { "retry-after-ms": "40" },
    });
  });
});
