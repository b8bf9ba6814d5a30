/**
 * MCP tools under `approval_policy = "untrusted"` (README "MCP servers"): a tool the server does not
 * mark read-only — here one with no annotations at all, test/fixtures/mcp-hostile-server.mjs `touch`
 * — is not known to be safe, so Tandem asks before it runs. Real Runtime, scripted model, real server.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { type Harness, tempDir } from "../helpers/index.js";
import { HOSTILE, mcpHarness, outputSent, stdio } from "../helpers/mcp.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function touchUnderUntrusted(decision: "Accept" | "Decline") {
  const target = join(tempDir("tandem-mcp-touch-"), "ran.txt");
  h = await mcpHarness(
    { hostile: stdio(HOSTILE) },
    {
      steps: [
        {
          output: [
            { type: "function_call", name: "mcp__hostile__touch", arguments: { path: target }, call_id: "t" },
          ],
        },
        { output: [{ type: "message", text: "done" }] },
      ],
    },
    ['approval_policy="untrusted"'],
  );
  const thread = h.runtime.threads.start({ cwd: h.cwd });
  h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
  const turn = thread.startTurn("go");
  const asked = await Promise.race([
    h.waitFor((e) => e.type === "question.requested") as Promise<EventOf<"question.requested">>,
    turn.done.then(() => undefined),
  ]);
  if (!asked) throw new Error(`the turn ended without asking; the tool ran: ${existsSync(target)}`);
  // Asked before the server was called: nothing was written yet.
  expect(existsSync(target)).toBe(false);
  h.runtime.questions.reply(
    thread.id,
    asked.request.request_id,
    { answers: { decision: { selected: [decision] } } },
    {
      kind: "test",
    },
  );
  expect((await turn.done).status).toBe("completed");
  return { asked: asked.request, target };
}

describe("untrusted: an MCP tool without annotations", () => {
  // Fails if a tool with no annotations counts as safe (treating only readOnlyHint: false as
  // unsafe): the tool would run unasked and write its file.
  it("asks first; declined, it never runs and the model is told", async () => {
    const { asked, target } = await touchUnderUntrusted("Decline");
    expect(asked.call_id).toBe("t");
    expect(asked.approval?.command).toContain("mcp__hostile__touch");
    expect(asked.approval?.command).toContain(target);
    expect(existsSync(target)).toBe(false);
    expect(String(outputSent(h!, "t"))).toContain("declined");
  });

  // Fails if an accepted call does not run (so the decline above would prove nothing).
  it("accepted, it runs", async () => {
    const { target } = await touchUnderUntrusted("Accept");
    expect(existsSync(target)).toBe(true);
    expect(String(outputSent(h!, "t"))).toBe(`wrote ${target}`);
  });
});
