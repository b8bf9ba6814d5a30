/**
 * What the TUI's settings and information commands compute, pure over a thread and the runtime:
 * the startup header, `/status`, `/diff`, `/init`, the `/model` and `/approvals` arguments and
 * pickers' choices, and the `/threads` and `/resume` lists.
 *
 * Contract:
 * - Settings chosen in the TUI are a `SettingsPatch`; `applyPatch` stores it with the thread
 *   through the runtime (`runtime.threads.updateSettings`: the model, effort, sandbox and approval
 *   policy), as the app-server's thread settings do, so it holds for later turns and after a
 *   resume. A key given without a value clears the thread's own. Call it while no turn runs.
 * - Nothing here invents a value: a context window is shown only for models whose window is known.
 */

import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Usage } from "../../protocol/events.js";
import type { TurnOptions } from "../../protocol/ops.js";
import type { ThreadSettingsPatch } from "../../protocol/threads.js";
import type { Runtime } from "../../runtime/core.js";
import { settledStatus } from "../../runtime/thread-status.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import { shortThreadId, threadTable } from "../shared/thread-table.js";
import { compact } from "./format.js";
import { ago, type PickerItem } from "./picker.js";

export type Effort = NonNullable<TurnOptions["effort"]>;
export type SandboxMode = NonNullable<TurnOptions["sandbox"]>;
export type ApprovalPolicy = NonNullable<TurnOptions["approval_policy"]>;

export const EFFORTS: readonly Effort[] = ["minimal", "low", "medium", "high", "xhigh"];
export const SANDBOXES: readonly SandboxMode[] = ["read-only", "workspace-write", "danger-full-access"];
export const POLICIES: readonly ApprovalPolicy[] = ["untrusted", "on-request", "on-failure", "never"];

export interface SettingsPatch {
  model?: string;
  effort?: Effort;
  sandbox_mode?: SandboxMode;
  approval_policy?: ApprovalPolicy;
}

/** Models offered by the `/model` picker besides the configured and current ones. */
export const KNOWN_MODELS = [
  "gpt-5.2-codex",
  "gpt-5.2",
  "gpt-5.1-codex-max",
  "gpt-5.1-codex-mini",
  "gpt-5-codex",
];

/** Context windows (tokens) of models whose window is published; others show "unknown". */
const CONTEXT_WINDOWS: Array<[RegExp, number]> = [
  [/^gpt-5/, 272_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-4o/, 128_000],
  [/^o[34]/, 200_000],
];

export function contextWindow(model: string): number | undefined {
  return CONTEXT_WINDOWS.find(([re]) => re.test(model))?.[1];
}

/** The approval presets of the `/approvals` picker (Codex's three). */
export const PRESETS: Record<string, { label: string; detail: string; patch: SettingsPatch }> = {
  "read-only": {
    label: "Read only",
    detail: "reads files; asks before editing or running anything that writes",
    patch: { sandbox_mode: "read-only", approval_policy: "on-request" },
  },
  auto: {
    label: "Auto",
    detail: "edits and runs commands in the workspace; asks before going beyond it",
    patch: { sandbox_mode: "workspace-write", approval_policy: "on-request" },
  },
  "full-access": {
    label: "Full access",
    detail: "no sandbox, never asks — use with care",
    patch: { sandbox_mode: "danger-full-access", approval_policy: "never" },
  },
};

type Parsed = { ok: true; patch: SettingsPatch } | { ok: false; error: string };

/** `/model NAME [EFFORT]` or `/model EFFORT`. */
export function parseModelArgs(arg: string): Parsed {
  const words = arg.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0 || words.length > 2)
    return { ok: false, error: "usage: /model [NAME] [EFFORT] (EFFORT: minimal, low, medium, high, xhigh)" };
  const isEffort = (w: string) => (EFFORTS as readonly string[]).includes(w);
  if (words.length === 1 && isEffort(words[0])) return { ok: true, patch: { effort: words[0] as Effort } };
  if (words[1] !== undefined && !isEffort(words[1]))
    return { ok: false, error: `unknown effort "${words[1]}"; choose one of ${EFFORTS.join(", ")}` };
  return { ok: true, patch: { model: words[0], ...(words[1] ? { effort: words[1] as Effort } : {}) } };
}

