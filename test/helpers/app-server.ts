/**
 * Shared pieces of the app-server end-to-end tests: scripts for the scripted model, the env that
 * points a server at it, and the Plan-mode question round trip every transport runs.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { Scripts } from "../../src/mock-model/index.js";
import type { TestClient } from "./app-server-client.js";
import type { MockProcess } from "./cli.js";
import { jsonLines } from "./cli.js";
import { tempDir } from "./index.js";

export const PLAN_MODE = { mode: "plan", settings: { model: "gpt-5.2-codex", reasoning_effort: "medium" } };

/** The answer every round trip gives, and what the model must then see. */
export const ANSWER = {
  answers: { stack: { answers: ["Rust"] }, name: { answers: ["demo-app", "user_note: keep it short"] } },
};
export const ANSWER_SEEN = ['\\"selected\\":[\\"Rust\\"]', "demo-app", "keep it short"];

/**
 * The question demo (Plan mode: two questions, then a command, then a message) whose second
 * request must carry the typed answer. `hangAfterQuestion` replaces the rest with a model that
 * never answers (for interrupt tests).
 */
export function questionScript(opts: { hangAfterQuestion?: boolean } = {}): Script {
  const demo = Scripts.questionDemo();
  const [ask, write, report] = demo.steps;
  if (opts.hangAfterQuestion) return { ...demo, steps: [ask, { fault: { type: "hang" } }] };
  return {
    ...demo,
    steps: [ask, { ...write, expect: { input_contains: ["demo-app", "keep it short", "Rust"] } }, report],
  };
}

export function serverEnv(mock: MockProcess, home = tempDir("tandem-home-")): Record<string, string> {
  return { TANDEM_HOME: home, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: mock.url };
}

/** Starts a Plan-mode turn on a new thread; returns ids and the first requestUserInput. */
export async function startPlanTurn(client: TestClient, cwd = tempDir("tandem-cwd-")) {
  const started = await client.request("thread/start", { cwd });
  const threadId: string = started.thread.id;
  const turn = await client.request("turn/start", {
    threadId,
    input: [{ type: "text", text: "Set up the demo project" }],
    collaborationMode: PLAN_MODE,
  });
  const question = await client.serverRequest("item/tool/requestUserInput", (p) => p.threadId === threadId);
  return { threadId, turnId: turn.turn.id as string, question, cwd };
}

/** Asserts the question request looks like the demo's two questions. */
export function expectDemoQuestion(question: Record<string, any>, threadId: string, turnId: string): void {
  expect(question.id).toMatch(/^q_/);
  expect(question.params).toMatchObject({
    threadId,
    turnId,
    itemId: "call_q01",
    isBlocking: true,
    autoResolutionMs: null,
    questions: [
      {
        id: "stack",
        header: "Stack",
        isOther: true,
        isSecret: false,
        options: [{ label: "TypeScript (Recommended)" }, { label: "Rust" }],
      },
      { id: "name", header: "Name", question: "What should the project be called?", options: null },
    ],
  });
}

/** The request bodies the scripted model received. */
export function modelRequests(mock: MockProcess): any[] {
  return jsonLines(readFileSync(mock.log, "utf8"));
}

/** The function_call_output the model received for the question call. */
export function questionOutput(mock: MockProcess): string {
  const second = modelRequests(mock)[1];
  const out = second?.input.find((i: any) => i.type === "function_call_output" && i.call_id === "call_q01");
  return out?.output ?? "";
}

/** Answers the question, then checks resolved → turn completed → the model saw the answer. */
export async function answerAndFinish(client: TestClient, mock: MockProcess, question: Record<string, any>) {
  const threadId = question.params.threadId;
  client.respond(question, ANSWER);
  const resolved = await client.notification("serverRequest/resolved", (p) => p.requestId === question.id);
  expect(resolved).toEqual({ threadId, requestId: question.id });
  const done = await client.notification("turn/completed", (p) => p.threadId === threadId);
  expect(done.turn.status).toBe("completed");
  const methods = client.methods();
  expect(methods.indexOf("serverRequest/resolved")).toBeLessThan(methods.lastIndexOf("turn/completed"));
  const output = JSON.parse(questionOutput(mock));
  expect(output).toMatchObject({
    status: "answered",
    answers: { stack: { selected: ["Rust"] }, name: { other: "demo-app", note: "keep it short" } },
  });
  return done;
}
