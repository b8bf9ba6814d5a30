/**
 * Sub-agent results as cards (README "Sub-agents"): a `wait_agent` result — each child's name,
 * role, status and final message — and a `spawn_agent` result — who started, on what task —
 * are drawn as an `agents` cell instead of the raw JSON the model read, live and from history.
 *
 * Contract: `agentCard(tool, args, output)` is the card for a completed call of those tools
 * whose output is the JSON the tools return (tools/agents.ts, runtime/agents), else undefined
 * (the call stays a generic tool cell: an error the model read is shown as it was).
 */
import { parseWaitResult } from "../../protocol/agent-results.js";
import type { AgentCardEntry, CellInput } from "./cells.js";

function parse(text: string | undefined): any {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

export function agentCard(
  tool: string,
  args: string | undefined,
  output: string | undefined,
): CellInput | undefined {
  const r = parse(output);
  if (!r || typeof r !== "object") return undefined;
  const waited = tool === "wait_agent" ? parseWaitResult(output) : undefined;
  if (waited) {
    const agents: AgentCardEntry[] = waited.agents.map(({ id: _id, ...a }) => a);
    const title = waited.timedOut
      ? "Waited for sub-agents (timed out; some still work)"
      : "Sub-agents finished";
    return { kind: "agents", title, agents };
  }
  if (tool === "spawn_agent" && typeof r.agent_id === "string") {
    const a = parse(args) ?? {};
    return {
      kind: "agents",
      title: "Sub-agent started",
      agents: [
        {
          name: str(r.nickname) ?? r.agent_id,
          role: str(a.agent_type),
          status: "started",
          message: str(a.message),
        },
      ],
    };
  }
  return undefined;
}
