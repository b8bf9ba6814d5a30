/**
 * Fires one event: runs every matching hook (all at once, as Claude Code does) and merges what
 * they said into one `HookDecision` (README "Hooks", Claude Code's hooks reference):
 *
 * - exit 2 → `block` with stderr as the reason; JSON `decision: "block"` with `reason` too
 *   (PreToolUse's older `decision: "approve" | "block"` mean allow / deny).
 * - `hookSpecificOutput.permissionDecision` (PreToolUse): `deny` > `ask` > `allow` over all
 *   hooks, with `permissionDecisionReason`; PermissionRequest's `decision.behavior` (allow /
 *   deny, `message`, `interrupt`) maps to the same field.
 * - `updatedInput` (PreToolUse, PermissionRequest): the first hook's, in configuration order.
 * - `additionalContext`, and plain stdout of SessionStart / UserPromptSubmit → `context`.
 * - `continue: false` → `stop` (with `stopReason`); `systemMessage` → `messages` (for the user);
 *   `suppressOutput` is accepted: Tandem never shows a hook's stdout anyway.
 * - PostToolUse `updatedMCPToolOutput` → `updatedOutput`.
 * - A hook that failed adds a `warnings` line and changes nothing else.
 *
 * Contract: `fireHooks` never throws; with no matching hook it resolves an empty decision at once.
 */
import { matches } from "./match.js";
import { type HookRun, runHook } from "./run.js";
import type { HookDef, HookEvent } from "./types.js";

export interface HookDecision {
  block?: string;
  permission?: "allow" | "deny" | "ask";
  reason?: string;
  updatedInput?: unknown;
  updatedOutput?: unknown;
  /** PermissionRequest `deny` with `interrupt: true`: stop the turn too. */
  interrupt?: boolean;
  context: string[];
  stop?: string;
  messages: string[];
  warnings: string[];
  /** How many hooks ran. */
  ran: number;
}

export interface FireOptions {
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
}

const emptyDecision = (): HookDecision => ({ context: [], messages: [], warnings: [], ran: 0 });
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** The hooks of `hooks` that `event` for a subject named `names` runs. */
export function selectHooks(
  hooks: readonly HookDef[],
  event: HookEvent,
  names: readonly string[],
): HookDef[] {
  return hooks.filter((h) => h.event === event && matches(h, names));
}

/** Runs the matching hooks with `input` and merges their answers (see the module contract). */
export async function fireHooks(
  hooks: readonly HookDef[],
  event: HookEvent,
  input: unknown,
  names: readonly string[],
  opts: FireOptions,
): Promise<HookDecision> {
  const chosen = selectHooks(hooks, event, names);
  if (!chosen.length) return emptyDecision();
  const runs = await Promise.all(chosen.map((h) => runHook(h, input, opts)));
  return decide(event, runs);
}

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** Merges the runs of one event (pure; exported for tests). */
export function decide(event: HookEvent, runs: readonly HookRun[]): HookDecision {
  const d = emptyDecision();
  d.ran = runs.length;
  const blocks: string[] = [];
  const permit = (p: "allow" | "deny" | "ask", reason: string | undefined) => {
    if (!d.permission || RANK[p] > RANK[d.permission]) {
      d.permission = p;
      d.reason = reason;
    }
  };
  for (const r of runs) {
    if (r.warning) d.warnings.push(r.warning);
    if (r.blocked !== undefined) blocks.push(r.blocked);
    if (r.text && (event === "SessionStart" || event === "UserPromptSubmit")) d.context.push(r.text);
    const j = r.json;
    if (!j) continue;
    if (j.continue === false) d.stop ??= str(j.stopReason) ?? "stopped by a hook";
    const sys = str(j.systemMessage);
    if (sys) d.messages.push(sys);
    const reason = str(j.reason);
    if (event === "PreToolUse" && (j.decision === "approve" || j.decision === "block"))
      permit(j.decision === "approve" ? "allow" : "deny", reason);
    else if (j.decision === "block") blocks.push(reason ?? "blocked by a hook");
    const h = isObject(j.hookSpecificOutput) ? j.hookSpecificOutput : undefined;
    if (!h) continue;
    const ctx = str(h.additionalContext);
    if (ctx) d.context.push(ctx);
    const pd = h.permissionDecision;
    if (pd === "allow" || pd === "deny" || pd === "ask") permit(pd, str(h.permissionDecisionReason));
    if (isObject(h.updatedInput) && d.updatedInput === undefined) d.updatedInput = h.updatedInput;
    if (h.updatedMCPToolOutput !== undefined && d.updatedOutput === undefined)
      d.updatedOutput = h.updatedMCPToolOutput;
    const pr = isObject(h.decision) ? h.decision : undefined;
    if (event === "PermissionRequest" && pr) {
      if (pr.behavior === "allow" || pr.behavior === "deny") permit(pr.behavior, str(pr.message));
      if (pr.behavior === "deny" && pr.interrupt === true) d.interrupt = true;
      if (isObject(pr.updatedInput) && d.updatedInput === undefined) d.updatedInput = pr.updatedInput;
    }
  }
  if (blocks.length) d.block = blocks.join("; ");
  return d;
}
