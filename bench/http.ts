/**
 * Measurements for `npm run bench`: question round trip over HTTP and SSE fan-out (they drive the
 * broker and the bus behind the runtime's API, through the test accessor internals.testing.ts).
 * Each starts its own server on a loopback port 0 over the given runtime and closes it after.
 *
 * - `httpQuestionRoundTrip`: the broker asks; a client that follows `GET /event` sees
 *   `question.requested` and answers with `POST /question/:id/reply`; the time is from `ask` to
 *   the resolved outcome. One SSE connection and keep-alive fetches, like a real client.
 * - `sseFanout`: `subscribers` streams follow one thread while events are published to it in
 *   batches; the figure is events delivered to all subscribers per second.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { QuestionRequest } from "../src/protocol/questions.js";
import type { Runtime } from "../src/runtime/core.js";
import { runtimeInternals } from "../src/runtime/internals.testing.js";
import { startHttpServer } from "../src/surfaces/http/server.js";

const token = () => randomBytes(16).toString("hex");

function benchRequest(threadId: string, i: number): QuestionRequest {
  return {
    request_id: `q_bench_${i}_${randomBytes(4).toString("hex")}`,
    thread_id: threadId,
    turn_id: "turn_bench",
    call_id: `call_bench_${i}`,
    source: "model",
    questions: [
      {
        id: "pick",
        header: "Pick",
        prompt: "Pick one",
        kind: "single",
        options: [
          { label: "A", description: "" },
          { label: "B", description: "" },
        ],
        allow_other: true,
        secret: false,
      },
    ],
    policy: { type: "wait" },
    deadline: null,
    created_at: Date.now(),
  };
}

/** Reads an SSE body, calling `onData` with each frame's `data:` text. Resolves when it ends. */
async function readFrames(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let end = buf.indexOf("\n\n");
      while (end >= 0) {
        const frame = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const at = frame.indexOf("data: ");
        if (at >= 0) onData(frame.slice(at + 6));
        end = buf.indexOf("\n\n");
      }
    }
  } catch {
    /* aborted */
  }
}

/** Round-trip times in ms (the first `warmup` dropped). */
export async function httpQuestionRoundTrip(runtime: Runtime, n = 2_000, warmup = 200): Promise<number[]> {
  const secret = token();
  const server = await startHttpServer(runtime, { token: secret, port: 0 });
  const ctrl = new AbortController();
  const auth = { authorization: `Bearer ${secret}` };
  try {
    const thread = runtime.threads.start({ cwd: process.cwd() });
    const { registry, broker } = runtimeInternals(runtime);
    // Questions are asked outside any turn here: store the thread first (a turn would).
    registry.get(thread.id)?.persist();
    const res = await fetch(`${server.url}/event?responder=bench&thread=${thread.id}`, {
      headers: auth,
      signal: ctrl.signal,
    });
    // The outcome resolves before the reply's HTTP response is out; keep the last one to await it.
    let lastReply: Promise<unknown> = Promise.resolve();
    const reply = (requestId: string) => {
      lastReply = fetch(`${server.url}/question/${requestId}/reply`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ thread_id: thread.id, answers: { pick: { selected: ["A"] } } }),
      })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    };
    let ready!: () => void;
    const isReady = new Promise<void>((r) => {
      ready = r;
    });
    void readFrames(res.body!, (data) => {
      const msg = JSON.parse(data);
      if (msg.connection_id) ready();
      else if (msg.event?.type === "question.requested") reply(msg.event.request.request_id);
    });
    await isReady;
    const times: number[] = [];
    const signal = new AbortController().signal;
    for (let i = 0; i < n + warmup; i++) {
      const t0 = performance.now();
      await broker.ask(benchRequest(thread.id, i), signal);
      if (i >= warmup) times.push(performance.now() - t0);
    }
    await lastReply;
    return times;
  } finally {
    ctrl.abort();
    await server.close();
  }
}

/** Events delivered per second across `subscribers` SSE streams of one busy thread. */
export async function sseFanout(
  runtime: Runtime,
  opts: { subscribers?: number; events?: number; batch?: number } = {},
): Promise<{ eventsPerSecond: number; delivered: number; seconds: number }> {
  const subscribers = opts.subscribers ?? 100;
  const events = opts.events ?? 2_000;
  const batch = opts.batch ?? 50;
  const secret = token();
  const server = await startHttpServer(runtime, { token: secret, port: 0 });
  const ctrl = new AbortController();
  try {
    const thread = runtime.threads.start({ cwd: process.cwd() });
    const { bus } = runtimeInternals(runtime);
    let delivered = 0;
    let finished = 0;
    let allDone!: () => void;
    const done = new Promise<void>((r) => {
      allDone = r;
    });
    const readies: Promise<void>[] = [];
    for (let s = 0; s < subscribers; s++) {
      const res = await fetch(`${server.url}/event?thread=${thread.id}`, {
        headers: { authorization: `Bearer ${secret}` },
        signal: ctrl.signal,
      });
      let seen = 0;
      readies.push(
        new Promise<void>((ready) => {
          void readFrames(res.body!, (data) => {
            if (data.includes('"connection_id"')) return ready();
            delivered++;
            if (++seen === events && ++finished === subscribers) allDone();
          });
        }),
      );
    }
    await Promise.all(readies);
    const t0 = performance.now();
    for (let i = 0; i < events; i++) {
      bus.publish({
        type: "agent_message.delta",
        thread_id: thread.id,
        turn_id: "turn_bench",
        item_id: "msg_bench",
        delta: `token ${i} `,
      });
      if (i % batch === batch - 1) await new Promise((r) => setImmediate(r));
    }
    await done;
    const seconds = (performance.now() - t0) / 1000;
    return { eventsPerSecond: delivered / seconds, delivered, seconds };
  } finally {
    ctrl.abort();
    await server.close();
  }
}
