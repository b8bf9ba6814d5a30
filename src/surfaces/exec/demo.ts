/**
 * `tandem demo`: the whole loop, offline. Starts the built-in scripted model (the seed's
 * "create README.md" walkthrough) on a loopback port, runs `tandem exec` against it in a
 * fresh temp directory with a throwaway TANDEM_HOME, and says plainly that the model is
 * scripted. Nothing here needs a key or a network.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Scripts, startMockModel } from "../../mock-model/index.js";
import { findBwrap } from "../../tools/exec/sandbox.js";
import { runExec } from "./index.js";

export const DEMO_PROMPT =
  "请创建 README.md，内容如下：\n\n# Codex Demo\n\n这是一个使用 Rust 编写的 Agent 项目。";

export async function runDemo(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  const unknown = argv.filter((a) => a !== "--json");
  if (unknown.length) {
    process.stderr.write(`tandem demo: unknown argument ${unknown[0]} (only --json is accepted)\n`);
    return 2;
  }
  const work = mkdtempSync(join(tmpdir(), "tandem-demo-"));
  const home = mkdtempSync(join(tmpdir(), "tandem-demo-home-"));
  const model = await startMockModel({ script: Scripts.readmeDemo({ tokenDelayMs: json ? 0 : 12 }) });
  const say = (s: string) => process.stderr.write(`${s}\n`);
  say("┌─ Tandem demo ─────────────────────────────────────────────────────────");
  say("│ The model is SCRIPTED: a built-in mock model replays the seed's");
  say(`│ "create README.md" task from ${model.url}. No API key, no network.`);
  say("│ Everything else is real: the turn loop, HTTP streaming, the shell tool,");
  say("│ and the SQLite history.");
  say(`│ workspace: ${work}`);
  // The demo works on a machine without bubblewrap too, saying so instead of pretending.
  const sandbox = findBwrap() ? "workspace-write" : "danger-full-access";
  say(
    sandbox === "workspace-write"
      ? "│ sandbox: workspace-write (bubblewrap)"
      : "│ sandbox: none — bubblewrap is not installed, so the demo's commands run unsandboxed in its temp dir",
  );
  say("└───────────────────────────────────────────────────────────────────────");
  say(`> ${DEMO_PROMPT.replace(/\n/g, "\n  ")}`);
  process.env.TANDEM_HOME = home;
  process.env.OPENAI_API_KEY = "scripted-demo-no-key-needed";
  try {
    const args = [
      "--cd",
      work,
      "-c",
      `openai_base_url="${model.url}"`,
      "-c",
      'model_reasoning_effort="medium"',
    ];
    if (json) args.push("--json");
    const code = await runExec([...args, DEMO_PROMPT]);
    if (!json) {
      let readme = "(README.md was not created)";
      try {
        readme = readFileSync(join(work, "README.md"), "utf8");
      } catch {}
      say("");
      say(`── ${join(work, "README.md")} ──`);
      say(readme.trimEnd());
      say(
        `── ${model.requests.length} model requests served by the scripted model; history in ${home}/state.db ──`,
      );
    }
    return code;
  } finally {
    await model.close();
  }
}
