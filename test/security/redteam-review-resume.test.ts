/**
 * Red team: a review turn stays read-only when it is continued by a later process. The attack: in
 * a review (REVIEW_TURN) the model asks a question (request_user_input is allowed there), the
 * process stops with the question pending, the next process re-asks it and continues the turn —
 * and after the answer the model patches the workspace and runs a writing command. The continued
 * turn must keep the review's options (read-only sandbox, approvals never, read-only tools).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Script, startMockModel } from "../../src/mock-model/index.js";
import { REVIEW_TURN, reviewPrompt, reviewRequestLine } from "../../src/protocol/review.js";
import { createRuntime } from "../../src/runtime/create.js";
import { call, say } from "../helpers/agent-scripts.js";
import { tempDir } from "../helpers/index.js";

const ASK = call(
  "request_user_input",
  {
    questions: [
      {
        id: "go",
        header: "Go",
        question: "Shall I go on?",
        options: [
          { label: "Yes (Recommended)", description: "go" },
          { label: "No", description: "stop" },
        ],
      },
    ],
  },
  "ask",
);

describe("red team: a review continued after a restart stays read-only", () => {
  for (const where of ["/tmp", "/var/tmp"])
    it(`a pending question re-asked by the next process does not lift the review's limits (${where})`, async () => {
      const cwd = mkdtempSync(join(where, "tandem-review-resume-"));
      const home = tempDir("tandem-home-");
      writeFileSync(join(cwd, "keep.txt"), "original\n");
      const patch = [
        "*** Begin Patch",
        "*** Update File: keep.txt",
        "@@",
        "-original",
        "+patched",
        "*** End Patch",
      ];
      const script: Script = {
        steps: [
          { output: [ASK] },
          {
            output: [
              { type: "custom_tool_call", name: "apply_patch", input: patch.join("\n"), call_id: "patch" },
              call("exec_command", { cmd: "echo pwned > written.txt" }, "write"),
            ],
          },
          {
            output: [
              say('{"findings": [], "overall_correctness": "patch is correct", "overall_explanation": ""}'),
            ],
          },
        ],
      };
      const model = await startMockModel({ script });
      const overrides = [`openai_base_url="${model.url}"`, "retry_base_ms=10", "questions.default_mode=true"];
      const env = { OPENAI_API_KEY: "k" };
      try {
        const first = createRuntime({ home, overrides, env }).runtime;
        const thread = first.threads.start({ cwd, mode: "default" });
        first.questions.attach({ threadId: thread.id }, { kind: "test" });
        const asked = new Promise<void>((res) =>
          first.subscribe((s) => s.event.type === "question.requested" && res()),
        );
        thread.startTurn(reviewPrompt({ type: "uncommittedChanges" }), {
          options: REVIEW_TURN,
          mentions: false,
          display: reviewRequestLine("current changes"),
        });
        await asked;
        await first.shutdown();

        const second = createRuntime({ home, overrides, env }).runtime;
        try {
          second.questions.attach({ threadId: thread.id }, { kind: "test" });
          const again = second.threads.open(thread.id);
          expect(again.active).toBeDefined();
          const [q] = second.questions.list({ threadId: thread.id });
          expect(q).toBeDefined();
          const reply = { answers: { go: { selected: ["Yes (Recommended)"] } } };
          expect(second.questions.reply(thread.id, q.request_id, reply, { kind: "test" }).ok).toBe(true);
          const outcome = await again.active!.done;
          expect(outcome.status).toBe("completed");
          expect(readFileSync(join(cwd, "keep.txt"), "utf8")).toBe("original\n");
          expect(existsSync(join(cwd, "written.txt"))).toBe(false);
        } finally {
          await second.shutdown();
        }
      } finally {
        await model.close();
        rmSync(cwd, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    });
});
