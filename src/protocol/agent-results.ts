/**
 * What a `wait_agent` result says (the JSON tools/agents.ts returns to the model:
 * `{status: {id: {nickname, role, status, final_message?, error?}}, timed_out}`), read the same
 * way by every surface that draws it as a card (the TUI, the web app), so they agree on a
 * finished child's state.
 *
 * Contract: `parseWaitResult(output)` is the children in the result's order, or undefined for
 * anything else (an error text the model read). Pure.
 */
export interface WaitedAgent {
  id: string;
  name: string;
  role?: string | undefined;
  status: string;
  message?: string | undefined;
  error?: string | undefined;
}

const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

export function parseWaitResult(
  output: string | undefined,
): { agents: WaitedAgent[]; timedOut: boolean } | undefined {
  let r: any;
  try {
    r = output === undefined ? undefined : JSON.parse(output);
  } catch {
    return undefined;
  }
  if (!r || typeof r !== "object" || !r.status || typeof r.status !== "object" || Array.isArray(r.status))
    return undefined;
  const agents = Object.entries(r.status as Record<string, any>).map(([id, s]) => ({
    id,
    name: str(s?.nickname) ?? id,
    role: str(s?.role),
    status: str(s?.status) ?? "unknown",
    message: str(s?.final_message),
    error: str(s?.error),
  }));
  return { agents, timedOut: r.timed_out === true };
}
