/**
 * Settings schema. One zod definition validates `$TANDEM_HOME/config.toml` and `--config`
 * overrides; unknown keys are reported (a warning), never silently applied.
 */
import * as z from "zod";
import { QuestionPolicy } from "../protocol/questions.js";
import { AgentsConfig } from "./agents.js";

export const ProviderConfig = z.strictObject({
  name: z.string().optional(),
  base_url: z.string().optional().describe("API base URL, e.g. https://api.openai.com/v1"),
  env_key: z.string().optional().describe("Environment variable holding the API key"),
  /** responses_websocket: the Responses wire over one WebSocket per thread (requirements L13). */
  wire: z.enum(["responses", "chat", "responses_websocket"]).default("responses"),
  /** Responses Lite (requirements L12): tools travel in an additional_tools input item. */
  lite: z.boolean().optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

const cap = (value: number, what: string) =>
  z.number().int().positive().default(value).describe(`Most ${what}`);

export const QuestionsConfig = z.strictObject({
  enabled: z.boolean().default(true),
  /** Whether Default collaboration mode may ask (Plan mode always may). */
  default_mode: z.boolean().default(false),
  policy: QuestionPolicy.default({ type: "wait" }),
  sub_agents: z.enum(["relay", "deny"]).default("relay"),
  // Caps (questions/limits.ts, README "Limits on questions"). The model's requests, approvals and
  // MCP elicitations each have their own pending allowance (the internal caps apply to each).
  max_pending_per_thread: cap(8, "request_user_input calls waiting at once in one thread"),
  max_pending: cap(64, "request_user_input calls waiting at once in the whole process"),
  max_pending_internal_per_thread: cap(
    32,
    "approvals waiting at once in one thread, and as many MCP elicitations apart",
  ),
  max_pending_internal: cap(
    256,
    "approvals waiting at once in the whole process, and as many MCP elicitations apart",
  ),
  max_request_bytes: cap(32_768, "bytes of one request as JSON (questions, options, approval details)"),
  max_prompt_chars: cap(2_000, "characters of a question's text"),
  max_option_chars: cap(500, "characters of an option's label, and of its description"),
  max_header_chars: cap(64, "characters of a question's header"),
});

/** Checkpoints (README "Undo, redo, fork and rewind"): how long and how much earlier contents are kept. */
export const CheckpointsConfig = z.strictObject({
  max_age_days: z
    .number()
    .positive()
    .default(30)
    .describe("Checkpoints older than this many days are dropped (checked when a workspace opens)"),
  max_bytes: z
    .number()
    .int()
    .positive()
    .default(1 << 30)
    .describe(
      "Most bytes (compressed) of earlier contents only checkpoints keep, per workspace; past it the oldest go",
    ),
});

/** An environment variable name: what `env` can hold (no `=`, no NUL, not empty). */
const EnvName = z
  .string()
  .regex(/^[^=\0]+$/, "an environment variable name must be non-empty, without = or NUL");

/**
 * Which of Tandem's environment the model's commands see (Codex's `shell_environment_policy`;
 * the order the fields apply in is documented in tools/exec/env-policy.ts).
 */
export const ShellEnvironmentPolicy = z.strictObject({
  inherit: z
    .enum(["all", "core", "none"])
    .default("all")
    .describe(
      "all: every variable; core: HOME, LOGNAME, PATH, SHELL, USER, USERNAME, TMPDIR, TEMP, TMP; none",
    ),
  ignore_default_excludes: z
    .boolean()
    .default(false)
    .describe("true keeps *KEY*, *SECRET*, *TOKEN* and TANDEM_* variables (dropped by default)"),
  exclude: z.array(z.string()).default([]).describe("globs (* and ?, case-insensitive) of names to drop"),
  set: z
    .record(EnvName, z.string().regex(/^[^\0]*$/, "a value must not contain NUL"))
    .default({})
    .describe("variables to set (after the excludes)"),
  include_only: z
    .array(z.string())
    .default([])
    .describe("if non-empty, keep only names matching these globs"),
});
export type ShellEnvironmentPolicy = z.infer<typeof ShellEnvironmentPolicy>;

/** An MCP server's name: what `mcp__<server>__<tool>` tool names are built from. */
export const McpServerName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]+$/, "an MCP server name may hold only letters, digits, _ and -");

/**
 * One `[mcp_servers.NAME]` table (Codex's shape): `command` (+ args, env, cwd) for a stdio server
 * or `url` (+ bearer_token_env_var, http_headers) for a streamable HTTP one — exactly one of the
 * two. Timeouts are seconds; `enabled_tools` / `disabled_tools` filter the server's tool names.
 */
