/**
 * The turn's stat pass (runtime/workspace-diff.ts) runs while the model answers: a turn in a big
 * repository does not wait ~1 s at its end for it. Real loop (harness: Runtime, SQLite,
 * scripted model over HTTP with a delayed answer), real commands.
 *
 * The write here raises no event: src/app.js is changed through a hard link made before the
 * turn in node_modules/ (never watched), so only a stat pass finds it.
 */
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, harness } from "../helpers/index.js";

const exec = (id: string, cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd },
});
const WRITE = "echo 'backdoor();' >> node_modules/h";

describe("the turn's stat pass while the model answers", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function turn(steps: unknown[]): Promise<{ diffAt: number; messageAt: number; diff: string }> {
    h = await harness({ script: { steps } as any, overrides: ['sandbox_mode="danger-full-access"'] });
    mkdirSync(join(h.cwd, "src"));
    mkdirSync(join(h.cwd, "node_modules"));
    writeFileSync(join(h.cwd, "src", "app.js"), "ok();\n");
    linkSync(join(h.cwd, "src", "app.js"), join(h.cwd, "node_modules", "h"));
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    const events = h.events.map((s) => s.event as any);
    const diffs = events.map((e, i) => [e, i] as const).filter(([e]) => e.type === "turn.diff");
    const messageAt = events.findIndex(
      (e) => e.type === "item.completed" && e.item?.type === "agent_message",
    );
    return { diffAt: diffs[0]?.[1] ?? -1, messageAt, diff: diffs.at(-1)?.[0].diff ?? "" };
  }

  // Fails if the pass waits for the turn's end: the diff would come after the model's answer.
  it("finds a change no event shows before the model's last answer arrives", async () => {
    const r = await turn([
      { output: [exec("x1", WRITE)] },
      { output: [{ type: "message", text: "done" }], delay_ms: 1500 },
    ]);
    expect(r.diff).toContain("+backdoor();");
    expect(r.diffAt).toBeGreaterThanOrEqual(0);
    expect(r.messageAt).toBeGreaterThan(r.diffAt);
  });

  // Fails if a pass that ran before the last command stands for the turn's: the write through
  // the link, made by a command after it, would be missing from the diff.
  it("a command after an early pass makes the turn's end compare again", async () => {
    const r = await turn([
      { output: [exec("x1", "true")] },
      { output: [exec("x2", WRITE)], delay_ms: 1500 }, // the first pass runs meanwhile
      { output: [{ type: "message", text: "done" }] },
    ]);
    expect(r.diff).toContain("+backdoor();");
    expect(r.diffAt).toBeGreaterThan(r.messageAt); // found by the turn's own pass, at its end
  });
});
