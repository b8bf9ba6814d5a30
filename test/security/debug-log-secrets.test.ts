/**
 * Secrets never reach the debug log (README "Debugging"), even at TANDEM_LOG=trace where the whole
 * wire is written. Real processes: `tandem app-server` over stdio against `tandem mock-model`.
 *
 * The turn carries both kinds of secret through the wire for real: the user's answer to a
 * `secret: true` question arrives in a JSON-RPC frame (before the broker knows the value), and the
 * provider's API key comes back inside a 500 error body (as real providers quote a bad key). The
 * test asserts the log holds the wire — the answer frame, the error body, both request bodies, the
 * command's output as the model got it, the question's life cycle — and neither value, and that the
 * secret was really answered and used (the command wrote it to a file).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PLAN_MODE } from "../helpers/app-server.js";
import { processStdio } from "../helpers/app-server-client.js";
import { jsonLines, type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const SECRET = "pw-Xq7!-9d2e4c1b-secret";
const API_KEY = "sk-live-APIKEY-4b7f90aa21";

const script = {
  steps: [
    {
      output: [
        {
          type: "function_call",
          name: "request_user_input",
          call_id: "call_key",
          arguments: {
            questions: [{ id: "api_key", header: "Key", question: "Paste the deploy key", secret: true }],
          },
        },
      ],
    },
    // The provider refuses the key, quoting it (retried: 5xx).
    { fault: { type: "http", status: 500, message: `Incorrect API key provided: ${API_KEY}.` } },
    {
      output: [
        {
          type: "function_call",
          name: "exec_command",
          call_id: "call_use",
          arguments: {
            cmd: 'printf %s "$TANDEM_SECRET_API_KEY" > key.txt; echo "key=$TANDEM_SECRET_API_KEY"',
          },
        },
      ],
    },
    { output: [{ type: "message", text: "Stored the key." }] },
  ],
};

describe("the debug log at trace holds the wire and no secret", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  it("app-server over stdio: a secret answer and the API key are masked; frames, bodies and the question's life cycle are there", async () => {
    mock = await startMockProcess(script);
    const home = tempDir("tandem-log-home-");
    // The key sits in a variable whose name does not say it holds one, so only the model client's
    // registration can mask it (the log also masks every *KEY*/*TOKEN*/*SECRET* variable's value).
    writeFileSync(
      join(home, "config.toml"),
      [
        'sandbox_mode = "danger-full-access"',
        "retry_base_ms = 0",
        'model_provider = "local"',
        "[model_providers.local]",
        `base_url = ${JSON.stringify(mock.url)}`,
        'env_key = "PROVIDER_ACCESS"',
      ].join("\n"),
    );
    const cwd = tempDir("tandem-log-cwd-");
    let questionId: string | number = "";
    const s = processStdio({
      TANDEM_HOME: home,
      TANDEM_LOG: "trace",
      PROVIDER_ACCESS: API_KEY,
    });
    try {
      await s.client.initialize();
      const threadId = (await s.client.request("thread/start", { cwd })).thread.id;
      await s.client.request("turn/start", {
        threadId,
        input: [{ type: "text", text: "Deploy it" }],
        collaborationMode: PLAN_MODE,
      });
      const question = await s.client.serverRequest("item/tool/requestUserInput");
      questionId = question.id;
      s.client.respond(question, { answers: { api_key: { answers: [SECRET] } } });
      const done = await s.client.notification("turn/completed", () => true, 30_000);
      expect(done.turn.status).toBe("completed");
      // The secret was really answered and used: the command got it.
      expect(readFileSync(join(cwd, "key.txt"), "utf8")).toBe(SECRET);
    } finally {
      expect(await s.close()).toBe(0);
    }

    const files = readdirSync(join(home, "log"));
    expect(files).toHaveLength(1);
    const text = readFileSync(join(home, "log", files[0]), "utf8");
    for (const [what, value] of [
      ["the secret answer", SECRET],
      ["the API key", API_KEY],
      ["part of the secret", "9d2e4c1b"],
      ["part of the API key", "4b7f90aa21"],
    ])
      expect(text.includes(value), `${what} is in the debug log`).toBe(false);

    const recs = jsonLines(text);
    const frames = recs.filter((r) => r.area === "app-server");
    // The answer's frame is logged, its value redacted by the question's id.
    const answerFrame = frames.find((r) => r.dir === "in" && r.frame?.id === questionId);
    expect(answerFrame?.frame).toEqual({ id: questionId, result: { answers: { api_key: "[redacted]" } } });
    const out = frames.filter((r) => r.dir === "out").map((r) => r.frame.method);
    expect(out).toContain("item/tool/requestUserInput");
    expect(out).toContain("turn/completed");
    expect(frames.some((r) => r.dir === "in" && r.frame.method === "turn/start")).toBe(true);

    // The 500 and its body, with the key masked where the provider quoted it; then a retry.
    const failed = recs.find((r) => r.msg === "error body" && r.status === 500);
    expect(failed?.error).toContain("Incorrect API key provided: [redacted].");
    expect(recs.some((r) => r.area === "model" && r.msg === "retry" && r.attempt === 1)).toBe(true);

    // Request bodies: the command's output went to the model masked by the secret store.
    const bodies = recs.filter((r) => r.area === "model" && r.msg === "request").map((r) => r.body);
    expect(bodies).toHaveLength(4);
    const output = bodies[3].input.find(
      (i: any) => i.type === "function_call_output" && i.call_id === "call_use",
    );
    expect(output.output).toContain("key=[redacted secret]");

    // The question's life cycle: asked (marked secret), answered by the app-server client.
    const q = recs.filter((r) => r.area === "question");
    expect(q.map((r) => r.msg)).toEqual(["asked", "answered"]);
    expect(q[0].questions).toEqual([{ id: "api_key", kind: "text", secret: true }]);
    expect(q[1]).toMatchObject({ answered: ["api_key"], responder: { kind: "app-server" } });
    expect(q[1].outcome.answers).toEqual({ api_key: "[redacted]" });
  });
});
