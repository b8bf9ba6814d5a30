/**
 * `tandem` with no subcommand: the terminal UI (requirements S1, Q16; README "The terminal UI").
 *
 * `runTui(argv, {demo})` parses flags, builds the runtime, opens (or resumes) a thread, attaches
 * the TUI as its responder and mounts the Ink app until the user quits. Exit codes: 0 normal,
 * 1 runtime/thread error or no key (and the demo declined), 2 usage error or no terminal,
 * 130/143 after SIGINT/SIGTERM (util/signals.ts).
 *
 * No API key: on a terminal it says so, names the variable, and asks whether to run the offline
 * demo instead (default no). The demo only runs on an explicit yes — never a silent fallback.
 * `opts.demo` (`tandem demo --tui`) runs the scripted question demo directly, with a banner.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { render } from "ink";
import { loadConfig, resolveProvider, tandemHome } from "../../config/load.js";
import { firstRunNotes } from "../../doctor/first-run.js";
import type { Runtime } from "../../runtime/core.js";
import { MissingKeyError } from "../../runtime/create.js";
import { openRuntime, runSurface } from "../shared/startup.js";
import { App } from "./app.js";
import { parseTuiArgs, TUI_USAGE, type TuiArgs, UsageError } from "./args.js";
import { TuiController } from "./controller.js";
import type { DemoSetup } from "./demo.js";
import { clearEarlyFrame } from "./early-frame.js";
import { ComposerHistory } from "./history.js";
import { loadKeymap } from "./keymap.js";
import { enableBracketedPaste, PasteStdin } from "./paste.js";

const say = (s: string) => process.stderr.write(`${s}\n`);

async function askYesNo(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function keyVariable(overrides: string[]): string {
  try {
    return resolveProvider(loadConfig({ overrides }).settings).envKey;
  } catch {
    return "OPENAI_API_KEY";
  }
}

/** The scripted demo (it serves a mock model, with its WebSocket server): loaded only when asked for. */
const startDemo = async () => (await import("./demo.js")).startDemo();

type Built = { runtime: Runtime; warnings: string[]; demo?: DemoSetup } | { code: number };

/** Creates the runtime (surfaces/shared/startup.ts); on a missing key asks (TTY) whether to run the demo instead. */
async function build(args: TuiArgs, demo: DemoSetup | undefined): Promise<Built> {
  const flags = { config: args.config, model: args.model };
  const opened = openRuntime(flags, process.env, demo?.overrides);
  if (opened.ok) return { runtime: opened.runtime, warnings: opened.warnings, demo };
  if (opened.error instanceof MissingKeyError && !demo) {
    const overrides = [...args.config, ...(args.model ? [`model=${JSON.stringify(args.model)}`] : [])];
    const variable = keyVariable(overrides);
    say(
      `tandem: no API key — set ${variable} to use a real model (for example: export ${variable}=sk-…), ` +
        "or store one with `tandem login`. `tandem doctor` checks the rest of the setup.",
    );
    const yes = await askYesNo(
      "Run the offline demo instead? It uses a built-in SCRIPTED model, not a real one. (y/N) ",
    );
    if (!yes) {
      say(`Nothing started. Set ${variable} and run \`tandem\` again, or try \`tandem demo --tui\`.`);
      return { code: 1 };
    }
    return build(args, await startDemo());
  }
  say(`tandem: ${opened.error.message}`);
  await demo?.close();
  return { code: opened.code };
}

