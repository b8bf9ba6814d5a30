/**
 * Sub-agent figures (README "Sub-agents"), printed only: time from the parent's spawn_agent call to the
 * child's first model request, and the relay round trip — a child's question seen by a
 * subscriber of the ROOT thread, answered there, until the child's next model request carries
 * the answer. An in-process scripted model, so the figures are Tandem's own cost.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelClient, ModelEvent, Prompt } from "../src/model/types.js";
import type { EventOf } from "../src/protocol/events.js";
import { runtimeFor } from "./core.js";
import { fmt, line, median } from "./stats.js";

const CHILD = "<subagent_context>";

function fnCall(name: string, args: unknown, callId: string): ModelEvent {
  return {
    type: "item_done",
    item: { type: "function_call", name, arguments: JSON.stringify(args), call_id: callId },
  } as ModelEvent;
}
const message = (text: string): ModelEvent =>
  ({
    type: "item_done",
    item: { type: "message", role: "assistant", content: [{ type: "output_text", text }] },
  }) as ModelEvent;

export async function agentFigures(runs = 20): Promise<void> {
  const spawnToFirst: number[] = [];
  const relay: number[] = [];
  for (let i = 0; i < runs; i++) {
    let spawnedAt = 0;
    let childFirst = 0;
    let answeredAt = 0;
    let childAnswer = 0;
    const model: ModelClient = {
      async *stream(prompt: Prompt) {
        const text = JSON.stringify(prompt.input);
        const outputs = prompt.input.filter((it) => it.type === "function_call_output").length;
        yield { type: "created" };
        if (text.includes(CHILD)) {
          if (outputs === 0) {
            childFirst ||= performance.now();
            const options = [
              { label: "A", description: "" },
              { label: "B", description: "" },
            ];
            const q = { id: "q", header: "Pick", question: "Which?", options };
            yield fnCall("request_user_input", { questions: [q] }, `ask${i}`);
          } else {
            childAnswer ||= performance.now();
            yield message("child done");
          }
        } else if (outputs === 0) {
          spawnedAt = performance.now();
          yield fnCall("spawn_agent", { message: "bench task" }, `sp${i}`);
        } else if (outputs === 1) yield fnCall("wait_agent", { ids: ["Ada"] }, `w${i}`);
        else yield message("parent done");
        yield { type: "completed" };
      },
    };
    const rt = runtimeFor(model);
    const root = rt.threads.start({ cwd: mkdtempSync(join(tmpdir(), "tandem-bench-agents-")), mode: "plan" });
    rt.questions.attach({ threadId: root.id }, { kind: "bench" });
    rt.subscribe(
      (s) => {
        if (s.event.type !== "question.requested") return;
        const { request } = s.event as EventOf<"question.requested">;
        answeredAt = performance.now();
        rt.questions.reply(
          root.id,
          request.request_id,
          { answers: { q: { selected: ["A"] } } },
          { kind: "bench" },
        );
      },
      { threadId: root.id },
    );
    await root.startTurn("go").done;
    await rt.shutdown();
    if (!answeredAt || !childAnswer) throw new Error("bench: the child's question was never relayed");
    spawnToFirst.push(childFirst - spawnedAt);
    relay.push(childAnswer - answeredAt);
  }
  line(
    `sub-agent: spawn_agent call → child's first model request (n=${runs})`,
    `p50 ${fmt(median(spawnToFirst))}`,
  );
  line(
    `sub-agent: relayed question answered on the root → child's next request (n=${runs})`,
    `p50 ${fmt(median(relay))}`,
  );
}
