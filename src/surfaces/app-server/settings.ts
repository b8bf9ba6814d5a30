/**
 * Codex thread-settings methods: `thread/settings/update`, `permissionProfile/list`,
 * `collaborationMode/list`, `configRequirements/read`, and the `ThreadSettings` object they report.
 *
 * Contract:
 * - `thread/settings/update` changes the thread's later turns: model, reasoning effort,
 *   collaboration mode (its `settings.model` and `settings.reasoning_effort` apply too: the effort
 *   follows the mode; a null one when switching modes falls back to the configuration's, and
 *   keeps the thread's effort when the mode stays), approval policy, sandbox
 *   policy or permission profile (not both: -32602), cwd (an existing directory). Null or absent
 *   fields keep what the thread has. It answers `{}`, then every connection attached to the thread
 *   (and the caller) gets `thread/settings/updated` with the full settings now in force.
 *   An effort Tandem does not know is ignored with a `warning` notification, as on turn/start.
 * - `permissionProfile/list` lists Tandem's three profiles (protocol/app-server-settings.ts), all
 *   allowed: Tandem has no managed requirements, so `configRequirements/read` is `{requirements: null}`.
 * - `collaborationMode/list` lists Plan (medium effort, as Codex presets it) and Default (the
 *   thread's effort); `model` null means "the thread's model".
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import * as z from "zod";
import {
  PageParams,
  PERMISSION_PROFILES,
  ThreadSettingsUpdateParams,
} from "../../protocol/app-server-settings.js";
import { TurnOptions } from "../../protocol/ops.js";
import type { ThreadSettingsPatch } from "../../protocol/threads.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import type { ServerContext } from "./context.js";
import { type Ctx, type Method, method, pageOf } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { activeProfile, safetyOf, safetyPatch } from "./safety.js";
import { effortOf } from "./thread-config.js";
import { requireThread } from "./threads.js";

/** Codex's Plan preset effort (collaborationMode/list in Codex 0.171). */
const PLAN_EFFORT = "medium";

/** The Codex `ThreadSettings` in force for a thread. */
export function threadSettings(server: ServerContext, thread: Thread) {
  const { record } = thread;
  const safety = safetyOf(thread);
  const effort = effortOf(server, thread);
  const s = server.runtime.settings;
  return {
    cwd: record.cwd,
    environments: [{ environmentId: "local", cwd: record.cwd, runtimeWorkspaceRoots: [record.cwd] }],
    approvalPolicy: safety.approvalPolicy,
    approvalsReviewer: "user",
    sandboxPolicy: safety.sandbox,
    activePermissionProfile: activeProfile(thread),
    model: record.model,
    modelProvider: server.runtime.provider.id,
    serviceTier: s.service_tier ?? null,
    effort,
    summary: s.model_reasoning_summary ?? null,
    collaborationMode: {
      mode: record.mode,
      settings: { model: record.model, reasoning_effort: effort, developer_instructions: null },
    },
    disabledPluginIds: [],
  };
}

/** The thread to change: loaded, or a stored one opened for this connection. */
function loadThread(ctx: Ctx, threadId: string): Thread {
  requireThread(ctx.server, threadId);
  ctx.session.attach(threadId);
  return ctx.server.runtime.threads.open(threadId);
}

const settingsUpdate = method(ThreadSettingsUpdateParams, (ctx: Ctx, p) => {
  const { server, session } = ctx;
  const name = "thread/settings/update";
  const safety = safetyPatch(p, name);
  let cwd: string | undefined;
  if (p.cwd) {
    cwd = resolve(p.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory())
      throw new RpcError(
        ErrorCode.InvalidParams,
        `invalid params for ${name}: cwd ${cwd} is not a directory`,
      );
  }
  const thread = loadThread(ctx, p.threadId);
  // The safety settings and the rest are one change of the thread (runtime.threads.updateSettings).
  const patch: ThreadSettingsPatch = { ...safety };
  const mode = p.collaborationMode;
  const model = mode?.settings.model ?? p.model;
  if (model) patch.model = model;
  if (mode) patch.mode = mode.mode;
  if (cwd) patch.cwd = cwd;
  // An update changes only what it names: the mode's effort wins; a mode without one switching
  // modes means "no effort of the thread's own", and the mode the thread already has (what a
  // client re-sends with `/permissions`) keeps its effort.
  const switching = mode !== undefined && mode !== null && mode.mode !== thread.record.mode;
  const modeEffort = mode?.settings.reasoning_effort ?? (switching ? null : undefined);
  // A null `effort` field is "not named" (as every null field here), never "clear".
  const effortText = modeEffort !== undefined ? modeEffort : (p.effort ?? undefined);
  if (effortText === null) patch.effort = null;
  else if (effortText !== undefined) {
    const effort = TurnOptions.shape.effort.safeParse(effortText);
    if (effort.success && effort.data) patch.effort = effort.data;
    else
      session.notify("warning", {
        threadId: p.threadId,
        message: `reasoning effort "${effortText}" is not supported by Tandem (minimal, low, medium, high, xhigh); the thread keeps its effort`,
      });
  }
  server.runtime.threads.updateSettings(thread.id, patch);
  const params = { threadId: thread.id, threadSettings: threadSettings(server, thread) };
  // After the response (rpc.ts holds notifications made while a handler runs).
  server.notifyThread(thread.id, "thread/settings/updated", params, session);
  return {};
});

const permissionProfiles = method(PageParams.extend({ cwd: z.string().nullish() }), (_ctx: Ctx, p) =>
  pageOf(
    "permissionProfile/list",
    Object.entries(PERMISSION_PROFILES).map(([id, profile]) => ({
      id,
      description: profile.description,
      allowed: true,
    })),
    p,
  ),
);

const collaborationModes = method(z.object({}).passthrough(), ({ server }: Ctx) => ({
  data: [
    { name: "Plan", mode: "plan", model: null, reasoning_effort: PLAN_EFFORT },
    {
      name: "Default",
      mode: "default",
      model: null,
      reasoning_effort: server.runtime.settings.model_reasoning_effort ?? null,
    },
  ],
}));

const configRequirements = method(z.unknown(), () => ({ requirements: null }));

export const SETTINGS_METHODS: Record<string, Method<any>> = {
  "thread/settings/update": settingsUpdate,
  "permissionProfile/list": permissionProfiles,
  "collaborationMode/list": collaborationModes,
  "configRequirements/read": configRequirements,
};
