/**
 * `tandem exec --json` (requirements S2: Codex `exec --json` JSONL) emits `reasoning` items and
 * `error` lines, asserted here as the whole stream, line for line. Real processes:
 * `./bin/tandem` (run `npm run build` first) against `tandem mock-model`.
 *
 * What produces them (src/surfaces/exec/jsonl.ts): a model `reasoning` output item with a
 * summary becomes `item.completed` `{type: "reasoning", text}`; every `error` event of the
 * turn loop becomes a top-level `{type: "error", message}` — a retried model failure (the
 * message says when it retries) and the final failure before `turn.failed`. (The `error`
 * *item* kind exists in the protocol but nothing emits it today.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const anyId = expect.stringMatching(/^item_\d+$/);

describe("tandem exec --json: reasoning and error lines (processes)", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  async function execJson(script: unknown) {
    await mock?.stop();
    mock = await startMockProcess(script);
    const r = await runTandem(["exec", "--json", "--cd", tempDir("tandem-cwd-"), "hi"], {
      env: { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url },
    });
    return { ...r, lines: jsonLines(r.stdout) };
  }

  // Fails if the JSONL mapper drops reasoning items (the `reasoning` case of `item()`
  // removed) or renames their fields; or if retry `error` events are not written (the
  // `error` case of `handle()` removed), or a retried failure ends the turn.
  it("a retried HTTP 500 is an error line, then the reasoning item and the answer", async () => {
    const r = await execJson({
      steps: [
        { fault: { type: "http", status: 500, message: "upstream exploded", retry_after_ms: 5 } },
        {
          output: [
            { type: "reasoning", summary: "Check the files first." },
            { type: "message", text: "All good." },
          ],
        },
      ],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.lines).toEqual([
      { type: "thread.started", thread_id: expect.any(String) },
      { type: "turn.started" },
      { type: "error", message: "upstream exploded; retrying in 5 ms" },
      { type: "item.completed", item: { id: anyId, type: "reasoning", text: "Check the files first." } },
      { type: "item.completed", item: { id: anyId, type: "agent_message", text: "All good." } },
      {
        type: "turn.completed",
        usage: {
          input_tokens: expect.any(Number),
          cached_input_tokens: 0,
          output_tokens: expect.any(Number),
          reasoning_output_tokens: expect.any(Number),
        },
      },
    ]);
    const [reasoning, message] = r.lines.filter((l) => l.type === "item.completed").map((l) => l.item.id);
    expect(reasoning).not.toBe(message);
    expect(r.lines[5].usage.reasoning_output_tokens).toBeGreaterThan(0);
  });

  // Fails if the final (non-retried) error event is not written before `turn.failed`, or
  // if a non-retryable failure is retried (an extra request: the script has one step, so a
  // retry would be answered "script exhausted" and change the message).
  it("a failure that is not retried: one error line, then turn.failed with the same message", async () => {
    const r = await execJson({
      steps: [{ fault: { type: "http", status: 400, message: "bad request from server" } }],
    });
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([
      { type: "thread.started", thread_id: expect.any(String) },
      { type: "turn.started" },
      { type: "error", message: "bad request from server" },
      { type: "turn.failed", error: { message: "bad request from server" } },
    ]);
  });
});
