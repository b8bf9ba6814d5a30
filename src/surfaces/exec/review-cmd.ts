/**
 * `tandem review` (README "Review: `/review`"): a headless review in a thread of its own — the
 * uncommitted changes by default, `--base BRANCH`, `--commit SHA`, or free instructions — run as
 * the read-only review turn of runtime/review.ts. Prints the findings as a list (priority, title,
 * file:lines, body), or with `--json` one JSON object `{thread_id, target, findings,
 * overall_correctness, overall_explanation}`. Nothing in the workspace changes. The findings are
 * model text: the list and a raw answer on stderr are neutralised for the terminal (--json is exact).
 *
 * Exit codes: 0 the review answered (whatever it found), 1 it failed or its answer could not be
 * read (the raw answer is printed to stderr), 2 usage, 130/143 stopped by a signal.
 */
import { parseArgs } from "node:util";
import { messageText } from "../../protocol/items.js";
import {
  parseReview,
  REVIEW_TURN,
  type ReviewTarget,
  reviewLabel,
  reviewPrompt,
  reviewRequestLine,
  reviewText,
  targetProblem,
} from "../../protocol/review.js";
import { argError } from "../../util/cli-args.js";
import { directoryProblem } from "../../util/dirs.js";
import { terminalText } from "../../util/terminal-text.js";
import { RUNTIME_FLAGS, runSurface } from "../shared/startup.js";

export const REVIEW_USAGE = `Usage: tandem review [options] [INSTRUCTIONS]   review changes, read-only

Reviews the uncommitted changes (staged, unstaged and untracked) unless told otherwise.

Options:
  --base BRANCH             review the current branch's changes against BRANCH
  --commit SHA              review the changes a commit introduced
  --json                    print the findings as one JSON object
  -C, --cd DIR              the repository (default: the current directory)
  -m, --model MODEL         model to use
  -c, --config key=value    override a config value (TOML value), repeatable
  --log-file FILE           write the debug log to FILE
  -h, --help                show this help`;

export async function runReview(argv: string[]): Promise<number> {
  let v: Record<string, any>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...RUNTIME_FLAGS,
        base: { type: "string" },
        commit: { type: "string" },
        json: { type: "boolean" },
        cd: { type: "string", short: "C" },
        help: { type: "boolean", short: "h" },
      },
    });
    v = parsed.values;
    positionals = parsed.positionals;
  } catch (err) {
    process.stderr.write(`tandem review: ${argError(err)}\n\n${REVIEW_USAGE}\n`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(`${REVIEW_USAGE}\n`);
    return 0;
  }
  const instructions = positionals.join(" ").trim();
  const given = [v.base !== undefined, v.commit !== undefined, instructions !== ""].filter(Boolean).length;
  if (given > 1) {
    process.stderr.write("tandem review: give one of --base, --commit or instructions\n");
    return 2;
  }
  const target: ReviewTarget =
    v.base !== undefined
      ? { type: "baseBranch", branch: v.base }
      : v.commit !== undefined
        ? { type: "commit", sha: v.commit }
        : instructions
          ? { type: "custom", instructions }
          : { type: "uncommittedChanges" };
  const problem = targetProblem(target) ?? (v.cd === undefined ? undefined : directoryProblem(v.cd));
  if (problem) {
    process.stderr.write(`tandem review: ${problem}\n`);
    return 2;
  }
  const cwd = v.cd ?? process.cwd();
  return runSurface({ name: "review", flags: v }, async ({ runtime, stopped }) => {
    const label = reviewLabel(target);
    const thread = runtime.threads.start({ cwd, mode: "default" });
    const turn = thread.startTurn(reviewPrompt(target), {
      options: REVIEW_TURN,
      mentions: false,
      display: reviewRequestLine(label),
    });
    if (!v.json)
      process.stderr.write(`Reviewing ${terminalText(label)} (read-only) in thread ${thread.id}…\n`);
    const outcome = await Promise.race([turn.done, stopped.then(() => undefined)]);
    if (!outcome) return 130;
    const last = [...thread.items()].reverse().find((i) => i.type === "message" && i.role === "assistant");
    if (outcome.status !== "completed" || !last || last.type !== "message") {
      process.stderr.write(
        `tandem review: the review ${outcome.status === "completed" ? "gave no answer" : `${outcome.status}${outcome.error ? `: ${terminalText(outcome.error.message)}` : ""}`}\n`,
      );
      return 1;
    }
    const text = messageText(last);
    const r = parseReview(text);
    if (!r.ok) {
      // The model's text reaches a terminal: neutralised (util/terminal-text.ts), as the list is.
      process.stderr.write(`tandem review: ${terminalText(`${r.error}; the model answered:\n${text}`)}\n`);
      return 1;
    }
    if (v.json) process.stdout.write(`${JSON.stringify({ thread_id: thread.id, target, ...r.result })}\n`);
    else process.stdout.write(`${terminalText(reviewText(r.result, cwd))}\n`);
    return 0;
  });
}
