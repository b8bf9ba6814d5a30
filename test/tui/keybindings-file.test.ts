/**
 * `$TANDEM_HOME/keybindings.json` is applied by the running TUI (src/surfaces/tui/keymap.ts):
 * with `{"composer.submit": ["ctrl+s"]}` Enter no longer sends the prompt and Ctrl+S does. A
 * real `tandem` in tmux (test/helpers/tui-harness.ts) against `tandem mock-model`; the scripted model's
 * request log shows what was sent. Polls the pane, never sleeps.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/index.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal } = tuiHarness({
  name: "tandem-keys",
  command: builtOrSourceTui(),
});

describe.skipIf(!hasTmux)("keybindings.json in the running TUI (tmux)", { timeout: 120_000 }, () => {
  // Fails if the TUI ignores keybindings.json (`loadKeymap` not called, or its result not
  // passed down: Enter then submits "hello keys" alone, a first request without " and more"),
  // or if the file's bindings are added to the defaults instead of replacing them (same), or
  // if Enter falls back to a newline (the prompt then holds a line break).
  it('{"composer.submit": ["ctrl+s"]}: Enter does not send, Ctrl+S sends the prompt', async () => {
    const mock = await startMock({ steps: [{ output: [{ type: "message", text: "Got the keys." }] }] });
    const home = tempDir("tandem-keys-home-");
    writeFileSync(join(home, "keybindings.json"), JSON.stringify({ "composer.submit": ["ctrl+s"] }));
    launch({ url: mock.url, home });
    // The footer names the configured key.
    await waitFor("Ctrl+S send");
    literal("hello keys");
    await waitFor("hello keys");
    keys("Enter");
    // Typed after Enter: had Enter sent "hello keys", this would be a second prompt.
    literal(" and more");
    await waitFor("hello keys and more");
    keys("C-s");
    await waitFor("Got the keys.");
    await waitFor(/done in [\d.]+m?s/);
    const log = requests(mock.log);
    expect(log).toHaveLength(1);
    const prompts = log[0].input
      .filter((i: any) => i.type === "message" && i.role === "user")
      .flatMap((i: any) => i.content.map((c: any) => c.text))
      .filter((t: string) => !t.startsWith("<environment_context>"));
    expect(prompts).toEqual(["hello keys and more"]);
  });
});
