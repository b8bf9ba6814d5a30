/**
 * `approval_policy = "never"` (README "Sandbox and approvals", requirements A2): nobody is ever asked.
 * An escalated command (`sandbox_permissions: "require_escalated"`) is refused and the model
 * is told why; a command that `untrusted` would ask about runs (sandboxed) without asking; a
 * patch outside the workspace is refused without asking. A responder is attached throughout,
 * so an ask would really be put to someone: the test answers any question with Accept, which
 * would make a wrongly asked command run — and be caught twice (the event, the file).
 * Real Runtime, scripted model over HTTP (test/helpers/index.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { decide, type Harness, harness, tempDir } from "../helpers/index.js";

function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find(
      (i: any) => /^(function|custom_tool)_call_output$/.test(i.type) && i.call_id === callId,
    );
    if (o) return o.output;
  }
  throw new Error(`the model never got the output of ${callId}`);
}

/** Starts a turn with a responder attached; accepts any question (none should come). */
async function runWithResponder(h: Harness): Promise<string> {
  const thread = h.runtime.threads.start({ cwd: h.cwd });
  h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
  h.runtime.subscribe(({ event }) => {
    if (event.type === "question.requested") decide(h, event as EventOf<"question.requested">, "Accept");
  });
  return (await thread.startTurn("go").done).status;
}

const questionEvents = (h: Harness) =>
  h.events.filter((s) => s.event.type.startsWith("question.")).map((s) => s.event.type);

describe('approval_policy = "never"', () => {
  let h: Harness | undefined;
  const cleanup: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  // Fails if the `never` branch of the exec gate (src/tools/exec/gate.ts) is removed (the
  // escalation is then asked, accepted here, and runs: a question event and the file), or if
  // the refusal stops naming the policy; or if `never` gets untrusted's known-safe check (the
  // `touch` is then asked about).
  it("an escalated command is refused without asking, the model is told; plain commands run without asks", async () => {
    const outside = mkdtempSync("/var/lib/tandem-never-");
    cleanup.push(outside);
    h = await harness({
      script: {
        steps: [
          {
            output: [
              {
                type: "function_call",
                name: "exec_command",
                call_id: "esc",
                arguments: {
                  cmd: `echo escalated > ${outside}/esc.txt`,
                  sandbox_permissions: "require_escalated",
                  justification: "write outside the workspace",
                },
              },
              {
                type: "function_call",
                name: "exec_command",
                call_id: "plain",
                // Not known-safe: `untrusted` would ask before it runs.
                arguments: { cmd: "touch made-without-asking && echo TOUCHED" },
              },
            ],
          },
          { output: [{ type: "message", text: "done" }] },
        ],
      },
      overrides: ['approval_policy="never"'],
    });
    expect(await runWithResponder(h)).toBe("completed");
    expect(questionEvents(h)).toEqual([]);
    expect(existsSync(join(outside, "esc.txt"))).toBe(false);
    expect(outputOf(h, "esc")).toContain(
      "Escalation refused: the approval policy is `never`, so commands cannot run outside the sandbox.",
    );
    expect(outputOf(h, "plain")).toContain("TOUCHED");
    expect(existsSync(join(h.cwd, "made-without-asking"))).toBe(true);
  });

  // Fails if apply_patch under `never` asks for a write outside the workspace (the `never`
  // early return in writableRootsFor, src/tools/patch/index.ts, removed: the ask is accepted
  // here and the file lands outside).
  it("a patch outside the workspace is refused without asking; inside it applies", async () => {
    const outside = tempDir("tandem-never-patch-");
    const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+hello\n*** End Patch`;
    h = await harness({
      script: {
        steps: [
          {
            output: [
              {
                type: "custom_tool_call",
                name: "apply_patch",
                call_id: "out",
                input: patch(`${outside}/x.txt`),
              },
            ],
          },
          {
            output: [
              { type: "custom_tool_call", name: "apply_patch", call_id: "in", input: patch("in.txt") },
            ],
          },
          { output: [{ type: "message", text: "done" }] },
        ],
      },
      // Explicit: without bubblewrap the harness would fall back to danger-full-access, where
      // every path is writable. apply_patch does not need bubblewrap.
      overrides: ['approval_policy="never"', 'sandbox_mode="workspace-write"'],
    });
    expect(await runWithResponder(h)).toBe("completed");
    expect(questionEvents(h)).toEqual([]);
    expect(existsSync(join(outside, "x.txt"))).toBe(false);
    expect(outputOf(h, "out")).toMatch(/is outside the working directory[\s\S]*No files were changed/);
    expect(readFileSync(join(h.cwd, "in.txt"), "utf8")).toBe("hello\n");
  });
});
