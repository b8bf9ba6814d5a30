/**
 * The safety gate in front of every `exec_command` (requirements A1–A3). Decides, before anything
 * runs, whether the command runs sandboxed, unsandboxed (an approved escalation), or not
 * at all — asking the user through `ctx.safety.requestApproval` when the policy says so:
 *
 * - `sandbox_permissions: "require_escalated"` asks (with the model's justification) under
 *   `on-request`, `on-failure` and `untrusted`; under `never` it is refused, never run.
 *   Approved → runs outside the sandbox, once (or for the session / by a remembered rule).
 * - `untrusted`: any command that is not known-safe asks before it runs (sandboxed).
 * - The sandbox itself is the OS's (bubblewrap); when it cannot be had the command is refused
 *   unless the user chose `danger-full-access`.
 */
import { AbortError } from "../../util/abort.js";
import { APPROVAL_UNAVAILABLE, type ToolContext } from "../types.js";
import { isKnownSafe } from "./safe-commands.js";
import { sandboxWrap } from "./sandbox.js";
import type { ExecCommandArgs } from "./schema.js";

export type Gate =
  | { kind: "run"; wrap?: string[]; escalated: boolean }
  | { kind: "refuse"; message: string; status: "declined" | "failed" };

const DECLINED =
  "The user declined to run this command. Do not retry it as is; adjust your approach or ask the user how to proceed.";

const refused = (d: "decline" | "unavailable"): Gate => ({
  kind: "refuse",
  status: "declined",
  message: d === "decline" ? DECLINED : APPROVAL_UNAVAILABLE,
});

export async function gateCommand(args: ExecCommandArgs, cwd: string, ctx: ToolContext): Promise<Gate> {
  const { safety } = ctx;
  const ask = async (reason: string) => {
    const decision = await safety.requestApproval({
      kind: "exec",
      reason,
      command: args.cmd,
      cwd,
      justification: args.justification,
      prefix_rule: args.prefix_rule,
    });
    if (decision === "cancel")
      throw new AbortError("the user cancelled the command; the turn is interrupted");
    return decision;
  };

  if (args.sandbox_permissions === "require_escalated") {
    if (safety.approvalPolicy === "never")
      return {
        kind: "refuse",
        status: "declined",
        message:
          "Escalation refused: the approval policy is `never`, so commands cannot run outside the sandbox. Work within the sandbox.",
      };
    const d = await ask(args.justification ?? "The model asks to run this command outside the sandbox.");
    if (d === "decline" || d === "unavailable") return refused(d);
    return { kind: "run", escalated: true };
  }

  if (safety.approvalPolicy === "untrusted" && !isKnownSafe(args.cmd, args.shell)) {
    const d = await ask("Untrusted mode: this command is not on the known-safe list.");
    if (d === "decline" || d === "unavailable") return refused(d);
  }

  // The writable roots come from the thread's cwd; the resolved workdir is only where it starts.
  const wrap = sandboxWrap(safety.sandbox, ctx.cwd, { chdir: cwd });
  if (!wrap.ok) return { kind: "refuse", status: "failed", message: wrap.error };
  return { kind: "run", wrap: wrap.wrap, escalated: false };
}
