/**
 * server-everything's `trigger-elicitation-request` form answered from the real TUI in tmux (issue
 * 12, "How we will know"): `./bin/tandem` runs against `tandem mock-model` with server-everything
 * configured as `[mcp_servers.everything]` in a temp TANDEM_HOME. The scripted model calls the
 * tool, the server's 13-field form opens in the question overlay, and the keyboard fills it in,
 * declines it, or interrupts the turn. What the server echoes back is read from the model's next
 * request in the mock's log, so every assertion is about a value that crossed both protocols.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING, stdio } from "../helpers/mcp.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, pane, waitFor, keys, literal } = tuiHarness({
  name: "tandem-tui-mcp",
  command: builtOrSourceTui(),
  height: 50,
});

const ELICIT = "mcp__everything__trigger-elicitation-request";
const call = (name: string, args: Record<string, unknown>, call_id: string) => ({
  output: [{ type: "function_call" as const, name, arguments: args, call_id }],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });
/** Server start, a 13-question form and a loaded machine: generous, since the pane is polled. */
const SLOW = 60_000;

/** Starts the mock model with `steps` and the TUI with server-everything configured; sends a prompt. */
async function start(steps: Script["steps"]) {
  const mock = await startMock({ steps } satisfies Script);
  const home = tempDir("tandem-tui-mcp-home-");
  // A generous startup timeout: on a loaded machine server-everything can take seconds to boot,
  // and a server that misses it is left out (the elicitation would never come).
  const everything = { ...stdio(EVERYTHING), startup_timeout_sec: 60 };
  writeFileSync(join(home, "config.toml"), stringify({ mcp_servers: { everything } }));
  launch({ url: mock.url, home });
  await waitFor("ask Tandem to do something", SLOW);
  literal("fill in the form");
  keys("Enter");
  // Fails fast, saying why, when no form will come: the model got the call's output (the server
  // was left out, or the call failed without asking) — instead of waiting out SLOW.
  const callId = (steps[0] as { output: { call_id: string }[] }).output[0].call_id;
  const first = 'Question 1/13 · String (from MCP server "everything")';
  const end = Date.now() + SLOW;
  for (;;) {
    if (pane().includes(first)) {
      // The one label (protocol/questions.ts elicitationLabel): who asks, and who sees the answer.
      await waitFor('MCP server "everything" asks; this server will see what you type', SLOW);
      return mock;
    }
    const out = outputFor(mock.log, callId);
    if (out !== undefined)
      throw new Error(`the call ${callId} ended without a form; the model got: ${out}\npane:\n${pane()}`);
    if (Date.now() > end) throw new Error(`the form never opened; pane:\n${pane()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The function_call_output for `callId` in the first logged request that carries one. */
function outputFor(log: string, callId: string): string | undefined {
  for (const body of requests(log, { allowMissing: true })) {
    const out = body.input?.find(
      (i: { type: string; call_id?: string }) => i.type === "function_call_output" && i.call_id === callId,
    );
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return undefined;
}

async function waitForOutput(log: string, callId: string, ms = SLOW): Promise<string> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const out = outputFor(log, callId);
    if (out !== undefined) return out;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no function_call_output for ${callId} reached the model; pane:\n${pane()}`);
}

/** Waits for question `n` of the form to be the current one. */
const question = (n: number, title: string) => waitFor(`Question ${n}/13 · ${title} (from MCP`, SLOW);

describe.skipIf(!hasTmux)(
  "TUI in tmux answers server-everything's elicitation form",
  { timeout: 180_000 },
  () => {
    // Fails if the overlay does not show the server's form, a typed key does not land in the
    // right field, a default is not pre-selected, or the reply goes back untyped (the integer as
    // "7", the boolean as "Yes") or with titles instead of the option values (hero-3, pet-2).
    it("accepted: text, boolean, email, date, integer and choices typed in reach the server typed", async () => {
      const mock = await start([call(ELICIT, {}, "el"), say("thanks for the form")]);
      expect(pane()).toContain("Please provide inputs for the following fields:");
      literal("Ada Lovelace");
      await waitFor("Answer: Ada Lovelace");
      keys("Enter");
      await question(2, "Boolean");
      keys("1");
      await waitFor("1. (•) Yes");
      keys("Enter");
      await question(3, "String with default");
      expect(pane()).toContain("Answer: It was a dark and stormy night.");
      keys("Enter"); // keep the default
      await question(4, "String with email format");
      literal("ada@example.com");
      await waitFor("Answer: ada@example.com");
      keys("Enter");
      await question(5, "String with uri format");
      keys("Enter"); // optional, left empty
      await question(6, "String with date format");
      literal("1815-12-10");
      await waitFor("Answer: 1815-12-10");
      keys("Enter");
      await question(7, "Integer");
      await waitFor("Answer: 42"); // the server's default
      keys("BSpace", "BSpace");
      literal("7");
      await waitFor(/Answer: 7\s/);
      keys("Enter");
      await question(8, "Number in range 1-1000");
      keys("Enter"); // keep 3.14
      await question(9, "Untitled Single Select Enum");
      keys("3");
      await waitFor("3. (•) Joey");
      keys("Enter");
      await question(10, "Untitled Multiple Select Enum");
      await waitFor("1. [x] Guitar"); // default
      keys("2");
      await waitFor("2. [x] Piano");
      keys("Enter");
      await question(11, "Titled Single Select Enum");
      keys("3");
      await waitFor("3. (•) Wonder Woman");
      keys("Enter");
      await question(12, "Titled Multiple Select Enum");
      keys("Enter"); // keep Tuna
      await question(13, "Legacy Titled Single Select Enum");
      keys("2");
      await waitFor("2. (•) Dogs");
      keys("Enter");
      await waitFor("thanks for the form", SLOW);
      expect(pane()).toContain("Questions — answered by tui");

      const out = await waitForOutput(mock.log, "el");
      expect(out).toContain("User provided the requested information");
      const raw = JSON.parse(out.slice(out.indexOf("Raw result:") + "Raw result:".length));
      expect(raw).toEqual({
        action: "accept",
        content: {
          name: "Ada Lovelace",
          check: true,
          firstLine: "It was a dark and stormy night.",
          email: "ada@example.com",
          birthdate: "1815-12-10",
          integer: 7,
          number: 3.14,
          untitledSingleSelectEnum: "Joey",
          untitledMultipleSelectEnum: ["Guitar", "Piano"],
          titledSingleSelectEnum: "hero-3",
          titledMultipleSelectEnum: ["fish-1"],
          legacyTitledEnum: "pet-2",
        },
      });
    });

    // Fails if Esc (after the discard confirmation) sends accept or cancel instead of decline, or
    // leaves the turn waiting.
    it("declined with Esc: the server hears decline and the turn completes", async () => {
      const mock = await start([call(ELICIT, {}, "el"), say("understood, no form")]);
      literal("Ada");
      await waitFor("Answer: Ada");
      keys("Escape");
      await waitFor("Discard your answers?");
      keys("y");
      await waitFor("understood, no form", SLOW);
      const out = await waitForOutput(mock.log, "el");
      expect(out).toContain("User declined to provide the requested information");
      expect(out).toContain('"action": "decline"');
      await waitFor(/done in [\d.]+m?s/);
    });

    // Fails if interrupting with the form open leaves the question pending (the overlay stays, the
    // turn hangs) or breaks the server connection: the next turn calls the same server's echo.
    it("cancelled by an interrupt (Ctrl+C once) while the form is open: no hang, the server keeps serving", async () => {
      const mock = await start([
        call(ELICIT, {}, "el"),
        call("mcp__everything__echo", { message: "after the cancel" }, "next"),
        say("still here"),
      ]);
      keys("C-c");
      await waitFor("■ Interrupted", SLOW);
      await waitFor("ask Tandem to do something", SLOW);
      expect(pane()).not.toContain("Question 1/13");
      literal("again");
      keys("Enter");
      await waitFor("still here", SLOW);
      const log = requests(mock.log);
      expect(log).toHaveLength(3);
      expect(await waitForOutput(mock.log, "next")).toBe("Echo: after the cancel");
      // The interrupted call is closed in the history as aborted; it never claims an answer.
      expect(outputFor(mock.log, "el")).toBe("aborted");
    });
  },
);
