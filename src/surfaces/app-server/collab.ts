/**
 * Sub-agent tool calls (README "Sub-agents") as Codex `collabAgentToolCall` items, so a Codex client's agent
 * panel shows who spawned whom, and sub-agent threads' Codex fields.
 *
 * Contract of `collabItem(id, tool, args, status, output, senderThreadId)`: `undefined` for tools
 * that are not agent tools; otherwise the item with `tool` (spawn_agent → spawnAgent, send_input →
 * sendInput, wait_agent → wait, close_agent → closeAgent, list_agents → listAgents), the task or
 * message as `prompt`, `model`/`reasoningEffort` for a spawn, `receiverThreadIds` and
 * `agentsStates` read from the tool's JSON output when it has one (src/runtime/agents: running and
 * waiting_on_user → running, completed/idle → completed, failed → errored, interrupted →
 * interrupted, closed → shutdown, not_found → notFound). Unparsable arguments or output give empty
 * fields, never a throw.
 */
import type { CodexThreadItem } from "../../protocol/app-server.js";
import type { ThreadRecord } from "../../protocol/threads.js";

const TOOLS: Record<string, string> = {
  spawn_agent: "spawnAgent",
  send_input: "sendInput",
  wait_agent: "wait",
  close_agent: "closeAgent",
  list_agents: "listAgents",
};

const STATES: Record<string, string> = {
  running: "running",
  waiting_on_user: "running",
  completed: "completed",
  idle: "completed",
  failed: "errored",
  interrupted: "interrupted",
  closed: "shutdown",
  not_found: "notFound",
};

const CALL_STATUS = { in_progress: "inProgress", completed: "completed", failed: "failed" } as const;

type Json = Record<string, unknown>;

const parse = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** One agent summary (`{agent_id, status, final_message?}`) → [id, Codex state]. */
function state(summary: unknown): [string, { status: string; message: string | null }] | undefined {
  if (!isObject(summary) || typeof summary.agent_id !== "string") return undefined;
  const status = STATES[String(summary.status)] ?? (summary.delivered ? "running" : "pendingInit");
  return [summary.agent_id, { status, message: str(summary.final_message) ?? str(summary.error) }];
}

function statesOf(
  tool: string,
  output: unknown,
): Array<[string, { status: string; message: string | null }]> {
  if (!isObject(output) && !Array.isArray(output)) return [];
  if (tool === "spawn_agent" && isObject(output) && typeof output.agent_id === "string")
    return [[output.agent_id, { status: "pendingInit", message: null }]];
  const list = Array.isArray(output)
    ? output
    : isObject(output.status)
      ? Object.values(output.status)
      : Array.isArray(output.agents)
        ? output.agents
        : [output];
  return list.map(state).filter((s) => s !== undefined);
}

export function collabItem(
  id: string,
  tool: string,
  argsText: string,
  status: "in_progress" | "completed" | "failed",
  output: string | undefined,
  senderThreadId: string,
): CodexThreadItem | undefined {
  const name = TOOLS[tool];
  if (!name) return undefined;
  const args = parse(argsText);
  const a: Json = isObject(args) ? args : {};
  const states = statesOf(tool, parse(output));
  return {
    type: "collabAgentToolCall",
    id,
    tool: name,
    status: CALL_STATUS[status],
    senderThreadId,
    receiverThreadIds: states.map(([agent]) => agent),
    prompt: str(a.message),
    model: str(a.model),
    reasoningEffort: str(a.reasoning_effort),
    agentsStates: Object.fromEntries(states),
  } as unknown as CodexThreadItem;
}

/** Codex thread fields of a sub-agent thread (`settings.agent`, set by runtime/agents). */
export function subAgentFields(record: ThreadRecord) {
  const agent = record.settings.agent;
  if (!agent || !record.parent_id) return {};
  return {
    agentNickname: agent.nickname,
    agentRole: agent.role,
    source: {
      subAgent: {
        thread_spawn: {
          parent_thread_id: record.parent_id,
          depth: agent.depth,
          agent_nickname: agent.nickname,
          agent_role: agent.role,
        },
      },
    },
  };
}
