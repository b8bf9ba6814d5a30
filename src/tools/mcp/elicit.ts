/**
 * An MCP server's `elicitation/create` asked through Tandem's broker (README "MCP servers"): the same
 * `ask` that request_user_input uses, in the context of the server's tool call that is running.
 *
 * Contract of the handler `elicitHandler(server, calls)` returns:
 * - the request becomes one question request (source internal, `elicitation` info set) through
 *   the newest running call of this server (`calls`): that call's turn, the thread's question
 *   policy, and the call's signal — interrupt, thread close or shutdown settle it as `cancel`;
 * - the outcome goes back as `outcomeToElicitResult` maps it (accept with typed content,
 *   decline, cancel);
 * - a form Tandem cannot ask, or a URL it refuses to show (ElicitationSchemaError, checked first):
 *   a JSON-RPC InvalidParams error naming why; nothing is asked;
 * - no call of this server running, or nobody who could answer (Q3): `cancel`, at once.
 * The server's own cancellation of its request does not withdraw the question (it ends with the call).
 */
import type { ElicitHandler } from "./connection.js";
import { ElicitationSchemaError, elicitationRequest, outcomeToElicitResult } from "./elicitation.js";
import type { ActiveCalls } from "./tool.js";

export function elicitHandler(server: string, calls: ActiveCalls): ElicitHandler {
  return async (params) => {
    let asked: ReturnType<typeof elicitationRequest>;
    try {
      asked = elicitationRequest(server, params);
    } catch (err) {
      if (err instanceof ElicitationSchemaError) {
        // Loaded here so the runtime does not pull in the MCP SDK before any server runs.
        const { ErrorCode, McpError } = await import("@modelcontextprotocol/sdk/types.js");
        throw new McpError(ErrorCode.InvalidParams, `Tandem cannot ask this: ${err.message}`);
      }
      throw err;
    }
    const ctx = calls.at(-1);
    if (!ctx?.questions.hasResponder()) return { action: "cancel" };
    const outcome = await ctx.ask(asked.questions, { source: "internal", elicitation: asked.elicitation });
    return outcomeToElicitResult(asked.questions, outcome, asked.elicitation.mode);
  };
}
