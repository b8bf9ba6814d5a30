/**
 * `tandem exec resume ID --answer-json '{"stack":{"selected":["Rust"]}}'` (README "Questions",
 * requirements Q12): a question deferred by `exec --mode plan --questions defer` (exit 3) is answered
 * with a typed answer and the model receives exactly that answer; answers that cannot be used
 * are a clear error, exit 2, and change nothing: the question stays pending, the thread's
 * history is as it was, and the model is not called. Real processes: `./bin/tandem` (run
 * `npm run build` first) against `tandem mock-model`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const ASK = {
  type: "function_call",
  name: "request_user_input",
  call_id: "call_ask",
  arguments: {
    questions: [
      {
        id: "stack",
        header: "Stack",
        question: "Which stack?",
        options: [
          { label: "TypeScript", description: "node" },
          { label: "Rust", description: "cargo" },
        ],
      },
    ],
  },
};

describe("tandem exec resume --answer-json (processes)", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  /** Defers the question (exit 3); returns the thread id, the env and a store snapshot reader. */
  async function deferred() {
    mock = await startMockProcess({
      steps: [{ output: [ASK] }, { output: [{ type: "message", text: "Rust it is." }] }],
    });
    const home = tempDir("tandem-home-");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const first = await runTandem(
      ["exec", "--json", "--mode", "plan", "--questions", "defer", "--cd", tempDir("tandem-cwd-"), "pick"],
      { env },
    );
    expect(first.code, first.stderr).toBe(3);
    const q = jsonLines(first.stdout).find((l) => l.type === "question.requested");
    expect(q.questions.map((x: { id: string }) => x.id)).toEqual(["stack"]);
    const threadId: string = q.thread_id;
    /** The thread's history, its pending questions and the requests the model got. */
    const snapshot = () => {
      const store = openStore(join(home, "state.db"));
      try {
        return {
          items: store.loadItems(threadId).map((s) => s.item),
          pending: store.pendingQuestions(threadId).map((p) => p.request_id),
          requests: jsonLines(readFileSync(mock!.log, "utf8")).length,
        };
      } finally {
        store.close();
      }
    };
    return { threadId, env, snapshot, requestId: q.request_id as string };
  }

  // Fails if --answer-json is not parsed into the reply (e.g. `collectAnswers` drops
  // `given.typed`: the run then finds no answer and defers again, exit 3), or if the typed
  // answer is altered on the way (the model must get `selected: ["Rust"]` and nothing else).
  it("answers the deferred question; the model gets the typed answer", async () => {
    const { threadId, env, snapshot, requestId } = await deferred();
    expect(snapshot().pending).toEqual([requestId]);
    const r = await runTandem(
      ["exec", "resume", threadId, "--json", "--answer-json", '{"stack":{"selected":["Rust"]}}'],
      { env },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events[events.length - 1].type).toBe("turn.completed");
    const log = jsonLines(readFileSync(mock!.log, "utf8"));
    expect(log).toHaveLength(2);
    const out = log[1].input.find((i: any) => i.type === "function_call_output" && i.call_id === "call_ask");
    expect(JSON.parse(out.output)).toEqual({
      status: "answered",
      answers: { stack: { selected: ["Rust"] } },
      unanswered: [],
    });
    expect(snapshot().pending).toEqual([]);
  });

  // Fails if a malformed or ill-typed --answer-json is not refused before anything runs
  // (e.g. `parseTyped` falls back to `{}` on a parse error: the run then re-defers, exit 3),
  // if the message stops naming the flag, or if a refused answer is recorded or sent.
  it("malformed JSON, an ill-typed answer, a label that is no option: a clear error, exit 2, nothing recorded", async () => {
    const { threadId, env, snapshot, requestId } = await deferred();
    const before = snapshot();
    expect(before.pending).toEqual([requestId]);
    const cases: Array<[string, RegExp]> = [
      ['{"stack":{"selected":["Rust"]}', /^tandem exec: --answer-json is not valid JSON: /],
      ['{"stack":{"selected":"Rust"}}', /^tandem exec: --answer-json: .*expected array/],
      ['{"stack":{"selected":["Go"]}}', /^tandem exec: question "stack": "Go" is not an option/],
    ];
    for (const [json, message] of cases) {
      const r = await runTandem(["exec", "resume", threadId, "--json", "--answer-json", json], { env });
      expect(r.code, `${json}: ${r.stderr}`).toBe(2);
      expect(r.stderr.split("\n")[0], json).toMatch(message);
      expect(snapshot(), json).toEqual(before);
    }
  });

  // Fails if an answer id that no pending question has is ignored (`unknownAnswerIds` not
  // called: `{"stak": …}` then answers nothing and the run defers again, exit 3), if the message
  // stops naming the typo and the known ids, or if anything is recorded or sent to the model —
  // also when the typo comes with a valid answer for the real question.
  it("an unknown question id: a clear error naming it and the known ids, exit 2, nothing recorded", async () => {
    const { threadId, env, snapshot } = await deferred();
    const before = snapshot();
    for (const args of [
      ["--answer-json", '{"stak":{"selected":["Rust"]}}'],
      ["--answer-json", '{"stack":{"selected":["Rust"]},"stak":{"selected":["Rust"]}}'],
      ["--answer", "stak=Rust"],
    ]) {
      const r = await runTandem(["exec", "resume", threadId, "--json", ...args], { env });
      expect(r.code, `${args}: ${r.stderr}`).toBe(2);
      const flag = args[0] === "--answer" ? "--answer" : "--answer-json";
      expect(r.stderr).toBe(
        `tandem exec: ${flag}: "stak" matches no pending question; the pending question ids are "stack"\n`,
      );
      expect(snapshot(), String(args)).toEqual(before);
    }
  });
});
