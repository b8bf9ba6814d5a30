/**
 * Red team: `@path` is the user's feature. A sub-agent's task (spawn_agent, send_input) is text
 * the parent model writes; if Tandem read the files it mentions on the host, the model would
 * drive host-side reads (of whatever it planted) and parsing of unbounded text. The child gets
 * the message as written and reads files itself, in its sandbox.
 *
 * Real loop (harness: Runtime, SQLite, scripted model over HTTP).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHILD, call, say, spawnCall } from "../helpers/agent-scripts.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";

describe("red team: a sub-agent's task message attaches no files", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Fails if spawn_agent / send_input messages go through attachMentions.
  it("spawn_agent and send_input messages naming @notes.md do not attach it", async () => {
    const cwd = tempDir("tandem-rt-mentions-");
    writeFileSync(join(cwd, "notes.md"), "NOTE-BODY-5150\n");
    h = await harness({
      cwd,
      script: {
        steps: [
          { output: [spawnCall("TASK-M: summarise @notes.md", "sp1")] },
          { output: [call("wait_agent", { ids: ["Ada"], timeout_ms: 30_000 }, "wt1")] },
          { output: [call("send_input", { id: "Ada", message: "TASK-N: and @notes.md again" }, "si1")] },
          { output: [call("wait_agent", { ids: ["Ada"], timeout_ms: 30_000 }, "wt2")] },
          { output: [say("parent done")] },
        ],
        side_steps: [
          { when: { input_contains: [CHILD, "TASK-N"] }, output: [say("child done twice")] },
          { when: { input_contains: [CHILD, "TASK-M"] }, output: [say("child done")] },
        ],
      } as any,
    });
    const thread = h.runtime.threads.start({ cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    const requests = JSON.stringify(h.model.requests);
    expect(requests).toContain("child done twice"); // both child turns ran
    expect(requests).not.toContain("NOTE-BODY-5150");
  });
});
