/**
 * Codex sandbox and approval settings ↔ a Tandem thread's (requirements A1): `thread/start`
 * `sandbox`/`approvalPolicy`, `turn/start` `sandboxPolicy`/`approvalPolicy` ("this turn and the
 * next ones", as Codex documents them), and the settings reported by thread/start and thread/resume.
 *
 * Contract:
 * - Settings are stored with the thread through the runtime (`runtime.threads.updateSettings`:
 *   `sandbox_mode`, `approval_policy`, `writable_roots`, `network_access`, `permission_profile`), so
 *   they also hold after a resume. Absent (or null) params leave the thread's settings, and so the
 *   configuration, in force.
 * - `externalSandbox` (the client already sandboxes the process) runs commands without Tandem's
 *   sandbox, as `danger-full-access`. Granular approval policies reduce to `sandbox_approval`
 *   (true → on-request, false → never).
 * - Reported settings are the ones in force for the thread, never a default it does not use.
 */
import { resolve } from "node:path";
import type { AskForApproval, SandboxMode, SandboxPolicy } from "../../protocol/app-server.js";
import { PERMISSION_PROFILES, type PermissionProfileId } from "../../protocol/app-server-settings.js";
import type { ApprovalPolicy, ThreadSettingsPatch } from "../../protocol/threads.js";
import type { Runtime } from "../../runtime/core.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import { ErrorCode, RpcError } from "./rpc.js";

export type SafetyPatch = Pick<
  ThreadSettingsPatch,
  "sandbox_mode" | "network_access" | "writable_roots" | "approval_policy" | "permission_profile"
>;

function approvalPolicy(p: AskForApproval): ApprovalPolicy {
  return typeof p === "string" ? p : p.granular.sandbox_approval ? "on-request" : "never";
}

function sandboxPolicy(p: SandboxPolicy): SafetyPatch {
  switch (p.type) {
    case "dangerFullAccess":
    case "externalSandbox":
      return { sandbox_mode: "danger-full-access" };
    case "readOnly":
      return { sandbox_mode: "read-only", network_access: p.networkAccess ?? false };
    case "workspaceWrite":
      return {
        sandbox_mode: "workspace-write",
        network_access: p.networkAccess ?? false,
        ...(p.writableRoots ? { writable_roots: p.writableRoots.map((r) => resolve(r)) } : {}),
      };
  }
}

/**
 * The thread settings a request's Codex params ask for (empty when it asks for none).
 * `permissions` selects a profile (its sandbox); an explicit sandbox forgets the profile.
 * A profile id Tandem does not have is invalid params (-32602) of `method`.
 */
export function safetyPatch(
  p: {
    sandbox?: SandboxMode | null;
    sandboxPolicy?: SandboxPolicy | null;
    approvalPolicy?: AskForApproval | null;
    permissions?: string | null;
  },
  method = "the request",
): SafetyPatch {
  const explicit = p.sandbox || p.sandboxPolicy;
  if (explicit && p.permissions)
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params for ${method}: permissions cannot be combined with a sandbox; send one of them`,
    );
  return {
    ...(p.permissions ? profilePatch(p.permissions, method) : {}),
    ...(explicit ? { permission_profile: null } : {}),
    ...(p.sandbox ? { sandbox_mode: p.sandbox } : {}),
    ...(p.sandboxPolicy ? sandboxPolicy(p.sandboxPolicy) : {}),
    ...(p.approvalPolicy ? { approval_policy: approvalPolicy(p.approvalPolicy) } : {}),
  };
}

function profilePatch(id: string, method: string): SafetyPatch {
  if (!Object.hasOwn(PERMISSION_PROFILES, id))
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params for ${method}: permissions: no permission profile "${id}"; Tandem has ${Object.keys(PERMISSION_PROFILES).join(", ")}`,
      { permissions: id },
    );
  return { sandbox_mode: PERMISSION_PROFILES[id as PermissionProfileId].sandbox, permission_profile: id };
}

/** The permission profile the thread runs with, when one was selected and still applies. */
export function activeProfile(thread: Thread): { id: string; extends: null } | null {
  const id = thread.record.settings.permission_profile;
  return id !== undefined ? { id, extends: null } : null;
}

/** Stores the patch with the thread (live record and store). Call it while no turn runs. */
export function applySafety(runtime: Runtime, thread: Thread, patch: SafetyPatch): void {
  if (Object.keys(patch).length === 0) return;
  // A thread without input yet is stored later with its live record.
  runtime.threads.updateSettings(thread.id, patch);
}

/** The Codex `approvalPolicy` and `sandbox` (SandboxPolicy) in force for the thread. */
export function safetyOf(thread: Thread) {
  const sandbox = thread.sandbox();
  const policy = thread.approvalPolicy();
  return {
    approvalPolicy: policy === "on-failure" ? ("on-request" as const) : policy,
    sandbox:
      sandbox.mode === "read-only"
        ? { type: "readOnly" as const, networkAccess: sandbox.network }
        : sandbox.mode === "danger-full-access"
          ? { type: "dangerFullAccess" as const }
          : {
              type: "workspaceWrite" as const,
              writableRoots: sandbox.writableRoots,
              networkAccess: sandbox.network,
            },
  };
}
