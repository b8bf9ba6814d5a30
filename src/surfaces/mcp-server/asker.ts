/**
 * How `tandem mcp-server` shows a pending request to its host: as MCP `elicitation/create` forms
 * (the one question↔form mapping, questions/form.ts, including the "Other…" text form), under the
 * one asking policy (questions/asker.ts: re-asks, cancel, unavailable). One per connection, made
 * only when the host declared form elicitation.
 *
 * Contract of `mcpAsker(deps)`:
 * - Forms say which Tandem thread asks, and are tied to the tool call (`context`: its request id).
 * - Forms wait as long as the question does (no SDK request timeout): the question policy (Q7)
 *   decides when to stop waiting; when the request settles anywhere the SDK sends
 *   `notifications/cancelled` for the form.
 * - The host's errors: a closed connection changes nothing (the question stays pending, Q11); the
 *   SDK's own check of an accepted form against its schema is an invalid answer (asked again);
 *   any other error means the host could not show the form: nobody saw it (`unseen`).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type ElicitRequestFormParams,
  ErrorCode,
  McpError,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { Responder } from "../../protocol/questions.js";
import { Asker, type ClientError } from "../../questions/asker.js";
import { askByForm } from "../../questions/form.js";
import type { Runtime } from "../../runtime/core.js";
import { askHost } from "../shared/ask-host.js";

/** The longest timer Node keeps (about 24.8 days): in effect, no timeout. */
const NO_TIMEOUT = 2_147_483_647;

export interface AskerDeps {
  server: Server;
  runtime: Runtime;
  responder: Responder;
  log: (line: string) => void;
}

export type McpAsker = Asker<RequestId | undefined>;

function classify(err: unknown): ClientError {
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return { kind: "gone" };
  const message = (err as Error)?.message ?? String(err);
  // The SDK checks an accepted form against the schema it sent: a mismatch is an invalid answer.
  if (err instanceof McpError && /does not match requested schema/.test(message))
    return { kind: "invalid", message: message.replace(/^MCP error -?\d+: /, "") };
  return { kind: "unseen", reason: `the MCP host answered with an error: ${message}` };
}

export function mcpAsker(deps: AskerDeps): McpAsker {
  return new Asker(askHost(deps.runtime), {
    responder: deps.responder,
    log: deps.log,
    classify,
    exchange: (request, { signal, problem, context: related }) =>
      askByForm(
        request,
        (form) =>
          deps.server.elicitInput(
            // The mapping's fields are MCP's restricted schema (checked with the SDK in form.test.ts).
            { mode: "form", ...form } as ElicitRequestFormParams,
            { signal, timeout: NO_TIMEOUT, ...(related !== undefined ? { relatedRequestId: related } : {}) },
          ),
        { problem, thread: true },
      ),
  });
}
