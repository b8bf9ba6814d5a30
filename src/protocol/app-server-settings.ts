/**
 * Codex v2 params for thread settings and the read-only inventory methods a Codex client calls at
 * startup (`permissionProfile/list`, `skills/list`, …). Split from app-server.ts to keep files small.
 * Shapes follow Codex 0.171.0's schema (test/fixtures/codex-app-server-protocol.schemas.json).
 */
import * as z from "zod";
import { AskForApproval, CollaborationModeParam, SandboxPolicy } from "./app-server.js";

/**
 * Tandem's permission profiles, as Codex names its built-in ones. Each maps to a sandbox mode;
 * `permissions` on thread/start, thread/settings/update and turn/start selects one.
 */
export const PERMISSION_PROFILES = {
  ":read-only": {
    sandbox: "read-only",
    description: "Read files anywhere; commands cannot write or reach the network",
  },
  ":workspace": {
    sandbox: "workspace-write",
    description: "Write inside the workspace and temp dirs; no network; .git stays read-only",
  },
  ":danger-full-access": {
    sandbox: "danger-full-access",
    description: "No sandbox: commands run with your full access",
  },
} as const;
export type PermissionProfileId = keyof typeof PERMISSION_PROFILES;

export const ThreadSettingsUpdateParams = z.object({
  threadId: z.string(),
  model: z.string().nullish().describe("Model for later turns"),
  effort: z.string().nullish().describe("Reasoning effort for later turns"),
  collaborationMode: CollaborationModeParam.nullish().describe(
    "Mode for later turns; its settings.model and settings.reasoning_effort apply too",
  ),
  approvalPolicy: AskForApproval.nullish(),
  sandboxPolicy: SandboxPolicy.nullish(),
  permissions: z.string().nullish().describe("A permission profile id from permissionProfile/list"),
  cwd: z.string().nullish().describe("Working directory for later turns"),
});
export type ThreadSettingsUpdateParams = z.infer<typeof ThreadSettingsUpdateParams>;

/** `{cwds}` lists (skills/list, hooks/list, plugin/installed): one answer per directory. */
export const CwdsParams = z.object({ cwds: z.array(z.string()).nullish() });

/** List methods with only a cursor and limit. */
export const PageParams = z.object({
  cursor: z.string().nullish(),
  limit: z.number().int().min(0).nullish(),
});

export const ThreadIdOnly = z.object({ threadId: z.string() });

export const ThreadTurnsListParams = z.object({
  threadId: z.string(),
  cursor: z.string().nullish(),
  limit: z.number().int().min(0).nullish(),
  sortDirection: z.enum(["asc", "desc"]).nullish(),
  itemsView: z.string().nullish(),
});