/** `/approvals` words: a preset (auto, full-access), an approval policy and/or a sandbox mode. */
export function parseApprovalArgs(arg: string): Parsed {
  let patch: SettingsPatch = {};
  for (const w of arg.trim().split(/\s+/).filter(Boolean)) {
    if ((SANDBOXES as readonly string[]).includes(w)) patch.sandbox_mode = w as SandboxMode;
    else if ((POLICIES as readonly string[]).includes(w)) patch.approval_policy = w as ApprovalPolicy;
    else if (w in PRESETS) patch = { ...patch, ...PRESETS[w].patch };
    else
      return {
        ok: false,
        error: `unknown "${w}"; use a policy (${POLICIES.join(", ")}), a sandbox (${SANDBOXES.join(", ")}) or a preset (${Object.keys(PRESETS).join(", ")})`,
      };
  }
  return { ok: true, patch };
}

/** Stores the patch with the thread (see the contract). */
export function applyPatch(runtime: Runtime, thread: Thread, patch: SettingsPatch): void {
  const change: ThreadSettingsPatch = {};
  if (patch.model) change.model = patch.model;
  if ("effort" in patch) change.effort = patch.effort ?? null;
  if ("sandbox_mode" in patch) change.sandbox_mode = patch.sandbox_mode ?? null;
  if ("approval_policy" in patch) change.approval_policy = patch.approval_policy ?? null;
  // A thread not stored yet (no input so far) is stored later with its live record.
  runtime.threads.updateSettings(thread.id, change);
}

/** The reasoning effort in force for the thread's next turn, if any is set (a role may set any). */
export function effortOf(runtime: Runtime, thread: Thread): string | undefined {
  return thread.record.settings.effort ?? runtime.settings.model_reasoning_effort;
}

export function describePatch(patch: SettingsPatch): string {
  const parts = [
    patch.model ? `model ${patch.model}` : "",
    patch.effort ? `effort ${patch.effort}` : "",
    patch.approval_policy ? `approvals ${patch.approval_policy}` : "",
    patch.sandbox_mode ? `sandbox ${patch.sandbox_mode}` : "",
  ];
  return parts.filter(Boolean).join(", ");
}

/** `/model`'s list: the thread's and the configured model, then what the provider lists, then the known ones. */
export function modelChoices(runtime: Runtime, thread: Thread, listed: readonly string[] = []): PickerItem[] {
  const names = [...new Set([thread.record.model, runtime.settings.model, ...listed, ...KNOWN_MODELS])];
  const from = new Set(listed);
  return names.map((m) => ({
    label: m,
    value: m,
    current: m === thread.record.model,
    detail:
      [
        m === runtime.settings.model ? "configured" : "",
        from.has(m) ? `listed by ${runtime.provider.id}` : "",
      ]
        .filter(Boolean)
        .join(" · ") || undefined,
  }));
}

export function effortChoices(current: string | undefined): PickerItem[] {
  // Unset, the provider's default applies: nothing is marked current, "medium" is preselected.
  return EFFORTS.map((e) => ({ label: e, value: e, current: e === current, initial: e === "medium" }));
}

export function approvalChoices(thread: Thread): PickerItem[] {
  const mode = thread.sandbox().mode;
  const policy = thread.approvalPolicy();
  return Object.entries(PRESETS).map(([value, p]) => ({
    label: p.label,
    value,
    detail: `${p.patch.approval_policy} · ${p.patch.sandbox_mode} — ${p.detail}`,
    current: p.patch.sandbox_mode === mode && p.patch.approval_policy === policy,
  }));
}

const sandboxText = (thread: Thread) => {
  const s = thread.sandbox();
  return s.mode === "workspace-write" ? `${s.mode} (network ${s.network ? "on" : "off"})` : s.mode;
};

/** The startup header's lines (model, directory, sandbox, approvals). */
export function headerLines(runtime: Runtime, thread: Thread): string[] {
  const effort = effortOf(runtime, thread);
  return [
    `model:     ${thread.record.model}${effort ? ` (effort ${effort})` : ""}`,
    `directory: ${thread.record.cwd}`,
    `sandbox:   ${sandboxText(thread)}`,
    `approvals: ${thread.approvalPolicy()}`,
    "Type / for commands, /help for keys.",
  ];
}

