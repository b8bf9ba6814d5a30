/**
 * A `spawn_agent` call as a transcript entry (README "Sub-agents"): the task and role it was given (its
 * arguments) and, once it returned, the child's thread id and nickname (its JSON result). A
 * result that is not `{agent_id, nickname}` is the error the model read (a limit, an unknown
 * role): the entry keeps it and names no child. Pure; the view looks the child's status up.
 */
export interface SubAgentEntry {
  kind: "subagent";
  /** The call id. */
  id: string;
  task: string;
  role: string;
  /** The child's thread id; null while the call runs or when it failed. */
  agentId: string | null;
  nickname: string | null;
  status: "in_progress" | "completed" | "failed";
  error?: string;
}

function parse(text: string | undefined): any {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function subAgentEntry(id: string, args: string, output: string | undefined): SubAgentEntry {
  const a = parse(args) ?? {};
  const base = {
    kind: "subagent" as const,
    id,
    task: typeof a.message === "string" ? a.message : args,
    role: typeof a.agent_type === "string" ? a.agent_type : "default",
  };
  if (output === undefined) return { ...base, agentId: null, nickname: null, status: "in_progress" };
  const r = parse(output);
  if (r && typeof r.agent_id === "string")
    return {
      ...base,
      agentId: r.agent_id,
      nickname: typeof r.nickname === "string" ? r.nickname : null,
      status: "completed",
    };
  return { ...base, agentId: null, nickname: null, status: "failed", error: output };
}
