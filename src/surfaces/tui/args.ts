/** `tandem` (terminal UI) arguments. Usage errors are `UsageError`s (exit 2). */
import { parseArgs } from "node:util";
import { argError } from "../../util/cli-args.js";
import { directoryProblem } from "../../util/dirs.js";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface TuiArgs {
  cd?: string;
  model?: string;
  config: string[];
  resumeId?: string;
  mode?: "plan" | "default";
  help: boolean;
  /** An initial prompt given on the command line (sent once the UI is up). */
  prompt?: string;
  /** `--log-file`: the debug log's file (util/log-file.ts). */
  logFile?: string;
}

/** The terminal UI's options, as `tandem --help` and `tandem -h` print them. */
export const TUI_OPTIONS = `  -C, --cd DIR              working directory for the thread
  -m, --model MODEL         model to use
  -c, --config key=value    override a config value (TOML value), repeatable
  --resume ID               continue a stored thread (see \`tandem threads\`)
  --mode plan|default       collaboration mode to start in (plan lets the model ask you questions)
  --log-file FILE           write the debug log to FILE (level: $TANDEM_LOG, else debug)
  -h, --help                show this help`;

export const TUI_USAGE = `Usage: tandem [options] [PROMPT]        open the terminal UI in the current directory

Options:
${TUI_OPTIONS}

In the UI, /help lists commands and keys.`;

export function parseTuiArgs(argv: string[]): TuiArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        cd: { type: "string", short: "C" },
        model: { type: "string", short: "m" },
        config: { type: "string", short: "c", multiple: true },
        resume: { type: "string" },
        mode: { type: "string" },
        "log-file": { type: "string" },
        help: { type: "boolean", short: "h" },
        // `tandem demo --tui` may pass its own flag through; it means nothing more here.
        tui: { type: "boolean" },
      },
    });
  } catch (err) {
    throw new UsageError(argError(err));
  }
  const v = parsed.values as Record<string, any>;
  if (v.mode !== undefined && v.mode !== "plan" && v.mode !== "default")
    throw new UsageError(`--mode must be plan or default, got "${v.mode}"`);
  // Before anything is stored: a thread must not be created for a directory that is not there.
  const cdProblem = v.cd === undefined ? undefined : directoryProblem(v.cd);
  if (cdProblem) throw new UsageError(`--cd: ${cdProblem}`);
  if (parsed.positionals.length > 1)
    throw new UsageError(
      `expected at most one PROMPT argument, got ${parsed.positionals.length}; quote the prompt`,
    );
  return {
    cd: v.cd,
    model: v.model,
    config: v.config ?? [],
    resumeId: v.resume,
    mode: v.mode,
    help: Boolean(v.help),
    prompt: parsed.positionals[0],
    logFile: v["log-file"],
  };
}