/** `/status`: what the next turn uses and what the thread has used. */
export function statusLines(runtime: Runtime, thread: Thread, last: Usage | undefined): string[] {
  const r = thread.record;
  const effort = effortOf(runtime, thread);
  const u = thread.totalUsage;
  const window = contextWindow(r.model);
  const inContext = last ? last.input_tokens + last.output_tokens : 0;
  const context = !window
    ? `unknown (the context window of ${r.model} is not known)`
    : !last && u.total_tokens > 0
      ? `known after the next response (window ${compact(window)})`
      : `${Math.max(0, Math.round(((window - inContext) / window) * 100))}% left (${compact(inContext)} of ${compact(window)} in use)`;
  return [
    "Status",
    `  model:      ${r.model}${effort ? ` (effort ${effort})` : " (effort: model default)"}`,
    `  provider:   ${runtime.provider.id} — ${runtime.provider.baseUrl}`,
    `  directory:  ${r.cwd}`,
    `  sandbox:    ${sandboxText(thread)}`,
    `  approvals:  ${thread.approvalPolicy()}`,
    `  mode:       ${r.mode}`,
    `  thread:     ${thread.id}${r.title ? ` — ${r.title}` : ""}`,
    `  tokens:     ${compact(u.total_tokens)} used in this thread (input ${compact(u.input_tokens)}, cached ${compact(u.cached_input_tokens)}, output ${compact(u.output_tokens)})`,
    `  context:    ${context}`,
  ];
}

/** `/diff`: the current (or last) turn's net file changes, or why there is nothing to show. */
export function diffText(thread: Thread): { text: string; empty: boolean } {
  const diff = thread.turnDiff();
  if (diff) return { text: diff.replace(/\n$/, ""), empty: false };
  return {
    text: thread.active
      ? "No file changes in the running turn yet."
      : thread.lastOutcome
        ? "The last turn changed no files."
        : "No turn has run in this session yet; /diff shows the current or last turn's file changes.",
    empty: true,
  };
}

export const AGENTS_SKELETON = `# AGENTS.md

Guidance for coding agents working in this repository.

## Project overview
<!-- What this project is, its main parts and where they live. -->

## Build and test
<!-- The commands to install, build, lint and test, e.g. \`npm ci\`, \`npm test\`. -->

## Code style
<!-- Language versions, formatting, naming and the conventions to follow. -->

## Working rules
<!-- What to do and not do: files never to edit, how to commit, what to check before finishing. -->
`;

/** `/init`: writes AGENTS.md into `cwd` unless one exists. */
export function initAgentsMd(cwd: string): { ok: boolean; message: string } {
  const path = join(cwd, "AGENTS.md");
  if (existsSync(path)) return { ok: false, message: `${path} already exists; /init leaves it as it is.` };
  try {
    writeFileSync(path, AGENTS_SKELETON, { flag: "wx" });
  } catch (err) {
    return { ok: false, message: `could not write ${path}: ${(err as Error).message}` };
  }
  return { ok: true, message: `Wrote ${path}: a skeleton to fill in (new threads include it).` };
}

/** `/threads`: recent threads, the shown one starred (undefined when there are none). */
export function threadListLines(runtime: Runtime, shown: string): string[] | undefined {
  const threads = runtime.threads.list({ limit: 15 });
  if (!threads.length) return undefined;
  const rows = threads.map((t) => ({
    ...t,
    status: settledStatus(t.status, runtime.threads.lastTurn(t.id)?.status),
    pending: runtime.questions.stored(t.id).length,
  }));
  return [
    "Threads (/resume ID to open one; the ID's last characters are enough):",
    ...threadTable(rows, { ids: "short", shown }),
  ];
}

/** The `/resume` picker's threads: newest first, without the one shown, with titles and ages. */
export function resumeChoices(runtime: Runtime, shown: string, now = Date.now()): PickerItem[] {
  return runtime.threads
    .list({ limit: 50 })
    .filter((t) => t.id !== shown)
    .map((t) => {
      const pending = runtime.questions.stored(t.id).length;
      const waiting = pending ? ` · ${pending} question(s) waiting` : "";
      return {
        label: t.title || "(no messages)",
        value: t.id,
        detail: `${ago(t.updated_at, now)} · ${settledStatus(t.status, runtime.threads.lastTurn(t.id)?.status)}${waiting} · ${shortThreadId(t.id)}`,
      };
    });
}
