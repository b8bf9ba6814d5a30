/**
 * Headless questions (README "Use it"), through `./bin/tandem` against `tandem mock-model`:
 * `--questions defer` offers request_user_input in Default mode too, the choice is stored with
 * the thread so `exec resume` keeps deferring, `--json` on resume starts with `thread.started`,
 * a run stopped on a question ends with a `turn.failed` the Codex SDK reads, and
 * `--answer 'id=text -- note'` carries a note on a free-text question.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const ask = (callId: string, question: Record<string, unknown>) => ({
  type: "function_call",
  name: "request_user_input",
  call_id: callId,
  arguments: { questions: [question] },
});

describe("tandem exec --questions defer in Default mode (processes)", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  it("defers in Default mode, keeps deferring on resume, ends JSONL with turn.failed, keeps notes", async () => {
    mock = await startMockProcess({
      steps: [
        { output: [ask("call_name", { id: "name", header: "Name", question: "Project name?" })] },
        {
          output: [
            ask("call_stack", {
              id: "stack",
              header: "Stack",
              question: "Which stack?",
              options: [
                { label: "TypeScript", description: "node" },
                { label: "Rust", description: "cargo" },
              ],
            }),
          ],
        },
        { output: [{ type: "message", text: "Rust it is." }] },
      ],
    });
    const env = { TANDEM_HOME: tempDir("tandem-home-"), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };

    // Fails if request_user_input is refused in Default mode ("unavailable in Default mode"):
    // the turn would go on (exit 0) instead of deferring (exit 3).
    const first = await runTandem(["exec", "--json", "--questions", "defer", "make a project"], { env });
    expect(first.code, first.stderr).toBe(3);
    const lines1 = jsonLines(first.stdout);
    const q1 = lines1.find((l) => l.type === "question.requested");
    expect(q1.questions[0].id).toBe("name");
    // Fails if a deferred run ends without a terminal event the Codex SDK parses
    // (TurnFailedEvent: {type: "turn.failed", error: {message}}) naming the request.
    const end1 = lines1.at(-1);
    expect(end1.type).toBe("turn.failed");
    expect(end1.error.message).toContain("input needed");
    expect(end1.error.message).toContain(q1.request_id);
    const threadId: string = q1.thread_id;

    // No --questions on resume: the stored choice still defers the next question.
    const second = await runTandem(
      ["exec", "resume", threadId, "--json", "--answer", "name=demo-app -- keep it short"],
      { env },
    );
    expect(second.code, second.stderr).toBe(3);
    const lines2 = jsonLines(second.stdout);
    // Fails if resume prints turn.started (the resumed turn) before thread.started.
    expect(lines2[0]).toEqual({ type: "thread.started", thread_id: threadId });
    expect(lines2.findIndex((l) => l.type === "turn.started")).toBeGreaterThan(0);
    const q2 = lines2.find((l) => l.type === "question.requested");
    // Fails if the resumed thread forgets --questions ("disabled in this configuration").
    expect(q2?.questions[0].id).toBe("stack");
    expect(lines2.at(-1)).toMatchObject({ type: "turn.failed" });
    expect(lines2.at(-1).error.message).toContain(q2.request_id);

    const requests = jsonLines(readFileSync(mock.log, "utf8"));
    const answer = requests[1].input.find(
      (i: { type: string; call_id?: string }) =>
        i.type === "function_call_output" && i.call_id === "call_name",
    );
    // Fails if " -- note" is kept in the free text instead of becoming the answer's note.
    expect(JSON.parse(answer.output).answers.name).toEqual({
      selected: [],
      other: "demo-app",
      note: "keep it short",
    });
    expect(JSON.stringify(requests)).not.toContain("unavailable in Default mode");
    expect(JSON.stringify(requests)).not.toContain("disabled in this configuration");

    const third = await runTandem(["exec", "resume", threadId, "--json", "--answer", "stack=Rust"], { env });
    expect(third.code, third.stderr).toBe(0);
    expect(jsonLines(third.stdout).at(-1).type).toBe("turn.completed");
  });
});
