/**
 * `apply_patch` (requirements T3): edit files with a Codex-format patch, as a freeform custom tool and
 * as a JSON function tool (`{input}`) for providers without custom tools.
 *
 * Contract of both tools' `execute` (and of `applyPatch`):
 * - Atomic per call: the patch is parsed and every file's new content computed in memory first;
 *   if anything fails (parse error, missing/existing file, a chunk that does not match, a path
 *   outside `ctx.cwd`) nothing is written and the model gets `success:false` with a message
 *   naming the file and chunk. Then all files are written (temp + rename); a write failure rolls
 *   back the files already written (changes.ts).
 * - Paths are relative to `ctx.cwd`. Outside it (also through `..` or a symbolic link, paths.ts)
 *   a patch writes only where the policy allows: the sandbox's writable roots, anywhere under
 *   danger-full-access, or a directory the user approved for this call (`writableRootsFor`).
 * - Protected paths (requirements A4, `guardFor`): a patch touching Tandem's home or store (any mode) or
 *   a `.git` (read-only, workspace-write) is refused whole before anyone is asked, so no
 *   approval can grant one; nothing is written and the model is told which path and why.
 * - Approvals name every path the parser will touch (`patchTargets`), as absolute paths with
 *   symbolic links resolved: the keys accept-for-session compares.
 * - Success output: `Success. Updated the following files:` then `A path` / `M path` / `D path`.
 * - `display` (for surfaces, never the model): `{type: "file_change", changes: [{path, kind,
 *   move_path?, diff}], status: "completed" | "failed", error?}`; `diff` is a unified diff per
 *   change. Failed calls carry `changes: []` (nothing changed) and `error`, the model's text.
 * - `displayStart` is a generic `tool_call` item whose `arguments` is the patch text.
 * - Honours `ctx.signal` up to the commit: aborted before writing → AbortError, nothing written.
 *   Planning and commit run synchronously, so they are never interleaved with another call.
 * - `onApplied(changes, ctx)` runs after a successful commit (e.g. to feed a TurnDiffTracker);
 *   an exception it throws is swallowed (the files are already written).
 */
import { dirname, isAbsolute, relative, resolve } from "node:path";
import * as z from "zod";
import type { TurnItem } from "../../protocol/events.js";
import { AbortError } from "../../util/abort.js";
import {
  APPROVAL_UNAVAILABLE,
  type CustomTool,
  type FunctionTool,
  type ToolContext,
  type ToolResult,
} from "../types.js";
import { PatchApplyError } from "./applier.js";
import { commitPlan, type FileChange, planPatch } from "./changes.js";
import { APPLY_PATCH_GRAMMAR, CUSTOM_DESCRIPTION, FUNCTION_DESCRIPTION } from "./description.js";
import { unifiedDiff } from "./diff.js";
import { nodePatchFs, type PatchFs } from "./fs.js";
import { type PatchOp, PatchParseError, parsePatch } from "./parser.js";
import { type PathGuard, pathGuard, realLocation, refusal } from "./paths.js";

export type { FileChange } from "./changes.js";
export { APPLY_PATCH_GRAMMAR } from "./description.js";
export type { PatchFs } from "./fs.js";
export { TurnDiffTracker } from "./tracker.js";

export const TOOL_NAME = "apply_patch";

export interface ApplyPatchToolOptions {
  /** File operations (default: node:fs). */
  fs?: PatchFs;
  /** Called after a patch was written, with its changes in patch order. */
  onApplied?(changes: FileChange[], ctx: ToolContext): void;
}

/** One entry of the `file_change` display item. */
export interface DisplayChange {
  path: string;
  kind: FileChange["kind"];
  move_path?: string;
  diff: string;
}

export type ApplyPatchOutcome =
  | { ok: true; changes: FileChange[]; summary: string }
  | { ok: false; error: string; stage: "parse" | "verify" | "write" };

/** Parses, plans and commits `input` relative to `cwd`. Never throws for a bad patch. */
export function applyPatch(
  input: string,
  cwd: string,
  fs: PatchFs = nodePatchFs,
  signal?: AbortSignal,
  extraRoots: string[] = [],
  guard?: PathGuard,
): ApplyPatchOutcome {
  let plan: ReturnType<typeof planPatch>;
  try {
    plan = planPatch(parsePatch(input), cwd, fs, extraRoots, guard);
  } catch (err) {
    if (PatchParseError.isInstance(err)) return { ok: false, stage: "parse", error: err.message };
    if (PatchApplyError.isInstance(err)) return { ok: false, stage: "verify", error: err.message };
    throw err;
  }
  if (signal?.aborted) throw new AbortError("apply_patch was interrupted before writing; no file changed");
  try {
    commitPlan(plan, fs);
  } catch (err) {
    if (PatchApplyError.isInstance(err)) return { ok: false, stage: "write", error: err.message };
    throw err;
  }
  return { ok: true, changes: plan.changes, summary: summarize(plan.changes) };
}

