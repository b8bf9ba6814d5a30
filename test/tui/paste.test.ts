/**
 * Bracketed paste end to end (README "The terminal UI", composer "paste"): tmux runs the built `tandem` TUI
 * against `tandem mock-model`; `tmux paste-buffer -p` sends the buffer wrapped in
 * `ESC[200~ … ESC[201~` because the TUI turned the mode on. The block must land in the composer
 * literally (newlines kept, not submitted, a `\` + newline kept, a leading `/` not a command) and
 * reach the scripted model unchanged in the next request. After the exit the mode is off again.
 */
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { hasTmux, requests as readRequests, tuiHarness } from "../helpers/tui-harness.js";

/** The built TUI in a 120×50 pane; after it exits, `cat -v` shows what a paste then sends. */
const { launch, startMock, pane, waitFor, keys, literal, paste } = tuiHarness({
  name: "tandem-paste",
  height: 50,
  afterExit: "cat -v",
});
/** The requests logged so far; none before the first one arrives. */
const requests = (log: string) => readRequests(log, { allowMissing: true });
/** The text of the last user message of a logged request. */
function lastUserText(request: { input: Array<Record<string, unknown>> }): string {
  const msgs = request.input.filter((i) => i.type === "message" && i.role === "user");
  const content = msgs[msgs.length - 1].content as Array<{ text?: string }> | string;
  return typeof content === "string" ? content : content.map((c) => c.text ?? "").join("");
}

const reply = (text: string): Script["steps"][number] => ({ output: [{ type: "message", text }] });

describe.skipIf(!hasTmux)("bracketed paste in tmux (real processes)", { timeout: 120_000 }, () => {
  it("a pasted multi-line block is inserted literally and reaches the model intact", async () => {
    const mock = await startMock({ steps: [reply("Pasted block received."), reply("Big one received.")] });
    launch({ url: mock.url });
    await waitFor("ask Tandem to do something");
    const block = ["first line", "  indented \\", "/not a command", "\tsecond\ttabbed", "", "last line"].join(
      "\n",
    );
    literal("Review this: ");
    paste(block);
    await waitFor("last line");
    const screen = pane();
    expect(screen).toContain("› Review this: first line");
    expect(screen).toContain("  indented \\");
    expect(screen).toContain("/not a command");
    // Nothing was sent: the newlines of the paste are not Enter. No fixed wait for a request
    // that should not come: had a newline submitted, the model's one reply would answer that
    // partial text, and the checks after Enter below (one request, the whole block) fail.
    expect(requests(mock.log)).toHaveLength(0);
    expect(pane()).not.toContain("unknown command");
    keys("Enter");
    await waitFor("Pasted block received.");
    const log = requests(mock.log);
    expect(log).toHaveLength(1);
    expect(lastUserText(log[0])).toBe(`Review this: ${block}`);

    // A large paste shows compactly and is expanded on submit.
    await waitFor(/done in [\d.]+m?s/);
    const big = Array.from({ length: 40 }, (_, i) => `row ${i + 1}: ${"x".repeat(i % 7)}`).join("\n");
    paste(big);
    await waitFor("[pasted 40 lines]");
    expect(pane()).not.toContain("row 39:");
    keys("Enter");
    await waitFor("Big one received.");
    const log2 = requests(mock.log);
    expect(log2).toHaveLength(2);
    expect(lastUserText(log2[1])).toBe(big);
    keys("C-c");
    keys("C-c");
    await waitFor("[exited 0]");
    // The mode is off again: `cat -v` after the exit sees a plain paste, no ^[[200~ markers.
    paste("after-exit");
    keys("Enter");
    const after = await waitFor(/after-exit\s*\n\s*after-exit/);
    expect(after).not.toContain("[200~");
  });
});
