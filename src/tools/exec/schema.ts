/**
 * Model-facing schemas of `exec_command` and `write_stdin` (requirements T1, T2).
 *
 * `exec_command`'s wire schema is a golden fixture (seed 002): `EXEC_COMMAND_WIRE` is the one
 * source, kept byte-for-byte in the seed's key order, and the zod schema takes every
 * description from it (a test checks `z.toJSONSchema` of the zod schema deep-equals it).
 * `write_stdin` has no fixture, so its wire schema is derived from zod.
 */
import * as z from "zod";

export const EXEC_COMMAND_DESCRIPTION =
  "Runs a command in a PTY, returning output or a session ID for an ongoing command.";

export const WRITE_STDIN_DESCRIPTION =
  "Writes characters to the stdin of a running exec_command session and returns its recent output.";

export const EXEC_COMMAND_WIRE = {
  type: "object",
  properties: {
    cmd: { type: "string", description: "Shell command to execute." },
    workdir: { type: "string", description: "Working directory for the command. Defaults to the turn cwd." },
    tty: {
      type: "boolean",
      description: "True allocates a PTY for the command; false or omitted uses plain pipes.",
    },
    yield_time_ms: {
      type: "number",
      description: "Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms.",
    },
    max_output_tokens: {
      type: "number",
      description: "Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy.",
    },
    shell: { type: "string", description: "Shell binary to launch. Defaults to the user's default shell." },
    sandbox_permissions: {
      type: "string",
      enum: ["use_default", "require_escalated"],
      description:
        "Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed execution.",
    },
    justification: {
      type: "string",
      description: "User-facing approval question for require_escalated; omit otherwise.",
    },
    prefix_rule: {
      type: "array",
      items: { type: "string" },
      description: "Reusable approval prefix for cmd, only with sandbox_permissions require_escalated.",
    },
  },
  required: ["cmd"],
  additionalProperties: false,
} as const;

const d = EXEC_COMMAND_WIRE.properties;

/**
 * Unknown keys are stripped rather than refused (models trained on other harnesses send
 * extras such as `login`); the wire schema still says `additionalProperties: false`.
 */
export const ExecCommandArgs = z.object({
  cmd: z.string().describe(d.cmd.description),
  workdir: z.string().optional().describe(d.workdir.description),
  tty: z.boolean().optional().describe(d.tty.description),
  yield_time_ms: z.number().optional().describe(d.yield_time_ms.description),
  max_output_tokens: z.number().optional().describe(d.max_output_tokens.description),
  shell: z.string().optional().describe(d.shell.description),
  sandbox_permissions: z
    .enum(d.sandbox_permissions.enum)
    .optional()
    .describe(d.sandbox_permissions.description),
  justification: z.string().optional().describe(d.justification.description),
  prefix_rule: z.array(z.string()).optional().describe(d.prefix_rule.description),
});
export type ExecCommandArgs = z.infer<typeof ExecCommandArgs>;

export const WriteStdinArgs = z.object({
  session_id: z
    .number()
    .describe("Session ID of a running exec_command (from `Process running with session ID N`)."),
  chars: z
    .string()
    .optional()
    .describe(
      "Characters to write to the session's stdin; empty or omitted only polls for new output. " +
        "Without a PTY, \\u0003 interrupts the command and \\u0004 closes its stdin.",
    ),
  yield_time_ms: z
    .number()
    .optional()
    .describe("Wait before yielding output. Defaults to 250 ms; effective range is 250-30000 ms."),
  max_output_tokens: z
    .number()
    .optional()
    .describe("Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."),
});
export type WriteStdinArgs = z.infer<typeof WriteStdinArgs>;

/** Wire schema of `write_stdin`: zod's output-side JSON Schema (objects closed), no `$schema`. */
export function writeStdinWire(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(WriteStdinArgs) as Record<string, unknown>;
  return schema;
}

/** Effective limits (requirements T1): yields are clamped, budgets capped by policy. */
export const LIMITS = {
  execYieldMs: 10_000,
  writeYieldMs: 250,
  minYieldMs: 250,
  maxYieldMs: 30_000,
  outputTokens: 10_000,
  /** Policy cap on `max_output_tokens`; stays below half the session buffer (see buffer.ts). */
  maxOutputTokens: 100_000,
} as const;

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

export function yieldMs(requested: number | undefined, fallback: number): number {
  const n = requested !== undefined && Number.isFinite(requested) ? requested : fallback;
  return clamp(Math.round(n), LIMITS.minYieldMs, LIMITS.maxYieldMs);
}

export function outputTokens(requested: number | undefined): number {
  const n = requested !== undefined && Number.isFinite(requested) ? requested : LIMITS.outputTokens;
  return clamp(Math.floor(n), 1, LIMITS.maxOutputTokens);
}