export async function runTui(argv: string[], opts: { demo?: boolean } = {}): Promise<number> {
  let args: TuiArgs;
  try {
    args = parseTuiArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      say(`tandem: ${err.message}\n\n${TUI_USAGE}`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    process.stdout.write(`${TUI_USAGE}\n`);
    return 0;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    say("tandem: the terminal UI needs an interactive terminal; for scripts and pipes use `tandem exec`.");
    return 2;
  }
  // Keys and history come from the user's home even when the demo switches to a throwaway one.
  const home = tandemHome();
  const homeExisted = existsSync(home);
  const { keymap, warnings: keyWarnings } = loadKeymap(home);
  const history = new ComposerHistory(home);
  let built: Exclude<Built, { code: number }> | undefined;
  const create = async () => {
    const made = await build(args, opts.demo ? await startDemo() : undefined);
    if ("code" in made) return made.code;
    built = made;
    return made.runtime;
  };
  // The shared start-up and shutdown (surfaces/shared/startup.ts): SIGINT/SIGTERM unmount the UI,
  // then the runtime shuts down; exit 130/143 after them.
  return runSurface(
    { name: "tui", flags: { ...args, "log-file": args.logFile }, create },
    ({ signal, after }) =>
      runUi(args, built!, { keymap, keyWarnings, history, signal, after, home, homeExisted }),
  );
}

/** The Ink app over a built runtime until the user quits (or a signal unmounts it). */
async function runUi(
  args: TuiArgs,
  built: Exclude<Built, { code: number }>,
  o: {
    keymap: ReturnType<typeof loadKeymap>["keymap"];
    keyWarnings: string[];
    history: ComposerHistory;
    signal: AbortSignal;
    after: (step: () => unknown) => void;
    /** The user's home, and whether it existed before this run (the first-run notes). */
    home: string;
    homeExisted: boolean;
  },
): Promise<number> {
  const { keymap, keyWarnings, history, home, homeExisted } = o;
  const { runtime, demo } = built;
  const cwd = demo ? demo.cwd : resolve(args.cd ?? process.cwd());
  // `/clear` wipes the terminal through Ink once it is mounted.
  let clearScreen = () => {};
  const controller = new TuiController(runtime, {
    cwd,
    model: args.model,
    mode: demo ? "plan" : (args.mode ?? "default"),
    keymap,
    demo: !!demo,
    history,
    clearScreen: () => clearScreen(),
  });
  const store = controller.store;
  if (demo) store.add({ kind: "banner", ...demo.banner });
  for (const w of [...built.warnings, ...keyWarnings]) store.notice(`warning: ${w}`, "warn");
  // A first day: what `tandem doctor` would say without the network (doctor/first-run.ts).
  if (!demo) {
    const { settings, provider } = built.runtime;
    for (const note of firstRunNotes({ home, homeExisted, settings, provider })) store.notice(note, "warn");
  }

  try {
    if (args.resumeId) {
      controller.resume(args.resumeId, { header: true });
      if (args.mode) controller.setMode(args.mode);
    } else {
      controller.startNew();
      controller.header();
    }
  } catch (err) {
    say(`tandem: ${(err as Error).message}`);
    controller.dispose();
    o.after(() => demo?.close());
    return 1;
  }
  if (process.env.CI && process.env.CI !== "false" && process.env.CI !== "0")
    store.notice(
      "CI is set in the environment: Ink only draws the final frame. Unset CI for a live UI.",
      "warn",
    );

  // Ink reads keys through PasteStdin, which takes bracketed pastes out of the stream whole.
  const stdin = new PasteStdin(process.stdin);
  // The frame cli.ts drew while this loaded goes; Ink draws in its place, and keeps the raw
  // and bracketed-paste modes the frame turned on.
  clearEarlyFrame({ handOver: true });
  const pasteOff = enableBracketedPaste(1);
  const instance = render(<App controller={controller} keymap={keymap} pastes={stdin} />, {
    exitOnCtrlC: false,
    patchConsole: true,
    maxFps: 30,
    stdin: stdin as unknown as NodeJS.ReadStream,
  });
  clearScreen = () => {
    instance.clear();
    process.stdout.write("\x1b[2J\x1b[3J\x1b[H");
  };
  // SIGINT/SIGTERM and SIGHUP (the terminal closed) unmount; the runtime shuts down after.
  const stop = () => instance.unmount();
  o.signal.addEventListener("abort", stop, { once: true });
  process.once("SIGHUP", stop);
  const first = demo ? demo.prompt : args.prompt;
  if (first) setTimeout(() => controller.submit(first), 50);

  try {
    await instance.waitUntilExit();
  } finally {
    pasteOff();
    stdin.dispose();
    process.off("SIGHUP", stop);
    o.signal.removeEventListener("abort", stop);
    const id = controller.threadId;
    // A thread that never got input was never stored: nothing to resume.
    const stored = runtime.threads.get(id)?.stored ?? Boolean(runtime.threads.stored(id));
    controller.dispose();
    o.after(async () => {
      await demo?.close();
      if (demo) process.stdout.write(`\nDemo finished (thread ${id}, kept in the throwaway ${demo.home}).\n`);
      else if (stored) process.stdout.write(`\nThread ${id} — continue with: tandem --resume ${id}\n`);
    });
  }
  return 0;
}
