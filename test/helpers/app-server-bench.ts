/**
 * Benchmark: question round trip over JSON-RPC stdio (requirements §8, README "Answer from anywhere"), for
 * `bench/run.ts` to call (`await questionRoundTripStdio()`), or run alone with
 * `npm run build && npx tsx test/app-server-bench.ts`.
 *
 * A real `tandem app-server` process over stdio, the scripted model in this process, one Plan-mode
 * turn per sample. Measured on the client: from receiving `item/tool/requestUserInput` to receiving
 * `serverRequest/resolved` after answering — client → pipe → parse → broker settle → pipe → client.
 * The model's HTTP round trips are outside the measured span.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fmt, line, median, quantile } from "../../bench/stats.js";
import { startMockModel } from "../../src/mock-model/index.js";
import { appServerCommand } from "./app-server-client.js";
import { tempDir } from "./index.js";

const ASK = {
  output: [
    {
      type: "function_call" as const,
      name: "request_user_input",
      arguments: {
        questions: [
          {
            id: "pick",
            header: "Pick",
            question: "Which one?",
            options: [
              { label: "A", description: "first" },
              { label: "B", description: "second" },
            ],
          },
        ],
      },
    },
  ],
};

export async function questionRoundTripStdio(n = 300): Promise<void> {
  const model = await startMockModel({
    script: { loop: true, steps: [ASK, { output: [{ type: "message", text: "ok" }] }] },
  });
  const [cmd, ...pre] = appServerCommand();
  const env = {
    ...process.env,
    TANDEM_HOME: tempDir("tandem-bench-"),
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: model.url,
  };
  const proc = spawn(cmd, pre, { env, stdio: ["pipe", "pipe", "inherit"] });
  const send = (m: unknown) => proc.stdin.write(`${JSON.stringify(m)}\n`);
  let waiting: { pred: (m: any) => boolean; resolve: (m: any) => void } | undefined;
  let onQuestion: ((m: any) => void) | undefined;
  createInterface({ input: proc.stdout }).on("line", (text) => {
    const m = JSON.parse(text);
    if (m.method === "item/tool/requestUserInput") onQuestion?.(m);
    if (waiting?.pred(m)) {
      const w = waiting;
      waiting = undefined;
      w.resolve(m);
    }
  });
  const next = (pred: (m: any) => boolean) => new Promise<any>((resolve) => (waiting = { pred, resolve }));

  send({ id: 1, method: "initialize", params: { clientInfo: { name: "bench", version: "1" } } });
  await next((m) => m.id === 1);
  send({ id: 2, method: "thread/start", params: { cwd: tempDir("tandem-bench-cwd-") } });
  const threadId = (await next((m) => m.id === 2)).result.thread.id;
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    let t0 = 0;
    onQuestion = (q) => {
      t0 = performance.now();
      send({ id: q.id, result: { answers: { pick: { answers: ["A"] } } } });
    };
    const resolved = next((m) => m.method === "serverRequest/resolved");
    send({
      id: 100 + i,
      method: "turn/start",
      params: {
        threadId,
        input: [{ type: "text", text: "go" }],
        collaborationMode: { mode: "plan", settings: { model: "m" } },
      },
    });
    await resolved;
    times.push(performance.now() - t0);
    await next((m) => m.method === "turn/completed");
  }
  proc.stdin.end();
  await new Promise((r) => proc.once("exit", r));
  await model.close();
  const warm = times.slice(Math.min(20, Math.floor(n / 10)));
  line(
    `question round trip over JSON-RPC stdio (n=${warm.length})`,
    `p50 ${fmt(median(warm))} p99 ${fmt(quantile(warm, 0.99))}`,
    "p50 < 2 ms",
  );
}

if (process.argv[1]?.endsWith("app-server-bench.ts")) await questionRoundTripStdio();
