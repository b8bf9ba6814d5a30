/**
 * Builds a Runtime from configuration: settings (config.toml ← --config), the store (`--store`,
 * else `store.url`, else SQLite at `$TANDEM_HOME/state.db`), and the provider's model client. Surfaces call this once.
 * The API key comes from the environment (the provider's `env_key`), else from `tandem login`.
 */

import { join } from "node:path";
import { ConfigError, loadConfig, type ResolvedProvider, resolveProvider } from "../config/load.js";
import type { Settings } from "../config/schema.js";
import { createChatClient } from "../model/chat.js";
import { createResponsesClient } from "../model/responses.js";
import { createResponsesWsClient } from "../model/responses-ws.js";
import type { ModelClient } from "../model/types.js";
import { openStore } from "../store/index.js";
import type { IdSource } from "../util/ids.js";
import { applyLogSetting } from "../util/log-file.js";
import { Runtime } from "./core.js";
import { loadApiKey } from "./credentials.js";

export interface CreateRuntimeOptions {
  overrides?: string[];
  home?: string;
  /** Require an API key (exec, TUI); mock/demo runs pass their own. */
  requireKey?: boolean;
  ids?: IdSource;
  model?: ModelClient;
  env?: NodeJS.ProcessEnv;
  /** Store target (`--store`): a path or a postgres:// URL; else `store.url`, else the home's state.db. */
  store?: string;
  /** This node's id on its thread leases (PostgreSQL store; `tandem serve --node-id`). */
  node?: string;
}

export class MissingKeyError extends ConfigError {}

/** The model client for the provider's wire: Responses over HTTP or WebSocket, or Chat Completions. */
export function createModelClient(
  provider: ResolvedProvider,
  settings: Settings,
  apiKey: string,
): ModelClient {
  const common = { baseUrl: provider.baseUrl, apiKey, idleTimeoutMs: settings.stream_idle_timeout_ms };
  if (provider.wire === "chat") return createChatClient(common);
  if (provider.wire === "responses_websocket") return createResponsesWsClient(common);
  return createResponsesClient(common);
}

export function createRuntime(opts: CreateRuntimeOptions = {}): {
  runtime: Runtime;
  warnings: string[];
  settings: Settings;
  provider: ResolvedProvider;
} {
  const { settings, warnings, home } = loadConfig({ overrides: opts.overrides, home: opts.home });
  const provider = resolveProvider(settings, opts.env ?? process.env);
  const needKey = !opts.model && opts.requireKey !== false;
  // No key in the environment: the one `tandem login` stored (runtime/credentials.ts).
  if (!provider.apiKey && !opts.model) {
    try {
      provider.apiKey = loadApiKey(home, provider.id);
    } catch (err) {
      if (needKey) throw err;
    }
  }
  if (needKey && !provider.apiKey) {
    throw new MissingKeyError(
      `no API key: set ${provider.envKey} (or CODEX_API_KEY) for provider "${provider.id}" at ${provider.baseUrl}, ` +
        "or run `tandem login` to store one.\n" +
        "To try Tandem offline on the built-in scripted model, run `tandem demo`.",
    );
  }
  applyLogSetting(settings.log_level, home, opts.env);
  const apiKey = provider.apiKey ?? "unset";
  const model = opts.model ?? createModelClient(provider, settings, apiKey);
  const store = openStore(opts.store ?? settings.store?.url ?? join(home, "state.db"), { node: opts.node });
  const runtime = new Runtime({ settings, store, model, provider, ids: opts.ids, home });
  return { runtime, warnings, settings, provider };
}
