/**
 * `thread/start` `config` (Codex's per-thread config overrides) → Tandem thread options, and the
 * reasoning effort a thread reports.
 *
 * Contract:
 * - Keys may come dotted (`"features.shell_tool": false`, as Codex clients send them) or nested
 *   (`{features: {shell_tool: false}}`); both mean the same.
 * - Tandem reads: `questions.policy` (wait | timeout{ms,on_timeout}, validated: a bad one is -32602);
 *   the tool switches below, each `false` removing tools from the thread (never offered to the
 *   model, and a call to one is an unknown tool). Every other key is accepted and ignored: Codex
 *   clients send dozens of feature flags for features Tandem does not have.
 */
import { QuestionPolicy } from "../../protocol/questions.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import type { ServerContext } from "./context.js";
import { parseParams } from "./method.js";

/** Codex config switch → the Tandem tools it turns off when `false`. */
const TOOL_SWITCHES: Record<string, string[]> = {
  "features.shell_tool": ["exec_command", "write_stdin"],
  "tools.update_plan.enabled": ["update_plan"],
  "tools.experimental_request_user_input.enabled": ["request_user_input"],
  include_apply_patch_tool: ["apply_patch"],
};

export interface ThreadConfigOptions {
  questionPolicy?: QuestionPolicy;
  disabledTools: string[];
}

/** Flattens nested objects into dotted keys (`{a: {b: 1}}` → `{"a.b": 1}`); arrays stay values. */
function flatten(config: Record<string, unknown>, prefix = "", out: Record<string, unknown> = {}) {
  for (const [key, value] of Object.entries(config)) {
    const name = prefix ? `${prefix}.${key}` : key;
    const nested = typeof value === "object" && value !== null && !Array.isArray(value);
    // questions.policy is itself an object value, not more keys.
    if (nested && name !== "questions.policy") flatten(value as Record<string, unknown>, name, out);
    else out[name] = value;
  }
  return out;
}

export function threadConfig(config: Record<string, unknown>): ThreadConfigOptions {
  const flat = flatten(config);
  const policy = flat["questions.policy"];
  const disabledTools = Object.entries(TOOL_SWITCHES).flatMap(([key, tools]) =>
    flat[key] === false ? tools : [],
  );
  return {
    ...(policy === undefined
      ? {}
      : { questionPolicy: parseParams("thread/start config.questions.policy", QuestionPolicy, policy) }),
    disabledTools,
  };
}

/** The thread's configured reasoning effort: its own, else the config's, else null. */
export function effortOf(server: ServerContext, thread: Thread): string | null {
  return thread.record.settings.effort ?? server.runtime.settings.model_reasoning_effort ?? null;
}
