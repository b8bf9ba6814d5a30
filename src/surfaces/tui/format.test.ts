import { describe, expect, it } from "vitest";
import { REDACTED } from "../../protocol/questions.js";
import { answerRows, compact, fold, MASK, outcomeTitle, secondsLeft } from "./format.js";
import { enqueue, pendingOf } from "./queue.js";
import { nameQuestion, requestOf, stackQuestion, tokenQuestion } from "./test-fixtures.js";

describe("format", () => {
  it("folds long output to head and tail", () => {
    const text = Array.from({ length: 30 }, (_, i) => `l${i}`).join("\n");
    expect(fold(text)).toEqual(["l0", "l1", "l2", "l3", "… 22 more lines", "l26", "l27", "l28", "l29"]);
    expect(fold("a\nb\n")).toEqual(["a", "b"]);
    expect(fold("")).toEqual([]);
  });

  it("formats numbers and countdowns", () => {
    expect(compact(999)).toBe("999");
    expect(compact(1234)).toBe("1.2k");
    expect(compact(2_500_000)).toBe("2.5M");
    expect(secondsLeft(10_500, 1_000)).toBe(10);
    expect(secondsLeft(0, 1_000)).toBe(0);
  });

  it("shows answers with secrets masked, and each outcome's headline", () => {
    const request = requestOf([stackQuestion, nameQuestion, tokenQuestion]);
    const rows = answerRows(request, {
      status: "answered",
      answers: {
        stack: { selected: ["Rust"], note: "fast" },
        token: { selected: [], other: REDACTED },
      },
      unanswered: ["name"],
      responder: { kind: "http" },
    });
    expect(rows.map((r) => r.answer)).toEqual(["Rust · note: fast", "(unanswered)", MASK]);
    expect(outcomeTitle({ status: "declined", responder: { kind: "tui" } })).toBe("declined by tui");
    expect(
      outcomeTitle({
        status: "timed_out",
        policy: { type: "timeout", ms: 1, on_timeout: "recommended" },
        answers: {},
        unanswered: [],
      }),
    ).toBe("timed out (policy: recommended)");
  });

  it("queues approvals before questions, FIFO within a kind", () => {
    const approval = (id: string) =>
      pendingOf({
        ...requestOf([nameQuestion], { id }),
        approval: {
          kind: "exec",
          reason: "writes outside the workspace",
          command: "rm -rf /tmp/x",
          cwd: "/w",
        },
      });
    let q = enqueue([], pendingOf(requestOf([nameQuestion], { id: "q1" })));
    q = enqueue(q, pendingOf(requestOf([nameQuestion], { id: "q2" })));
    q = enqueue(q, approval("a1"));
    q = enqueue(q, approval("a2"));
    expect(q.map((p) => `${p.kind}:${p.request.request_id}`)).toEqual([
      "approval:a1",
      "approval:a2",
      "question:q1",
      "question:q2",
    ]);
  });
});
