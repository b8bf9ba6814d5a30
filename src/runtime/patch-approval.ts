/**
 * apply_patch writes from Tandem's own process, not from a sandboxed child, so the sandbox
 * policy is enforced here (SPEC A1/A2): under `read-only` every patch needs the user's
 * approval (file_change); declined or headless → the patch is refused and the model told.
 * Paths outside the workspace are refused by the patch tool itself.
 */
import type { ToolHooks } from "../tools/registry.js";

function patchPaths(input: string): string[] {
  const out: string[] = [];
  for (const m of input.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) out.push(m[1].trim());
  return out;
}

export const patchApprovalHook: ToolHooks = {
  async pre(call, ctx) {
    if (call.name !== "apply_patch" || ctx.safety.sandbox.mode !== "read-only") return undefined;
    const input =
      typeof call.args === "string" ? call.args : String((call.args as { input?: string })?.input ?? "");
    const decision = await ctx.safety.requestApproval({
      kind: "file_change",
      reason: "The sandbox is read-only; this patch would change files.",
      cwd: ctx.cwd,
      paths: patchPaths(input),
    });
    if (decision === "cancel") throw Object.assign(new Error("cancelled"), { name: "AbortError" });
    if (decision === "decline") return { block: "the user declined this file change (read-only sandbox)" };
    return undefined;
  },
};
