/**
 * The MCP tools `tandem mcp-server` offers (requirements S7): `tandem` runs a turn on a new thread,
 * `tandem_reply` continues one. Schemas are zod, described for the calling model; turns.ts runs them.
 *
 * Contract:
 * - Both return the turn's final agent message as text content and `structuredContent`
 *   `{threadId, turnId, status, message, error?}` (declared as the output schema). A turn that did
 *   not complete (interrupted, failed) is `isError: true` with the reason in the text.
 * - A caller mistake (bad cwd, unknown thread, thread busy, thread in use by another process) is an
 *   `isError` result whose text says what to do; nothing was started.
 * - A long turn reports progress (`notifications/progress`) when the call carries a progressToken.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { McpServerError, type TurnReport, type TurnRunner, type TurnSpec } from "./turns.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const prompt = z.string().min(1).describe("What Tandem should do: the user message of the turn");

const TandemArgs = {
  prompt,
  cwd: z
    .string()
    .optional()
    .describe(
      "Working directory of the new thread (absolute, or relative to the server's); default: the server's",
    ),
  mode: z
    .enum(["default", "plan"])
    .optional()
    .describe("Collaboration mode: default (act), or plan (explore and ask before acting); default: default"),
  sandbox: z
    .enum(["read-only", "workspace-write", "danger-full-access"])
    .optional()
    .describe("Where commands may write (enforced by the OS); default: Tandem's configuration"),
  approval_policy: z
    .enum(["never", "on-request", "on-failure", "untrusted"])
    .optional()
    .describe(
      "When Tandem asks before running a command: never, on-request (the model asks for escalation), on-failure, untrusted (anything not known safe); default: Tandem's configuration",
    ),
  model: z.string().optional().describe("Model for the thread; default: Tandem's configuration"),
};

const ReplyArgs = {
  threadId: z
    .string()
    .min(1)
    .describe("The thread to continue: the threadId a tandem call returned (a unique prefix is enough)"),
  prompt,
};

const Output = {
  threadId: z.string().describe("The thread's id: pass it to tandem_reply to continue"),
  turnId: z.string().describe("The turn that ran"),
  status: z.enum(["completed", "interrupted", "failed"]).describe("How the turn ended"),
  message: z.string().describe("The turn's final agent message (empty when it wrote none)"),
  error: z.string().optional().describe("Why the turn failed or was interrupted, when known"),
};

const QUESTIONS_NOTE =
  "Tandem's questions and approvals during the turn are asked through MCP elicitation when the client supports it; otherwise Tandem is told nobody can answer (questions) and commands that need approval do not run (the model is told no one could approve them).";

export const TANDEM_DESCRIPTION = `Run a task with Tandem, a coding agent: starts a new thread and runs one turn to completion (it may read and edit files and run commands in cwd, within the sandbox). Returns the final message and the threadId; continue the conversation with tandem_reply. ${QUESTIONS_NOTE}`;
export const REPLY_DESCRIPTION = `Continue a Tandem thread: runs one more turn with a new prompt on the thread a tandem call returned (its cwd, mode, sandbox and approval policy carry over). Returns the final message. ${QUESTIONS_NOTE}`;

function result(report: TurnReport): CallToolResult {
  const done = report.status === "completed";
  const why = report.error ? `: ${report.error}` : "";
  const text = done
    ? report.message || "(the turn ended without a message)"
    : `The turn ${report.status === "failed" ? "failed" : "was interrupted"}${why}${report.message ? `\n\n${report.message}` : ""}`;
  return {
    content: [{ type: "text", text }],
    structuredContent: { ...report },
    ...(done ? {} : { isError: true }),
  };
}

function failure(err: unknown): CallToolResult {
  const known = err instanceof McpServerError || (err as Error)?.name === "ThreadInUseError";
  const message = known
    ? (err as Error).message
    : `Tandem could not run the turn: ${(err as Error)?.message ?? String(err)}`;
  return { content: [{ type: "text", text: message }], isError: true };
}

export function registerTools(server: McpServer, runner: Pick<TurnRunner, "runTurn">): void {
  const run = async (spec: TurnSpec, extra: Extra): Promise<CallToolResult> => {
    const token = extra._meta?.progressToken;
    let n = 0;
    const progress =
      token === undefined
        ? undefined
        : (message: string) => {
            n++;
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: n, message },
              })
              .catch(() => {});
          };
    try {
      return result(
        await runner.runTurn(spec, { signal: extra.signal, requestId: extra.requestId, progress }),
      );
    } catch (err) {
      return failure(err);
    }
  };

  server.registerTool(
    "tandem",
    {
      title: "Tandem: run a task",
      description: TANDEM_DESCRIPTION,
      inputSchema: TandemArgs,
      outputSchema: Output,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    (args, extra) =>
      run(
        {
          prompt: args.prompt,
          cwd: args.cwd,
          mode: args.mode,
          sandbox: args.sandbox,
          approvalPolicy: args.approval_policy,
          model: args.model,
        },
        extra,
      ),
  );

  server.registerTool(
    "tandem_reply",
    {
      title: "Tandem: continue a thread",
      description: REPLY_DESCRIPTION,
      inputSchema: ReplyArgs,
      outputSchema: Output,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    (args, extra) => run({ prompt: args.prompt, threadId: args.threadId }, extra),
  );
}
