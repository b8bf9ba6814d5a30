/**
 * apply_patch writes from Tandem's own process, not from a sandboxed child, so the sandbox
 * policy is enforced here (requirements A1/A2): under `read-only` every patch needs the user's
 * approval (file_change); declined, headless, or approvals `never` → the patch is refused and
 * the model told.
 * Paths outside the workspace are refused by the patch tool itself.
 *
 * The approval carries what the patch would change, per file with its diff (masked), computed
 * without writing; a patch that does not apply asks without it.
 *
 * The approval lists every path the parser will touch (Add, Update, Delete and `*** Move to:`
 * targets, however indented), absolute with symbolic links resolved, so `a.txt`, `./a.txt` and
 * `/ws/a.txt` are one key for accept-for-session. An unparseable patch asks with no paths, which
 * is never pre-approved. A patch touching a protected path (.git, Tandem's home) is refused
 * without asking: no approval can grant it.
 */

import { guardFor, patchTargets, previewPatch, refusedText } from "../tools/patch/index.js";
import { parsePatch } from "../tools/patch/parser.js";
import type { ToolHooks } from "../tools/registry.js";
import { APPROVAL_UNAVAILABLE, type ToolContext } from "../tools/types.js";

function inspect(input: string, ctx: ToolContext): { paths: string[]; refused?: string } {
  let ops: ReturnType<typeof parsePatch>;
  try {
    ops = parsePatch(input);
  } catch {
    return { paths: [] };
  }
  const { targets, refused } = patchTargets(ops, ctx.cwd, guardFor(ctx));
  return { paths: targets.map((t) => t.real), ...(refused !== undefined ? { refused } : {}) };
}

export const patchApprovalHook: ToolHooks = {
  async pre(call, ctx) {
    if (call.name !== "apply_patch" || ctx.safety.sandbox.mode !== "read-only") return undefined;
    const input =
      typeof call.args === "string" ? call.args : String((call.args as { input?: string })?.input ?? "");
    const { paths, refused } = inspect(input, ctx);
    if (refused !== undefined) return { block: refusedText(refused) };
    // Under `never` nobody is asked, so a read-only sandbox means no patch (a review turn).
    if (ctx.safety.approvalPolicy === "never")
      return { block: "the sandbox is read-only and approvals are off (never): this patch was not applied" };
    // The approval shows what the patch would change (nothing is written before the decision).
    // Masked like every display item (tools/registry.ts): the context lines may hold a secret.
    const changes = previewPatch(
      input,
      ctx.cwd,
      undefined,
      ctx.safety.sandbox.writableRoots,
      guardFor(ctx),
    )?.map((c) => ({ ...c, diff: ctx.secrets.mask(c.diff) }));
    const decision = await ctx.safety.requestApproval({
      kind: "file_change",
      reason: "The sandbox is read-only; this patch would change files.",
      cwd: ctx.cwd,
      paths,
      ...(changes ? { changes } : {}),
    });
    if (decision === "cancel") throw Object.assign(new Error("cancelled"), { name: "AbortError" });
    if (decision === "decline") return { block: "the user declined this file change (read-only sandbox)" };
    if (decision === "unavailable") return { block: APPROVAL_UNAVAILABLE };
    return undefined;
  },
};