/**
 * What `input` would change relative to `cwd`, per file with unified diffs, without writing
 * anything (for the approval a read-only sandbox asks); undefined when the patch does not apply.
 */
export function previewPatch(
  input: string,
  cwd: string,
  fs: PatchFs = nodePatchFs,
  extraRoots: string[] = [],
  guard?: PathGuard,
): DisplayChange[] | undefined {
  try {
    return displayChanges(planPatch(parsePatch(input), cwd, fs, extraRoots, guard).changes);
  } catch (err) {
    if (PatchParseError.isInstance(err) || PatchApplyError.isInstance(err)) return undefined;
    throw err;
  }
}

/** Codex's summary: added, then modified (incl. moves, by new path), then deleted. */
export function summarize(changes: FileChange[]): string {
  const rows = [
    ...changes.filter((c) => c.kind === "add").map((c) => `A ${c.path}`),
    ...changes
      .filter((c) => c.kind === "update" || c.kind === "move")
      .map((c) => `M ${c.movePath ?? c.path}`),
    ...changes.filter((c) => c.kind === "delete").map((c) => `D ${c.path}`),
  ];
  return ["Success. Updated the following files:", ...rows].join("\n");
}

export function displayChanges(changes: FileChange[]): DisplayChange[] {
  return changes.map((c) => {
    const d: DisplayChange = {
      path: c.path,
      kind: c.kind,
      diff: unifiedDiff(c.before, c.after, { oldPath: c.path, newPath: c.movePath ?? c.path }),
    };
    if (c.movePath !== undefined) d.move_path = c.movePath;
    return d;
  });
}

function failureText(out: Extract<ApplyPatchOutcome, { ok: false }>): string {
  if (out.stage === "write") return `apply_patch failed: ${out.error}`;
  return `apply_patch verification failed: ${out.error}\nNo files were changed.`;
}

/** What no patch of this call may write (paths.ts): Tandem's state, and `.git` unless unsandboxed. */
export function guardFor(ctx: ToolContext, fs: PatchFs = nodePatchFs): PathGuard {
  const { sandbox } = ctx.safety;
  return pathGuard(fs, {
    protectedPaths: sandbox.protectedPaths,
    protectGit: sandbox.mode !== "danger-full-access",
    roots: [ctx.cwd, ...sandbox.writableRoots],
  });
}

/**
 * Every path `ops` touch (Add, Update, Delete, Move to:), in patch order and without repeats:
 * `abs` resolved against `cwd`, `real` with symbolic links resolved (the approval key).
 * `refused` names the first protected one and why.
 */
export function patchTargets(
  ops: PatchOp[],
  cwd: string,
  guard: PathGuard,
  fs: PatchFs = nodePatchFs,
): { targets: Array<{ abs: string; real: string }>; refused?: string } {
  const written = ops.flatMap((op) =>
    op.type === "update" && op.movePath !== undefined ? [op.path, op.movePath] : [op.path],
  );
  const targets: Array<{ abs: string; real: string }> = [];
  let refused: string | undefined;
  for (const path of written) {
    const t = realLocation(cwd, path, fs);
    const why = refusal(guard, t.abs, t.real);
    if (why && refused === undefined) refused = `path '${path}' ${why}`;
    if (!targets.some((o) => o.real === t.real)) targets.push(t);
  }
  return refused === undefined ? { targets } : { targets, refused };
}

/** The model's answer to a patch refused for a protected path. */
export const refusedText = (why: string) => `apply_patch refused: ${why}\nNo files were changed.`;

/**
 * Where this call may write beyond `ctx.cwd` (requirements A1/A2): anywhere under danger-full-access;
 * the sandbox's writable roots under workspace-write; and, after the user approves it, any
 * other directory the patch names (writes outside the workspace ask). Declined/`never` → a
 * refusal the model sees; cancel interrupts the turn. Protected paths are refused here, before
 * anyone is asked.
 */
