/**
 * A review changes nothing (README "Review: `/review`"): in a review turn (REVIEW_TURN) the
 * model's attempts to write by every other door are refused before anything runs — an MCP
 * server's write tool (server-filesystem runs outside the sandbox), a sub-agent (its own
 * sandbox), write_stdin to a session an earlier writable turn left open, and apply_patch — and
 * the workspace is byte for byte as before (without the hook the MCP write lands: checked).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { REVIEW_TURN, reviewPrompt } from "../../src/protocol/review.js";
import { call, say } from "../helpers/agent-scripts.js";
import type { Harness } from "../helpers/index.js";
import { FILESYSTEM, mcpHarness, outputSent, stdio } from "../helpers/mcp.js";

describe("red team: a review turn cannot write", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const where of ["/tmp", "/var/tmp"])
    it(`refuses MCP writes, sub-agents, write_stdin and patches (workspace in ${where})`, async () => {
      const cwd = mkdtempSync(join(where, "tandem-review-ro-"));
      writeFileSync(join(cwd, "keep.txt"), "original\n");
      const patch = [
        "*** Begin Patch",
        "*** Update File: keep.txt",
        "@@",
        "-original",
        "+patched",
        "*** End Patch",
      ].join("\n");
      const script: Script = {
        steps: [
          // A normal turn first leaves a shell session open (it waits for input).
          { output: [call("exec_command", { cmd: "cat > from-session.txt", yield_time_ms: 200 }, "open")] },
          { output: [say("session left open")] },
          // The review turn tries every other door.
          {
            output: [
              call("mcp__fs__write_file", { path: join(cwd, "keep.txt"), content: "via mcp\n" }, "mcp"),
              call("spawn_agent", { message: "overwrite keep.txt" }, "spawn"),
              call("write_stdin", { session_id: 1, chars: "via session\n\u0004" }, "stdin"),
              { type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "patch" },
            ],
          },
          {
            output: [
              say('{"findings": [], "overall_correctness": "patch is correct", "overall_explanation": ""}'),
            ],
          },
        ],
      };
      h = await mcpHarness({ fs: stdio(FILESYSTEM) }, script, [], cwd);
      const thread = h.runtime.threads.start({ cwd, mode: "default" });
      await thread.startTurn("open a session").done;
      const before = readFileSync(join(cwd, "keep.txt"), "utf8");
      const outcome = await thread.startTurn(reviewPrompt({ type: "uncommittedChanges" }), {
        options: REVIEW_TURN,
        mentions: false,
      }).done;
      expect(outcome.status).toBe("completed");
      for (const id of ["mcp", "spawn", "stdin"])
        expect(String(outputSent(h, id)), id).toContain("is not available in a read-only review");
      expect(String(outputSent(h, "patch"))).toMatch(/not available in a read-only review|read-only/);
      expect(readFileSync(join(cwd, "keep.txt"), "utf8")).toBe(before);
      expect(readFileSync(join(cwd, "keep.txt"), "utf8")).toBe("original\n");
      expect(
        existsSync(join(cwd, "from-session.txt")) && readFileSync(join(cwd, "from-session.txt"), "utf8"),
      ).not.toContain("via session");
      expect(h.runtime.threads.list({ limit: 50 }).filter((t) => t.parent_id === thread.id)).toEqual([]);
      rmSync(cwd, { recursive: true, force: true });
    });
});