export const McpServerConfig = z
  .strictObject({
    command: z.string().min(1, "must not be empty").optional().describe("stdio: the program to start"),
    args: z.array(z.string()).optional().describe("stdio: its arguments"),
    env: z.record(EnvName, z.string()).optional().describe("stdio: variables added to its environment"),
    cwd: z.string().optional().describe("stdio: its working directory"),
    url: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .optional()
      .describe("streamable HTTP: the server's URL"),
    bearer_token_env_var: EnvName.optional().describe("HTTP: variable holding a bearer token"),
    http_headers: z.record(z.string(), z.string()).optional().describe("HTTP: extra request headers"),
    enabled: z.boolean().default(true),
    startup_timeout_sec: z.number().positive().default(10),
    tool_timeout_sec: z.number().positive().default(60),
    enabled_tools: z.array(z.string()).optional().describe("only these tools (server's names)"),
    disabled_tools: z.array(z.string()).optional().describe("never these tools (server's names)"),
  })
  .superRefine((s, ctx) => {
    if (!s.command === !s.url)
      ctx.addIssue({
        code: "custom",
        message: "set exactly one of `command` (a stdio server) or `url` (a streamable HTTP server)",
      });
    const wrong = s.url
      ? (["args", "env", "cwd"] as const).filter((k) => s[k] !== undefined)
      : (["bearer_token_env_var", "http_headers"] as const).filter((k) => s[k] !== undefined);
    for (const k of wrong)
      ctx.addIssue({
        code: "custom",
        path: [k],
        message: `\`${k}\` applies only to ${s.url ? "stdio servers (`command`)" : "HTTP servers (`url`)"}`,
      });
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;

export const Settings = z.strictObject({
  model: z.string().min(1, "must not be empty").default("gpt-5.2-codex"),
  model_provider: z.string().default("openai"),
  model_providers: z.record(z.string(), ProviderConfig).default({}),
  openai_base_url: z.string().optional(),
  model_reasoning_effort: z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  model_context_window: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Tokens the model's context holds (default: a built-in table of known models)"),
  model_auto_compact_token_limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Estimated prompt tokens that trigger compaction (default: 90% of the context window)"),
  compaction: z
    .enum(["local", "server"])
    .default("local")
    .describe(
      "local: the model writes a handoff summary; server: the provider's POST /responses/compact (Responses wire only)",
    ),
  model_reasoning_summary: z.enum(["auto", "concise", "detailed", "none"]).optional(),
  log_level: z
    .enum(["off", "debug", "trace"])
    .optional()
    .describe(
      'Debug log in $TANDEM_HOME/log/ (README "Debugging"): debug, or trace for the full wire; TANDEM_LOG and --log-file win',
    ),
  service_tier: z.string().optional(),
  approval_policy: z.enum(["never", "on-request", "on-failure", "untrusted"]).default("on-request"),
  sandbox_mode: z.enum(["read-only", "workspace-write", "danger-full-access"]).default("workspace-write"),
  sandbox_workspace_write: z
    .strictObject({
      network_access: z.boolean().default(false),
      writable_roots: z.array(z.string()).default([]),
      readable_home: z
        .boolean()
        .default(false)
        .describe(
          "Let sandboxed commands read $TANDEM_HOME and the store (read-only); by default both are hidden",
        ),
    })
    .default({ network_access: false, writable_roots: [], readable_home: false }),
  base_instructions: z.string().optional(),
  /** Record the environment-context and AGENTS.md items at thread start (requirements L10). */
  include_environment_context: z.boolean().default(true),
  include_agents_md: z.boolean().default(true),
  parallel_tool_calls: z.boolean().default(true),
  /** Restricts the tools offered to the model (default: all registered tools). */
  enabled_tools: z.array(z.string()).optional(),
  /** MCP servers whose tools every thread offers (tools/mcp/). */
  mcp_servers: z
    .record(z.string(), McpServerConfig)
    .superRefine((servers, ctx) => {
      for (const name of Object.keys(servers))
        if (!McpServerName.safeParse(name).success)
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: `"${name}" is not a valid MCP server name: use only letters, digits, _ and -`,
          });
    })
    .default({}),
  /** Sub-agents: limits and roles (config/agents.ts). */
  agents: AgentsConfig.default({ max_depth: 2, max_threads: 6, roles: {} }),
  questions: QuestionsConfig.prefault({}),
  checkpoints: CheckpointsConfig.prefault({}),
  shell_environment_policy: ShellEnvironmentPolicy.default({
    inherit: "all",
    ignore_default_excludes: false,
    exclude: [],
    set: {},
    include_only: [],
  }),
  /** Inline hooks (README "Hooks"): the `hooks` object of a hooks.json, as TOML tables. */
  hooks: z.record(z.string(), z.unknown()).default({}),
  /** Codex's `notify`: a program and its arguments, run with a JSON payload (README "Notifications"). */
  notify: z.array(z.string().min(1)).min(1).optional(),
  request_max_retries: z.number().int().min(0).default(4),
  stream_max_retries: z.number().int().min(0).default(4),
  stream_idle_timeout_ms: z.number().int().positive().default(300_000),
  retry_base_ms: z.number().int().min(0).default(500),
  /** Where threads are stored: a file path (SQLite) or a postgres:// URL (docs/scale-out.md). */
  store: z
    .strictObject({
      url: z.string().min(1).optional().describe("SQLite file path or postgres://user@host/db URL"),
    })
    .optional(),
});
export type Settings = z.infer<typeof Settings>;
