/**
 * Interrupting keeps what happened (README "Stopping Tandem"): the built TUI in tmux runs a
 * 30-line command that then sleeps; Ctrl-C interrupts it. The printed lines stay on screen, the
 * cell says it was interrupted, and the next model request carries the lines with the note that
 * the user interrupted the command (what the model sees of it), not a bare "aborted".
 */
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal } = tuiHarness({ name: "tandem-tui-interrupt" });

const CMD = "for i in $(seq 1 30); do echo LINE_$i; done; sleep 60";

describe.skipIf(!hasTmux)(
  "interrupting a command in the TUI (tmux, real processes)",
  { timeout: 90_000 },
  () => {
    it("Ctrl-C keeps the printed lines on screen and in the next model request, with the note", async () => {
      const script: Script = {
        steps: [
          {
            output: [
              {
                type: "function_call",
                name: "exec_command",
                call_id: "call_long",
                arguments: { cmd: CMD, yield_time_ms: 30000 },
              },
            ],
          },
          {
            expect: { input_contains: ["LINE_1\\n", "LINE_30", "Process interrupted by the user"] },
            output: [{ type: "message", text: "I saw the thirty lines." }],
          },
        ],
      };
      const mock = await startMock(script);
      launch({ url: mock.url });
      await waitFor("ask Tandem to do something");
      literal("print thirty lines");
      keys("Enter");
      await waitFor("LINE_30");
      keys("C-c");
      const after = await waitFor(/└ interrupted/);
      expect(after).toContain("LINE_30");
      expect(after).toContain("LINE_1");
      literal("what did it print?");
      keys("Enter");
      await waitFor("I saw the thirty lines.");
      const sent = requests(mock.log);
      expect(sent).toHaveLength(2);
      const out = sent[1].input.find(
        (i: any) => i.type === "function_call_output" && i.call_id === "call_long",
      );
      expect(out.output).toMatch(/Process interrupted by the user \(killed; exit code \d+\)/);
      expect(out.output).toMatch(/LINE_1\nLINE_2\n[\s\S]*LINE_30/);
      expect(out.output).not.toBe("aborted");
    });
  },
);
