/**
 * Responses Lite (requirements L12, seed §11), golden-style: with `lite = true` on the provider, the
 * README walkthrough's first request is the seed's Lite request field for field, and the run
 * still completes (tool calls are built from the model's items exactly as without Lite).
 *
 * Deliberate differences from the seed's Lite example, as seeds/README.md asks us to state:
 * - the seed's `additional_tools` item carries `"id": "at_001"`; Tandem has no id for an item it
 *   builds per request and omits it (ids are never invented; the seed calls the shape illustrative);
 * - the seed's tool list inside the namespace is illustrative ("由当前 ToolSpec 和配置决定"):
 *   Tandem puts its real tool list there, the same list R1 sends as top-level `tools`;
 * - client_metadata key names are Tandem's own, as in test/golden.test.ts.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { sequentialIds } from "../../src/util/ids.js";
import { type Harness, harness } from "../helpers/index.js";

const R1 = JSON.parse(readFileSync(new URL("../fixtures/seed-r1.json", import.meta.url), "utf8"));
const BASE =
  "You are a coding agent in the Codex CLI.\nUse the available tools when they are needed.\nRespect the active sandbox and approval policy.";
const CONFIG = [
  'model="gpt-5.2-codex"',
  'model_reasoning_effort="medium"',
  `base_instructions=${JSON.stringify(BASE)}`,
  "include_environment_context=false",
  "include_agents_md=false",
  "questions.enabled=false",
  'enabled_tools=["exec_command"]',
];

/** The seed's §11 Lite request (less the stated differences), from the R1 fixture's parts. */
function seedLite(): Record<string, unknown> {
  const m = R1.client_metadata;
  return {
    model: "gpt-5.2-codex",
    stream: true,
    input: [
      {
        type: "additional_tools",
        role: "developer",
        tools: [{ type: "namespace", name: "functions", description: "", tools: R1.tools }],
      },
      R1.input[0],
      R1.input[1],
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", context: "all_turns" },
    store: false,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "session_001",
    client_metadata: {
      "x-tandem-installation-id": m["x-codex-installation-id"],
      session_id: m.session_id,
      thread_id: m.thread_id,
      "x-tandem-window-id": m["x-codex-window-id"],
      turn_id: m.turn_id,
    },
  };
}

describe("Responses Lite", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const wire of ["responses", "responses_websocket"]) {
    it(`sends the seed's Lite request and completes the README task (${wire})`, async () => {
      h = await harness({
        script: Scripts.readmeDemo(),
        overrides: [...CONFIG, `model_providers.openai={ wire = "${wire}", lite = true }`],
        ids: sequentialIds(),
        windowId: "window_001",
        installationId: "install_001",
      });
      const thread = h.runtime.threads.start({ cwd: h.cwd, sessionId: "session_001" });
      const outcome = await thread.startTurn(R1.input[1].content[0].text).done;
      // Fails if Lite changed how tool calls are built from items: no command would run.
      expect(outcome.status).toBe("completed");
      expect(readFileSync(`${h.cwd}/README.md`, "utf8")).toBe(
        "# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。\n",
      );

      const bodies = h.model.requests as any[];
      expect(bodies).toHaveLength(4);
      // Fails on any Lite field out of place: top-level tools, parallel calls on, no
      // reasoning.context, the tools item not first, or a key order change.
      expect(JSON.stringify(bodies[0])).toBe(JSON.stringify(seedLite()));
      // Every later request keeps the tools item in front and never grows top-level tools.
      for (const b of bodies.slice(1)) {
        expect(b.tools).toBeUndefined();
        expect(b.input[0]).toEqual((seedLite().input as unknown[])[0]);
        expect(b.parallel_tool_calls).toBe(false);
      }
      // The call the model made (R1's answer) is in R2's input as a plain function_call.
      expect(bodies[1].input[3]).toMatchObject({
        type: "function_call",
        call_id: "call_001",
        name: "exec_command",
      });
      if (wire === "responses_websocket") {
        // The tools item is part of the chain's prefix: R2 continues R1 with only the tail.
        const frames = h.model.frames as any[];
        expect(frames[1].previous_response_id).toBe("resp_1");
        expect(frames[1].input.map((i: any) => i.type)).toEqual(["function_call_output"]);
      }
    });
  }
});
