/**
 * `tandem exec` arguments. Accepts the flags the Codex TypeScript SDK passes, so it can
 * drive `./bin/tandem` through `codexPathOverride`. Usage errors exit 2.
 */
import { parseArgs } from "node:util";
import { argError } from "../../util/cli-args.js";
import { directoryProblem } from "../../util/dirs.js";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface ExecArgs {
  json: boolean;
  model?: string;
  config: string[];
  sandbox?: string;
  cd?: string;
  addDir: string[];
  outputSchema?: string;
  images: string[];
  mode?: "plan" | "default";
  questions?: "defer" | "stdin";
  answers: string[];
  answerJson?: string;
  answerFile?: string;
  resumeId?: string;
  prompt?: string;
  /** `--log-file`: the debug log's file (util/log-file.ts). */
  logFile?: string;
}

export const EXEC_USAGE = `Usage: tandem exec [options] [PROMPT]          (PROMPT or "-" reads stdin)
       tandem exec resume <THREAD_ID> [options] [PROMPT]

Options:
  --json, --experimental-json   print events as JSONL (codex exec --json compatible)
  -m, --model MODEL             model to use
  -c, --config key=value        override a config value (TOML value), repeatable
  -s, --sandbox MODE            read-only | workspace-write | danger-full-access
  -C, --cd DIR                  working directory for the thread
  --add-dir DIR                 extra writable directory (repeatable)
  --skip-git-repo-check         accepted (Tandem does not require a git repo)
  --output-schema FILE          JSON Schema the final answer must follow
  -i, --image FILE              attach an image (repeatable)
  --mode plan|default           collaboration mode for this run
  --questions defer|stdin       offer request_user_input: defer stops with exit 3, stdin asks on a TTY
  --answer ID=VALUE             answer a pending question on resume (label, option number or text);
                                not for secret questions: the command line is visible to others
  --answer ID=-                 read that answer from stdin (hidden prompt on a terminal)
  --answer-file FILE            answers from a file ("-": stdin): ID=VALUE lines, or a JSON object
                                {"id": "text" | {"selected": [...], "other": "...", "note": "..."}}
  --answer-json JSON            answers as {"id": {"selected": [...], "other": "...", "note": "..."}}
  --log-file FILE               write the debug log to FILE (level: $TANDEM_LOG, else debug)
Exit codes: 0 ok, 1 turn failed or interrupted, 2 usage error, 3 needs input (question deferred).`;

export function parseExecArgs(argv: string[]): ExecArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean" },
        "experimental-json": { type: "boolean" },
        model: { type: "string", short: "m" },
        config: { type: "string", short: "c", multiple: true },
        sandbox: { type: "string", short: "s" },
        cd: { type: "string", short: "C" },
        "add-dir": { type: "string", multiple: true },
        "skip-git-repo-check": { type: "boolean" },
        "output-schema": { type: "string" },
        image: { type: "string", short: "i", multiple: true },
        mode: { type: "string" },
        questions: { type: "string" },
        answer: { type: "string", multiple: true },
        "answer-json": { type: "string" },
        "answer-file": { type: "string" },
        "log-file": { type: "string" },
        "thread-source": { type: "string" },
        "cyber-access-program": { type: "string" },
        color: { type: "string" },
      },
    });
  } catch (err) {
    throw new UsageError(argError(err));
  }
  const v = parsed.values as Record<string, any>;
  const pos = [...parsed.positionals];
  let resumeId: string | undefined;
  if (pos[0] === "resume") {
    pos.shift();
    resumeId = pos.shift();
    if (!resumeId) throw new UsageError("exec resume needs a thread id (see `tandem threads`)");
  }
  if (pos.length > 1)
    throw new UsageError(`expected one PROMPT argument, got ${pos.length}; quote the prompt`);
  if (v.mode !== undefined && v.mode !== "plan" && v.mode !== "default")
    throw new UsageError(`--mode must be plan or default, got "${v.mode}"`);
  if (v.questions !== undefined && v.questions !== "defer" && v.questions !== "stdin")
    throw new UsageError(`--questions must be defer or stdin, got "${v.questions}"`);
  if (v.sandbox !== undefined && !["read-only", "workspace-write", "danger-full-access"].includes(v.sandbox))
    throw new UsageError(
      `--sandbox must be read-only, workspace-write or danger-full-access, got "${v.sandbox}"`,
    );
  // Before anything is stored: a thread must not be created for a directory that is not there.
  const cdProblem = v.cd === undefined ? undefined : directoryProblem(v.cd);
  if (cdProblem) throw new UsageError(`--cd: ${cdProblem}`);
  for (const dir of v["add-dir"] ?? []) {
    const problem = directoryProblem(dir);
    if (problem) throw new UsageError(`--add-dir: ${problem}`);
  }
  const config: string[] = [...(v.config ?? [])];
  if (v.sandbox) config.push(`sandbox_mode="${v.sandbox}"`);
  return {
    json: Boolean(v.json || v["experimental-json"]),
    model: v.model,
    config,
    sandbox: v.sandbox,
    cd: v.cd,
    addDir: v["add-dir"] ?? [],
    outputSchema: v["output-schema"],
    images: v.image ?? [],
    mode: v.mode,
    questions: v.questions,
    answers: v.answer ?? [],
    answerJson: v["answer-json"],
    answerFile: v["answer-file"],
    resumeId,
    prompt: pos[0],
    logFile: v["log-file"],
  };
}
