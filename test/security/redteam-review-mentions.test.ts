/**
 * Red team: a review's prompt is Tandem's own, so nothing in it attaches anything: review
 * instructions naming `$skill` (a skill the model planted in the workspace's .agents/skills)
 * or `@file` (a host file) reach the model as plain words — no SKILL.md body, no file content,
 * no dependency question. A normal turn with the same words does attach both (the control).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REVIEW_TURN, reviewLabel, reviewPrompt, reviewRequestLine } from "../../src/protocol/review.js";
import { say } from "../helpers/agent-scripts.js";
import { type Harness, harness } from "../helpers/index.js";
import { writePdfSkill } from "../helpers/skills.js";

const answer = say('{"findings": [], "overall_correctness": "patch is correct", "overall_explanation": ""}');

describe("red team: no skill or file mentions in a review", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const where of ["/tmp", "/var/tmp"])
    it(`review instructions with $skill and @file attach nothing (${where})`, async () => {
      const cwd = mkdtempSync(join(where, "tandem-review-mention-"));
      try {
        mkdirSync(join(cwd, ".agents", "skills"), { recursive: true });
        writePdfSkill(join(cwd, ".agents", "skills"));
        writeFileSync(join(cwd, "notes.txt"), "FILE-MARKER-NOTES\n");
        h = await harness({ cwd, script: { steps: [{ output: [answer] }, { output: [say("ok")] }] } });
        const thread = h.runtime.threads.start({ cwd, mode: "default" });
        const target = { type: "custom" as const, instructions: "check $pdf-tools and @notes.txt" };
        const review = await thread.startTurn(reviewPrompt(target), {
          options: REVIEW_TURN,
          mentions: false,
          display: reviewRequestLine(reviewLabel(target)),
        }).done;
        expect(review.status).toBe("completed");
        const first = JSON.stringify((h.model.requests as any[])[0].input);
        expect(first).toContain("check $pdf-tools");
        expect(first).not.toContain("BODY-MARKER-PDF");
        expect(first).not.toContain("FILE-MARKER-NOTES");
        // The control: the same words in a normal turn attach both.
        await thread.startTurn("check $pdf-tools and @notes.txt").done;
        const second = JSON.stringify((h.model.requests as any[])[1].input);
        expect(second).toContain("BODY-MARKER-PDF");
        expect(second).toContain("FILE-MARKER-NOTES");
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
});
