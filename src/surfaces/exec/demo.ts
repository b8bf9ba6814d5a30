/**
 * `tandem demo`: the whole loop, offline. Starts the built-in scripted model (the seed's
 * "create README.md" walkthrough) on a loopback port, runs `tandem exec` against it in a
 * fresh temp directory with a throwaway TANDEM_HOME, and says plainly that the model is
 * scripted. Nothing here needs a key or a network.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Scripts, startMockModel } from "../../mock-model/index.js";
import { README_DEMO_ENGLISH, README_DEMO_PROMPT } from "../../mock-model/scripts.js";
import { findBwrap } from "../../tools/exec/sandbox.js";
import { runExec } from "./index.js";

export const DEMO_USAGE = `usage: tandem demo [--json] [--seed] [--keep] [--tui]

Runs the whole loop offline on the built-in SCRIPTED model: "create README.md" in a fresh
temp workspace — four model requests, three real shell commands, SQLite history.
  --json   print the codex-exec JSONL event stream instead of human output
  --seed   replay the seed's walkthrough word for word (in Chinese)
  --keep   keep the temp workspace and TANDEM_HOME (removed by default)
  --tui    the terminal UI on the scripted model, with a question to answer`;

/**
 * Contract: returns the exec exit code (0 when README.md was written and reported); 2 on an
 * unknown argument. Commands run under the workspace-write sandbox when bubblewrap is present,
 * else with full access inside the demo's own temp workspace — the banner says which. The temp
 * workspace and home are removed afterwards unless `--keep`.
 */
export async function runDemo(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${DEMO_USAGE}\n`);
    return 0;
  }
  const json = argv.includes("--json");
  const seed = argv.includes("--seed");
  const keep = argv.includes("--keep");
  const unknown = argv.filter((a) => !["--json", "--seed", "--keep"].includes(a));
  if (unknown.length) {
    const what = unknown[0].startsWith("-") ? "unknown option" : "unexpected argument";
    process.stderr.write(`tandem demo: ${what} '${unknown[0]}'\n\n${DEMO_USAGE}\n`);
    return 2;
  }
  const prompt = seed ? README_DEMO_PROMPT : README_DEMO_ENGLISH.prompt;
  const work = mkdtempSync(join(tmpdir(), "tandem-demo-"));
  const home = mkdtempSync(join(tmpdir(), "tandem-demo-home-"));
  const model = await startMockModel({
    script: Scripts.readmeDemo({ tokenDelayMs: json ? 0 : 12, english: !seed }),
  });
  const say = (s: string) => process.stderr.write(`${s}\n`);
  // The demo works on a machine without bubblewrap too, saying so instead of pretending.
  const sandbox = findBwrap() ? "workspace-write" : "danger-full-access";
  say("┌─ Tandem demo ─────────────────────────────────────────────────────────");
  say("│ The model is SCRIPTED: a built-in mock model replays the");
  say(`│ "create README.md" task from ${model.url}. No API key, no network.`);
  say("│ Everything else is real: the turn loop, HTTP streaming, the shell tool,");
  say("│ and the SQLite history.");
  say(`│ workspace: ${work}`);
  say(
    sandbox === "workspace-write"
      ? "│ sandbox: workspace-write (bubblewrap)"
      : "│ sandbox: none — bubblewrap is not installed (apt-get install bubblewrap), so the\n" +
          "│ demo's commands run with full access, inside its own temp workspace",
  );
  say("└───────────────────────────────────────────────────────────────────────");
  say(`> ${prompt.replace(/\n/g, "\n  ")}`);
  process.env.TANDEM_HOME = home;
  process.env.OPENAI_API_KEY = "scripted-demo-no-key-needed";
  try {
    const args = [
      "--cd",
      work,
      "--sandbox",
      sandbox,
      "-c",
      `openai_base_url="${model.url}"`,
      "-c",
      'model_reasoning_effort="medium"',
    ];
    if (json) args.push("--json");
    const code = await runExec([...args, prompt]);
    if (!json) {
      let readme = "(README.md was not created)";
      try {
        readme = readFileSync(join(work, "README.md"), "utf8");
      } catch {}
      say("");
      say(`── ${join(work, "README.md")} ──`);
      say(readme.trimEnd());
      say(`── ${model.requests.length} model requests served by the scripted model ──`);
      say(
        keep
          ? `kept: workspace ${work}, history in ${home}/state.db`
          : "The temp workspace and history were removed (run with --keep to keep them).",
      );
    }
    return code;
  } finally {
    await model.close();
    if (!keep) {
      rmSync(work, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  }
}
