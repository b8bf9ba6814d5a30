/**
 * Minimal records for store tests: a thread, a turn and a pending question, every field set to
 * a plain constant so a test can name only the ids.
 */
import type { QuestionRequest } from "../../src/protocol/questions.js";
import type { ThreadRecord, TurnRecord } from "../../src/store/types.js";

export const threadRecord = (id: string): ThreadRecord => ({
  id,
  session_id: id,
  parent_id: null,
  created_at: 1,
  updated_at: 1,
  cwd: "/w",
  model: "m",
  mode: "default",
  title: "",
  status: "idle",
  settings: {},
});

export const turnRecord = (id: string, threadId: string): TurnRecord => ({
  id,
  thread_id: threadId,
  started_at: 1,
  ended_at: null,
  status: "running",
  usage: null,
  error: null,
});

/** A single-choice question with a timeout, on turn `u1`. */
export const pendingQuestion = (id: string, threadId: string): QuestionRequest => ({
  request_id: id,
  thread_id: threadId,
  turn_id: "u1",
  call_id: `call_${id}`,
  source: "model",
  questions: [
    {
      id: "go",
      header: "Go",
      prompt: "Go on?",
      kind: "single",
      options: [{ label: "Yes (Recommended)", description: "" }],
      allow_other: false,
      secret: false,
    },
  ],
  policy: { type: "timeout", ms: 5000, on_timeout: "recommended" },
  deadline: 5000,
  created_at: 1,
});
