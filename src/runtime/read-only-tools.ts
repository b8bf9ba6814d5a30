/**
 * A turn that may change nothing (a review, protocol/review.ts `REVIEW_TURN`, tools/types.ts
 * `readOnlyTools`): every tool call but the ones that cannot write is refused before it runs,
 * and the model is told why. The read-only sandbox keeps exec_command from writing; what it
 * cannot reach is refused here: MCP tools (their servers run outside the sandbox), the sub-agent
 * tools (a child has its own sandbox), write_stdin (it may drive a session an earlier, writable
 * turn started) and apply_patch.
 */
import type { ToolHooks } from "../tools/registry.js";

/** The tools a read-only turn may call. */
export const READ_ONLY_TOOLS = new Set(["exec_command", "update_plan", "request_user_input", "view_image"]);

export const readOnlyToolsHook: ToolHooks = {
  pre(call, ctx) {
    if (!ctx.safety.readOnlyTools || READ_ONLY_TOOLS.has(call.name)) return undefined;
    return {
      block: `${call.name} is not available in a read-only review: it could change something. Use exec_command (read-only sandbox) to read what you need.`,
    };
  },
};
