/**
 * The offline demo for the terminal UI (`tandem demo --tui`, or `tandem` without a key after the
 * user said yes): the built-in scripted model (`projectDemo`: plan mode, two questions, then a
 * project that follows the answers) on a loopback port, a throwaway TANDEM_HOME and a temp working directory. It sets the
 * key and home for this process only; `close()` stops the model.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Scripts, startMockModel } from "../../mock-model/index.js";

export const DEMO_TUI_PROMPT = "Set up a small demo project for me.";

export interface DemoSetup {
  url: string;
  cwd: string;
  home: string;
  /** `--config` overrides pointing the runtime at the scripted model. */
  overrides: string[];
  prompt: string;
  banner: { title: string; lines: string[] };
  close(): Promise<void>;
}

export async function startDemo(opts: { tokenDelayMs?: number } = {}): Promise<DemoSetup> {
  const cwd = mkdtempSync(join(tmpdir(), "tandem-demo-"));
  const home = mkdtempSync(join(tmpdir(), "tandem-demo-home-"));
  const model = await startMockModel({
    script: Scripts.projectDemo({ tokenDelayMs: opts.tokenDelayMs ?? 15 }),
  });
  process.env.TANDEM_HOME = home;
  process.env.OPENAI_API_KEY = "scripted-demo-no-key-needed";
  return {
    url: model.url,
    cwd,
    home,
    overrides: [`openai_base_url=${JSON.stringify(model.url)}`],
    prompt: DEMO_TUI_PROMPT,
    banner: {
      title: "DEMO — scripted model, no API key",
      lines: [
        `A built-in scripted model at ${model.url} plays the assistant; nothing leaves this machine.`,
        "It works in plan mode and will ask you two questions: pick with a digit or ↑/↓ + Enter,",
        "type a free-text answer, Tab adds a note, Esc declines. Everything else is the real runtime.",
        `workspace: ${cwd}`,
      ],
    },
    close: () => model.close(),
  };
}
