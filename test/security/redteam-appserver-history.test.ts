/**
 * Red team, resumed history of answered questions (app-server question-history.ts, used by
 * thread/read, thread/resume and thread/turns/list): a secret question's answer is never shown,
 * even if the stored outcome were not redacted (selected option, free text, note), in a request
 * mixing secret and plain questions, and in a timed-out request's partial answers; a plain
 * question whose option merely looks like a secret is shown as chosen. Already safe; a guard.
 */
import { describe, expect, it } from "vitest";
import type { StoredQuestion } from "../../src/protocol/threads.js";
import { questionCallItem } from "../../src/surfaces/app-server/question-history.js";

const q = (id: string, secret: boolean, options: string[] = []) => ({
  id,
  header: id,
  prompt: `${id}?`,
  kind: "single" as const,
  options: options.map((label) => ({ label, description: "" })),
  allow_other: true,
  secret,
});

function stored(outcome: StoredQuestion["outcome"]): StoredQuestion {
  return {
    request: {
      request_id: "r1",
      thread_id: "t1",
      turn_id: "u1",
      call_id: "c1",
      source: "model",
      questions: [q("token", true, ["sk-live-OPTION"]), q("plain", false, ["sk-looks-secret", "no"])],
      policy: { kind: "wait" },
      deadline: null,
      created_at: 1,
    },
    outcome,
  } as unknown as StoredQuestion;
}

describe("red team: resumed question history masks secret answers", () => {
  // Fails if any of the secret question's answer parts reach the item's text.
  it("masks every part of a secret answer, answered or timed out; shows plain answers", () => {
    const answers = {
      token: { selected: ["sk-live-OPTION"], other: "sk-live-TYPED", note: "sk-live-NOTE" },
      plain: { selected: ["sk-looks-secret"], other: "visible" },
    };
    for (const outcome of [
      { status: "answered", answers, unanswered: [], responder: { kind: "user" } },
      { status: "timed_out", policy: { kind: "wait" }, answers, unanswered: [] },
    ] as StoredQuestion["outcome"][]) {
      const item = questionCallItem("c1", stored(outcome)) as any;
      const text: string = item.contentItems[0].text;
      expect(text).not.toMatch(/sk-live/);
      expect(text).toContain("token? → ••••, •••• (note: ••••)");
      expect(text).toContain("plain? → sk-looks-secret, visible");
    }
  });
});