async function writableRootsFor(
  input: string,
  ctx: ToolContext,
  guard: PathGuard,
  fs: PatchFs,
): Promise<{ ok: true; roots: string[] } | { ok: false; message: string }> {
  const { sandbox, approvalPolicy } = ctx.safety;
  let ops: ReturnType<typeof parsePatch>;
  try {
    ops = parsePatch(input);
  } catch {
    return { ok: true, roots: [] }; // the apply step reports the parse error precisely
  }
  const { targets, refused } = patchTargets(ops, ctx.cwd, guard, fs);
  if (refused !== undefined) return { ok: false, message: refusedText(refused) };
  if (sandbox.mode === "danger-full-access") return { ok: true, roots: ["/"] };
  const roots = sandbox.mode === "workspace-write" ? [...sandbox.writableRoots] : [];
  const cwd = resolve(ctx.cwd);
  const within = (dir: string, p: string) => {
    const r = relative(dir, p);
    return r !== "" && !r.startsWith("..") && !isAbsolute(r);
  };
  const outside = targets.filter((t) => !within(cwd, t.abs) && !roots.some((r) => within(resolve(r), t.abs)));
  if (outside.length === 0) return { ok: true, roots };
  // Under `never` nobody is asked: the path check refuses the outside paths precisely.
  if (approvalPolicy === "never") return { ok: true, roots };
  const paths = outside.map((t) => t.real);
  const decision = await ctx.safety.requestApproval({
    kind: "file_change",
    reason: "This patch writes outside the workspace.",
    cwd: ctx.cwd,
    paths,
  });
  if (decision === "cancel")
    throw new AbortError("the user cancelled the file change; the turn is interrupted");
  if (decision === "decline")
    return {
      ok: false,
      message: `The user declined this file change outside the workspace (${paths.join(", ")}).`,
    };
  if (decision === "unavailable") return { ok: false, message: APPROVAL_UNAVAILABLE };
  return { ok: true, roots: [...roots, ...outside.map((t) => dirname(t.abs))] };
}

async function run(input: string, ctx: ToolContext, opts: ApplyPatchToolOptions): Promise<ToolResult> {
  if (ctx.signal.aborted) throw new AbortError("apply_patch was interrupted before it started");
  const fs = opts.fs ?? nodePatchFs;
  const guard = guardFor(ctx, fs);
  const allowed = await writableRootsFor(input, ctx, guard, fs);
  if (!allowed.ok)
    return {
      output: allowed.message,
      success: false,
      display: fileChangeDisplay([], "failed", allowed.message),
    };
  // The guard is checked again while planning: links may have changed during an approval.
  const out = applyPatch(input, ctx.cwd, fs, ctx.signal, allowed.roots, guard);
  if (!out.ok) {
    const output = failureText(out);
    return { output, success: false, display: fileChangeDisplay([], "failed", output) };
  }
  try {
    opts.onApplied?.(out.changes, ctx);
  } catch {
    /* the files are written; a listener's failure must not turn this into an error */
  }
  return {
    output: out.summary,
    success: true,
    display: fileChangeDisplay(displayChanges(out.changes), "completed"),
  };
}

/**
 * The `file_change` display patch. Not yet a TurnItem union member (the lead adds it), so the
 * patch is typed loosely here and passed through as is.
 */
function fileChangeDisplay(
  changes: DisplayChange[],
  status: "completed" | "failed",
  error?: string,
): ToolResult["display"] {
  const item =
    error === undefined
      ? { type: "file_change", changes, status }
      : { type: "file_change", changes, status, error };
  return item as unknown as ToolResult["display"];
}

function startItem(patch: string, callId: string): TurnItem {
  return { id: callId, type: "tool_call", tool: TOOL_NAME, arguments: patch, status: "in_progress" };
}

/** The freeform tool: the model's output is the patch itself, constrained by the Lark grammar. */
export function createApplyPatchCustomTool(opts: ApplyPatchToolOptions = {}): CustomTool {
  return {
    kind: "custom",
    name: TOOL_NAME,
    description: CUSTOM_DESCRIPTION,
    format: { type: "grammar", syntax: "lark", definition: APPLY_PATCH_GRAMMAR },
    displayStart: (args, callId) => startItem(typeof args === "string" ? args : "", callId),
    execute: async (input, ctx) => run(input, ctx, opts),
  };
}

export const ApplyPatchArgs = z.object({
  input: z.string().describe("The entire patch, from '*** Begin Patch' to '*** End Patch'."),
});
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgs>;

/** The function tool variant for providers without custom tools: `{input: string}`. */
export function createApplyPatchFunctionTool(opts: ApplyPatchToolOptions = {}): FunctionTool<ApplyPatchArgs> {
  return {
    kind: "function",
    name: TOOL_NAME,
    description: FUNCTION_DESCRIPTION,
    parameters: ApplyPatchArgs,
    displayStart: (args, callId) => {
      const input = (args as Partial<ApplyPatchArgs> | undefined)?.input;
      return startItem(typeof input === "string" ? input : "", callId);
    },
    execute: async (args, ctx) => run(args.input, ctx, opts),
  };
}

/** Both forms; register the one the provider supports (they share the name `apply_patch`). */
export function createApplyPatchTools(opts: ApplyPatchToolOptions = {}): {
  custom: CustomTool;
  fn: FunctionTool;
} {
  return { custom: createApplyPatchCustomTool(opts), fn: createApplyPatchFunctionTool(opts) };
}
