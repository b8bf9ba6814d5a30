/**
 * Read-only Codex methods that describe the server: `model/list`, `config/read`, `account/read`.
 *
 * Contract:
 * - Answers come from the runtime's effective settings and provider only, never invented:
 *   - `model/list`: the configured model (`model`, default for new threads) of the provider in use.
 *     Tandem serves one provider per process, so another configured provider lists no model and an
 *     unknown one is invalid params. `defaultReasoningEffort` is the configured
 *     `model_reasoning_effort`, else `medium` (the API's default when Tandem sends none);
 *     `supportedReasoningEfforts` are the efforts Tandem's configuration accepts.
 *   - `config/read`: the settings with a Codex `Config` counterpart (model, provider, approval policy,
 *     sandbox, reasoning effort/summary, service tier), under Codex's keys; unset ones are absent.
 *     `on-failure` is reported as `on-request` (Codex has no such policy; Tandem asks the same way).
 *     Tandem has no config layers: `origins` is empty and `layers` null; `cwd` changes nothing.
 *     Values written since start-up by `config/value/write`/`config/batchWrite` (config-write.ts)
 *     replace the start-up ones.
 *   - `account/read`: Tandem has no account and no login. With the `openai` provider it reports
 *     `{type: "apiKey"}` when a key is set in the environment (the only auth it uses) and
 *     `requiresOpenaiAuth: true`; other providers report no account and `requiresOpenaiAuth: false`.
 *     The key itself never leaves the process.
 */

import { Settings } from "../../config/schema.js";
import {
  type CodexAccountResponse,
  type CodexConfig,
  type CodexModel,
  ConfigReadParams,
  GetAccountParams,
  ModelListParams,
} from "../../protocol/app-server.js";
import { writtenConfig } from "./config-write.js";
import { type Ctx, type Method, method, pageOf } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";

const EFFORT_HELP: Record<string, string> = {
  minimal: "Fewest reasoning tokens",
  low: "Light reasoning",
  medium: "Balanced reasoning (the API default)",
  high: "Deeper reasoning",
  xhigh: "Deepest reasoning",
};

const EFFORTS: string[] = Settings.shape.model_reasoning_effort.unwrap().options;

const modelList = method(ModelListParams, ({ server }: Ctx, p) => {
  const { settings, provider } = server.runtime;
  const known = new Set([provider.id, "openai", ...Object.keys(settings.model_providers)]);
  const wanted = p.modelProvider ?? provider.id;
  if (!known.has(wanted))
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params for model/list: modelProvider: no provider "${wanted}" is configured`,
      { modelProvider: wanted },
    );
  const name = settings.model_providers[provider.id]?.name ?? provider.id;
  const models: CodexModel[] =
    wanted !== provider.id
      ? []
      : [
          {
            id: settings.model,
            model: settings.model,
            displayName: settings.model,
            description: `The configured model, served by provider ${name}`,
            hidden: false,
            isDefault: true,
            defaultReasoningEffort: settings.model_reasoning_effort ?? "medium",
            supportedReasoningEfforts: EFFORTS.map((e) => ({
              reasoningEffort: e,
              description: EFFORT_HELP[e] ?? e,
            })),
            inputModalities: ["text", "image"],
          },
        ];
  return pageOf("model/list", models, p);
});

const configRead = method(ConfigReadParams, ({ server }: Ctx) => {
  const s = server.runtime.settings;
  const config: CodexConfig = {
    model: s.model,
    model_provider: server.runtime.provider.id,
    approval_policy: s.approval_policy === "on-failure" ? "on-request" : s.approval_policy,
    approvals_reviewer: "user",
    sandbox_mode: s.sandbox_mode,
    sandbox_workspace_write: {
      network_access: s.sandbox_workspace_write.network_access,
      writable_roots: s.sandbox_workspace_write.writable_roots,
    },
    ...(s.model_reasoning_effort ? { model_reasoning_effort: s.model_reasoning_effort } : {}),
    ...(s.model_reasoning_summary ? { model_reasoning_summary: s.model_reasoning_summary } : {}),
    ...(s.service_tier ? { service_tier: s.service_tier } : {}),
    ...(s.model_context_window ? { model_context_window: s.model_context_window } : {}),
  };
  // What config/value/write and config/batchWrite saved since start-up (null: removed).
  for (const [key, value] of writtenConfig(server)) {
    const shown = key === "approval_policy" && value === "on-failure" ? "on-request" : value;
    if (value === null) delete (config as Record<string, unknown>)[key];
    else (config as Record<string, unknown>)[key] = shown;
  }
  return { config, origins: {}, layers: null };
});

const accountRead = method(GetAccountParams, ({ server }: Ctx): CodexAccountResponse => {
  const { provider } = server.runtime;
  if (provider.id !== "openai") return { account: null, requiresOpenaiAuth: false };
  return { account: provider.apiKey ? { type: "apiKey" } : null, requiresOpenaiAuth: true };
});

export const INFO_METHODS: Record<string, Method<any>> = {
  "model/list": modelList,
  "config/read": configRead,
  "account/read": accountRead,
};
