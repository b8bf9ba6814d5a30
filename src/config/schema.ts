/**
 * Settings schema. One zod definition validates `$TANDEM_HOME/config.toml` and `--config`
 * overrides; unknown keys are reported (a warning), never silently applied.
 */
import { z } from "zod";
import { QuestionPolicy } from "../protocol/questions.js";

export const ProviderConfig = z.strictObject({
  name: z.string().optional(),
  base_url: z.string().optional().describe("API base URL, e.g. https://api.openai.com/v1"),
  env_key: z.string().optional().describe("Environment variable holding the API key"),
  wire: z.enum(["responses", "chat"]).default("responses"),
  /** Responses Lite (SPEC L12): tools travel in an additional_tools input item. */
  lite: z.boolean().optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

export const QuestionsConfig = z.strictObject({
  enabled: z.boolean().default(true),
  /** Whether Default collaboration mode may ask (Plan mode always may). */
  default_mode: z.boolean().default(false),
  policy: QuestionPolicy.default({ type: "wait" }),
  sub_agents: z.enum(["relay", "deny"]).default("relay"),
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

export const Settings = z.strictObject({
  model: z.string().min(1, "must not be empty").default("gpt-5.2-codex"),
  model_provider: z.string().default("openai"),
  model_providers: z.record(z.string(), ProviderConfig).default({}),
  openai_base_url: z.string().optional(),
  model_reasoning_effort: z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  model_reasoning_summary: z.enum(["auto", "concise", "detailed", "none"]).optional(),
  service_tier: z.string().optional(),
  approval_policy: z.enum(["never", "on-request", "on-failure", "untrusted"]).default("on-request"),
  sandbox_mode: z.enum(["read-only", "workspace-write", "danger-full-access"]).default("workspace-write"),
  sandbox_workspace_write: z
    .strictObject({
      network_access: z.boolean().default(false),
      writable_roots: z.array(z.string()).default([]),
    })
    .default({ network_access: false, writable_roots: [] }),
  base_instructions: z.string().optional(),
  /** Record the environment-context and AGENTS.md items at thread start (SPEC L10). */
  include_environment_context: z.boolean().default(true),
  include_agents_md: z.boolean().default(true),
  parallel_tool_calls: z.boolean().default(true),
  /** Restricts the tools offered to the model (default: all registered tools). */
  enabled_tools: z.array(z.string()).optional(),
  questions: QuestionsConfig.default({
    enabled: true,
    default_mode: false,
    policy: { type: "wait" },
    sub_agents: "relay",
  }),
  shell_environment_policy: ShellEnvironmentPolicy.default({
    inherit: "all",
    ignore_default_excludes: false,
    exclude: [],
    set: {},
    include_only: [],
  }),
  request_max_retries: z.number().int().min(0).default(4),
  stream_max_retries: z.number().int().min(0).default(4),
  stream_idle_timeout_ms: z.number().int().positive().default(300_000),
  retry_base_ms: z.number().int().min(0).default(500),
});
export type Settings = z.infer<typeof Settings>;
