/**
 * Scripted-model pieces for sub-agent tests (README "Sub-agents"): the parent's steps are the main
 * sequence; each child is answered by side steps keyed on the context every child gets
 * (`<subagent_context>`, never in a parent's request) and a marker in its task message.
 */
export const CHILD = "<subagent_context>";

export type Q = {
  id: string;
  header: string;
  question: string;
  options?: { label: string; description: string }[];
};

export const say = (text: string) => ({ type: "message" as const, text });
export const call = (name: string, args: Record<string, unknown>, call_id?: string) => ({
  type: "function_call" as const,
  name,
  arguments: args,
  ...(call_id ? { call_id } : {}),
});
export const spawnCall = (message: string, call_id: string, extra: Record<string, unknown> = {}) =>
  call("spawn_agent", { message, ...extra }, call_id);

export const pick = (id: string, question: string): Q => ({
  id,
  header: "Pick",
  question,
  options: [
    { label: "Alpha", description: "the first" },
    { label: "Beta", description: "the second" },
  ],
});

/**
 * A child that asks one question (`qid`) and then ends with "`marker` done: <answer>". Its
 * later requests carry the tool output, which its first request does not.
 */
export function askingChild(marker: string, qid: string) {
  return [
    {
      when: { input_contains: [CHILD, marker, "function_call_output"] },
      output: [say(`${marker} done: {{answer:${qid}}}`)],
    },
    {
      when: { input_contains: [CHILD, marker] },
      output: [call("request_user_input", { questions: [pick(qid, `${marker}: which one?`)] })],
    },
  ];
}

/** A child that ends at once with "`marker` finished". */
export function quietChild(marker: string) {
  return [{ when: { input_contains: [CHILD, marker] }, output: [say(`${marker} finished`)] }];
}

/** The JSON (or text) the model got for call `callId`, from the requests seen so far. */
export function outputOf(requests: unknown[], callId: string): any {
  for (const body of requests as any[]) {
    const out = (body.input ?? []).find(
      (i: any) => i.type === "function_call_output" && i.call_id === callId,
    );
    if (out)
      return typeof out.output === "string" && out.output.startsWith("{")
        ? JSON.parse(out.output)
        : out.output;
  }
  return undefined;
}
