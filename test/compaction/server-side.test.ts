/**
 * Server-side compaction (`compaction = "server"`, requirements L14): Tandem calls the provider's
 * `POST /responses/compact` (served by `tandem mock-model`) and sends the returned replacement
 * history — retained user messages and the encrypted `compaction` item — in later requests.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/agent/compaction-prompt.js";
import type { EventOf } from "../../src/protocol/events.js";
import { type Harness, harness } from "../helpers/index.js";

const say = (text: string) => ({ type: "message" as const, text });
const textOf = (item: any): string =>
  Array.isArray(item?.content) ? item.content.map((c: any) => c.text ?? "").join("") : "";

describe("server-side compaction", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // fails if: compaction = "server" still asks the model for a summary, the provider's output is
  // not what later requests carry (the compaction item, the retained user message), or old tool
  // output is still sent after the compaction.
  it("sends the provider's compaction item instead of the compacted history", async () => {
    h = await harness({
      script: {
        steps: [
          {
            output: [
              {
                type: "function_call",
                name: "exec_command",
                arguments: { cmd: "head -c 3000 /dev/zero | tr '\\0' z" },
                call_id: "s1",
              },
            ],
          },
          { output: [say("first done")] },
          { compaction: true, output: [say("SERVER SUMMARY: z block printed")] },
          { output: [say("second done")] },
        ],
      },
      overrides: ['compaction="server"', 'sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    await thread.startTurn("print a z block").done;
    expect((await thread.compact().done).status).toBe("completed");
    const ev = (await h.waitFor((e) => e.type === "context.compacted")) as EventOf<"context.compacted">;
    expect(ev.after_tokens).toBeLessThan(ev.before_tokens);
    expect((await thread.startTurn("and then?").done).lastMessage).toBe("second done");

    const bodies = h.model.requests as any[];
    const compact = bodies.find((b) => b.stream === undefined && Array.isArray(b.input));
    expect(compact, "a /responses/compact request").toBeDefined();
    expect(JSON.stringify(compact.input)).toContain("zzzzzzzzzz");
    expect(compact.instructions).toContain("You are Tandem");
    const last = bodies.at(-1);
    const item = last.input.find((i: any) => i.type === "compaction");
    expect(Buffer.from(item.encrypted_content.slice(5), "base64").toString()).toBe(
      "SERVER SUMMARY: z block printed",
    );
    expect(JSON.stringify(last.input)).toContain("print a z block");
    expect(JSON.stringify(last.input)).not.toContain("zzzzzzzzzz");
    expect(last.input.some((i: any) => textOf(i).startsWith(SUMMARY_MARKER))).toBe(false);
    // No sampling request asked the model for a summary.
    expect(JSON.stringify(bodies)).not.toContain("<tandem:context_compaction_request>");
    // Stored history keeps everything, the provider's output with the marker item.
    const stored = h.runtime.threads.history(thread.id).map((s) => s.item as any);
    expect(JSON.stringify(stored)).toContain("zzzzzzzzzz");
    expect(
      stored.find((i) => textOf(i).startsWith(SUMMARY_MARKER))?.tandem_compaction.replacement,
    ).toBeDefined();
  });
});
